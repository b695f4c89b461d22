"""A Num Win round's state within the round, as a stored game's progress keeps it (issue 27's
growth): a cold load takes it instead of applying the round's actions so far, so it costs the
same at any point of a round of 30 to 200 actions.

The state is what the round's actions changed (:meth:`NumWinKernel.state_values`, in the
order of :class:`NumWinState`'s fields after `v` and `actions`), as JSON: the card instances
as their indices into :data:`engine.numwin.cards.DECK`, the generator as its state
(:attr:`engine.core.rng.Rng.state`: a reshuffle draws on as in the round that played). It is
written by the server with the actions it follows and read only by the server: a stored
game's `progress` column, never an answer (it holds every combination and the draw pile's
order). Reading it checks its shape, the seats, the cards (each of the deck, each in one
place) and the knowledge masks, not that the actions lead there: that is the writer's part,
as for the checkpoint's setup. The options (`teams`, `max_turns`, the rules version) are the
round's own, from its rules object. `v` is this form's version: a state of another version is
not read (the round's actions are applied instead), so changing what the kernel keeps
changes `v`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

import msgspec

from engine.core.actions import Action
from engine.core.formats import encode_round_state, read_round_state, state_fields
from engine.numwin.cards import DECK, is_action

if TYPE_CHECKING:  # the round (its one importer at run time) hands its kernel over
    from engine.numwin.kernel import NumWinKernel

#: The version of :class:`NumWinState` this code writes and reads.
STATE_FORMAT = 1

#: A card instance: its index into DECK (checked by the decoder).
Card = Annotated[int, msgspec.Meta(ge=0, lt=len(DECK))]
#: The card held on turn: a card instance, or -1 (none).
Held = Annotated[int, msgspec.Meta(ge=-1, lt=len(DECK))]
#: A seat, a position or -1 (none); `load` checks a seat against the table.
Index = Annotated[int, msgspec.Meta(ge=-1)]
#: A seat, a count or a bit mask of seats; `load` checks a seat or a mask against the table.
Seat = Annotated[int, msgspec.Meta(ge=0)]

if TYPE_CHECKING:
    Pending = str
else:  # "" or an action card waiting for its target
    Pending = Literal[("", *sorted({c for c in DECK if is_action(c)}))]


class NumWinState(msgspec.Struct, frozen=True, array_like=True):
    """The fields of :meth:`NumWinKernel.state_values`, after the form's version `v` and the
    number of the round's `actions` it follows (a JSON array: no field names stored)."""

    v: int
    actions: int
    phase: Literal["show", "draw", "play", "action"]  # a round not over
    rng: int  # the generator's state, 0 to 2**64 - 1
    pile: list[Card]  # the draw pile, its top last
    discard: list[Card]  # the discard, its top last
    aside: list[Card]  # set aside by malus cards
    comb: list[list[Card]]  # per seat: the combination, position by position
    pairs: list[list[tuple[Card, Card]]]  # per seat: its locked pairs
    known: list[Seat]  # per card: the seats that have seen it (bit n: shown to all)
    faceup: list[bool]  # per card: revealed by quantum
    locked: list[bool]  # per card: in a locked pair
    hand: Held  # the card the seat on turn holds
    hand_src: Literal["", "draw", "take"]  # where it came from
    turn: Seat  # the seat on turn (the dealer before the teams' show step ends)
    pending: Pending  # the action card waiting for its target
    swipe_from: Index  # a swipe's first position (its second step), else -1
    snap_open: bool
    tried: Seat  # the seats that claimed wrong on the discard top
    call_seat: Index  # the seat that may call now, else -1
    resume_after: Index  # play resumes after this claimant, else -1
    deferred_call: bool  # a call flagged on a swap, made at the turn's end
    caller: Seat | None
    last_turns: list[Seat] | None  # after a call: the seats still to play
    turns: Seat  # the turns finished
    shown: Seat  # teams: the seats that made the show step


_DECODER = msgspec.json.Decoder(NumWinState)
_CARDS = list(range(len(DECK)))
_STATES = 1 << 64


def save(kernel: NumWinKernel) -> msgspec.Raw:
    """The round's state as stored (the round not over)."""
    return encode_round_state(STATE_FORMAT, len(kernel.history), kernel.state_values())


def load(kernel: NumWinKernel, saved: msgspec.Raw, played: list[tuple[int, Action]]) -> bool:
    """Make `kernel`, freshly dealt, the round `saved` describes after its `played` actions.
    False (the kernel untouched) when `saved` is of another version; ValueError, or msgspec's
    DecodeError or ValidationError, when it is unreadable or does not fit the round."""
    state = read_round_state(saved, _DECODER, STATE_FORMAT, len(played))
    if state is None:
        return False
    n = kernel.n
    if len(state.comb) != n or len(state.pairs) != n:
        raise ValueError(f"a list of the state does not hold one entry per seat ({n})")
    if not len(state.known) == len(state.faceup) == len(state.locked) == len(DECK):
        raise ValueError(f"a list of the state does not hold one entry per card ({len(DECK)})")
    seats = [state.turn, state.call_seat, state.resume_after, *(state.last_turns or ())]
    if state.caller is not None:
        seats.append(state.caller)
    if any(seat >= n for seat in seats):
        raise ValueError(f"a seat of the state is not one of 0 to {n - 1}")
    if not 0 <= state.rng < _STATES:
        raise ValueError("the generator's state is not one of 0 to 2**64 - 1")
    if state.tried >> n or state.shown >> n or max(state.known) >> (n + 1):
        raise ValueError(f"a mask of seats of the state holds a seat past {n - 1}")
    if state.swipe_from >= len(state.comb[state.turn]):
        raise ValueError("the swipe's first position is not one of the seat on turn's")
    places = [*state.pile, *state.discard, *state.aside]
    for cards in state.comb:
        places += cards
    if state.hand >= 0:
        places.append(state.hand)
    places.sort()
    if places != _CARDS:
        raise ValueError("the cards of the state are not the deck's, each in one place")
    if (state.phase == "action") != (state.pending != "") or (
        state.phase == "play" and state.hand < 0
    ):
        raise ValueError(
            f"the state's pending action or card does not fit its phase ({state.phase})"
        )
    kernel.restore_values(**state_fields(state), history=list(played))
    return True
