"""A Num Wars classic round's state within the round, as a stored game's progress keeps it
(issue 27's growth): a cold load takes it instead of applying the round's actions so far, so
it costs the same at any point of a 128-action round.

The state is what the round's actions changed (:meth:`ClassicKernel.state_values`, in the
order of :class:`ClassicState`'s fields after `v` and `actions`), as JSON. It is written by
the server with the actions it follows and read only by the server: a stored game's
`progress` column, never an answer (it holds every hand). Reading it checks its shape, the
seats and the cards (each of the deck), not that the actions lead there: that is the writer's part, as for the
checkpoint's setup. `v` is this form's version: a state of another version is not read (the
round's actions are applied instead), so changing what the kernel keeps changes `v`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import msgspec

from engine.core.actions import Action
from engine.core.events import TrickData
from engine.numwars_classic.cards import KIND

if TYPE_CHECKING:  # the round (its one importer at run time) hands its kernel over
    from engine.numwars_classic.kernel import ClassicKernel

#: The version of :class:`ClassicState` this code writes and reads.
STATE_FORMAT = 1

if TYPE_CHECKING:
    Card = str
else:  # a card of the deck, checked (and interned) by the decoder
    Card = Literal[tuple(KIND)]


class ClassicState(msgspec.Struct, frozen=True, array_like=True):
    """The fields of :meth:`ClassicKernel.state_values`, after the form's version `v` and the
    number of the round's `actions` it follows (a JSON array: no field names stored)."""

    v: int
    actions: int
    phase: Literal["exchange", "show", "play"]
    hands: list[list[Card]]
    passed: list[list[Card]]
    received: list[list[Card]]
    shown: list[Card | None]
    has_shown: list[bool]
    waiting: list[int]
    records: list[tuple[int, list[Card], TrickData]]
    piles: list[list[Card]]
    leader: int
    current_player: int | None
    trick_cards: list[Card]
    asked: int | None
    best: int
    best_seat: int
    top: int
    top_seat: int
    tbits: int


_ENCODER = msgspec.json.Encoder()
_DECODER = msgspec.json.Decoder(ClassicState)


def save(kernel: ClassicKernel) -> msgspec.Raw:
    """The round's state as stored (the round not over)."""
    return msgspec.Raw(_ENCODER.encode((STATE_FORMAT, len(kernel.history), *kernel.state_values())))


def load(kernel: ClassicKernel, saved: msgspec.Raw, played: list[tuple[int, Action]]) -> bool:
    """Make `kernel`, freshly dealt, the round `saved` describes after its `played` actions.
    False (the kernel untouched) when `saved` is of another version; ValueError, or msgspec's
    DecodeError or ValidationError, when it is unreadable or does not fit the round."""
    text = bytes(saved)
    version = text[1 : text.find(b",", 0, 12)]  # the array's first item, read before the rest
    if not (text.startswith(b"[") and version.isdigit()):
        raise ValueError("the state is not an array led by its version")
    if int(version) != STATE_FORMAT:
        return False
    state = _DECODER.decode(saved)
    n = kernel.players
    if state.actions != len(played):
        raise ValueError(f"the state follows {state.actions} actions, not {len(played)}")
    per_seat = (state.hands, state.passed, state.received, state.shown, state.has_shown)
    if any(len(values) != n for values in (*per_seat, state.piles)):
        raise ValueError(f"a list of the state does not hold one entry per seat ({n})")
    seats = [state.leader, *state.waiting, *(r[0] for r in state.records)]
    if state.current_player is not None:
        seats.append(state.current_player)
    if any(not 0 <= seat < n for seat in seats):
        raise ValueError(f"a seat of the state is not one of 0 to {n - 1}")
    kernel.restore_values(
        state.phase,
        state.hands,
        state.passed,
        state.received,
        state.shown,
        state.has_shown,
        state.waiting,
        state.records,
        state.piles,
        state.leader,
        state.current_player,
        state.trick_cards,
        state.asked,
        state.best,
        state.best_seat,
        state.top,
        state.top_seat,
        state.tbits,
        list(played),
    )
    return True
