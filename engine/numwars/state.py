"""A Num Wars round's state within the round, as a stored game's progress keeps it (issue
27's growth): a cold load takes it instead of applying the round's actions so far, so it
costs the same at any point of an 80-to-103-action round.

The state is what the round's actions changed (:meth:`NumWarsKernel.state_values`, in the
order of :class:`NumWarsState`'s fields after `v` and `actions`), as JSON; what follows from
it (the piles, the pairs and the Bomb's fate from the finished tricks, the role cards each
hand holds) is rebuilt, not stored. It is written by the server with the actions it follows
and read only by the server: a stored game's `progress` column, never an answer (it holds
every hand). Reading it checks its shape, the seats, the suits and the cards (each of the
decks), not that the actions lead there: that is the writer's part, as for the checkpoint's
setup. `v` is this form's version: a state of another version is not read (the round's
actions are applied instead), so changing what the kernel keeps changes `v`.
"""

from __future__ import annotations

from collections import Counter
from itertools import chain
from typing import TYPE_CHECKING, Literal

import msgspec

from engine.core.actions import Action
from engine.core.base import BOMB_OUTCOMES, TrickResult
from engine.core.formats import encode_round_state, read_round_state, state_fields
from engine.numwars.cards import KIND

if TYPE_CHECKING:  # the round (its one importer at run time) hands its kernel over
    from engine.numwars.kernel import NumWarsKernel

#: The version of :class:`NumWarsState` this code writes and reads.
STATE_FORMAT = 1

if TYPE_CHECKING:
    Card = str
else:  # a card of the decks, checked (and interned) by the decoder
    Card = Literal[tuple(KIND)]

_CARDS = frozenset(KIND)
#: A suit index of the kernel's (`_asked`, `_ref`): the four colours, -1 for none or trump.
_SUITS = range(-1, 4)


class NumWarsState(msgspec.Struct, frozen=True, array_like=True):
    """The fields of :meth:`NumWarsKernel.state_values`, after the form's version `v` and the
    number of the round's `actions` it follows (a JSON array: no field names stored)."""

    v: int
    actions: int
    phase: Literal["exchange", "play", "neutralize"]
    hands: list[list[Card]]  # each seat's hand, canonical
    passed: list[list[Card]]  # the cards each seat passed (option `exchange`)
    revealed: list[bool]  # each seat's role revealed (a role card played)
    #: Finished tricks: leader, cards in play order, result, the complice's choice (or None).
    records: list[tuple[int, list[Card], TrickResult, bool | None]]
    leader: int  # who leads the current trick
    current_player: int | None  # None during the exchange
    trick_cards: list[Card]  # the current trick's cards in play order
    asked: int  # the colour asked (a suit index; -1: trump or none yet)
    ref: int  # the colour a classic card must have to win (-1: none yet)
    win: int  # the best contest key so far (-1: none)
    winner: int  # the seat of that key (the leader when none)
    top: int  # the highest strength among the contesting trumps (-1: none)
    wanted: list[Card]  # the complements of the contesting real trumps, sorted
    paired: list[Card]  # the current trick's cards taken in pairs
    special: bool  # the current trick holds the Bomb or a pair


_DECODER = msgspec.json.Decoder(NumWarsState)


def save(kernel: NumWarsKernel) -> msgspec.Raw:
    """The round's state as stored (the round not over)."""
    return encode_round_state(STATE_FORMAT, len(kernel.history), kernel.state_values())


def load(kernel: NumWarsKernel, saved: msgspec.Raw, played: list[tuple[int, Action]]) -> bool:
    """Make `kernel`, freshly dealt, the round `saved` describes after its `played` actions.
    False (the kernel untouched) when `saved` is of another version; ValueError, or msgspec's
    DecodeError or ValidationError, when it is unreadable or does not fit the round."""
    state = read_round_state(saved, _DECODER, STATE_FORMAT, len(played))
    if state is None:
        return False
    n = kernel.n
    if any(len(values) != n for values in (state.hands, state.passed, state.revealed)):
        raise ValueError(f"a list of the state does not hold one entry per seat ({n})")
    seats = [state.leader, state.winner]
    if state.current_player is not None:
        seats.append(state.current_player)
    cards: set[str] = set()
    add = seats.append
    for leader, _, result, _ in state.records:
        add(leader)
        add(result.next_leader)
        if result.winner is not None:
            add(result.winner)
        for capture in result.captures:
            add(capture.seat)
            cards.update(capture.cards)
        for capture in result.pairs:
            add(capture.seat)
            cards.update(capture.cards)
        bomb = result.bomb
        if bomb is not None and not isinstance(bomb, msgspec.UnsetType):
            if bomb.outcome not in BOMB_OUTCOMES:
                raise ValueError(f"the Bomb's outcome {bomb.outcome!r} is not one")
            if bomb.captured_by is not None:
                add(bomb.captured_by)
            if bomb.neutralized is not None:
                cards.add(bomb.neutralized)
    if min(seats) < 0 or max(seats) >= n:
        raise ValueError(f"a seat of the state is not one of 0 to {n - 1}")
    if not cards <= _CARDS:
        raise ValueError("a finished trick's result holds a card that is not one")
    if state.asked not in _SUITS or state.ref not in _SUITS:
        raise ValueError("a suit of the state is not one")
    if any(not result.captures for _, _, result, _ in state.records):
        raise ValueError("a finished trick of the state captured nothing")
    if (state.current_player is None) != (state.phase == "exchange"):
        raise ValueError(f"the state's turn does not fit its phase ({state.phase})")
    # the round as dealt: each card in one place since
    dealt = Counter(chain(kernel.set_aside, *kernel.hands))
    places = [kernel.set_aside, *state.hands, state.trick_cards, *(r[1] for r in state.records)]
    if state.phase == "exchange":  # passed on, not received yet
        places += state.passed
    held = Counter(chain.from_iterable(places))
    if not dict.__eq__(held, dealt):  # as dicts: a Counter compares in Python
        raise ValueError("the cards of the state are not the deck's, each in one place")
    kernel.restore_values(**state_fields(state), history=list(played))
    return True
