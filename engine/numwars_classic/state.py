"""A Num Wars classic round's state within the round, as a stored game's progress keeps it
(issue 27's growth): a cold load takes it instead of applying the round's actions so far, so
it costs the same at any point of a 128-action round.

The state is what the round's actions changed (:meth:`ClassicKernel.state_values`, in the
order of :class:`ClassicState`'s fields after `v` and `actions`), as JSON. It is written by
the server with the actions it follows and read only by the server: a stored game's
`progress` column, never an answer (it holds every hand). Reading it checks its shape, the
seats, the cards (each of the deck in one place), the finished tricks, and that the turn
fits the phase and the trick, not that the actions lead there: that is the writer's part, as
for the checkpoint's setup; the match then asks the round for its actors' legal actions and
a view (:meth:`engine.core.match.Match.resume`), so a state that passed but cannot be
answered with is refused there, never at a later request. `v` is this form's version: a state of another version is not read (the
round's actions are applied instead), so changing what the kernel keeps changes `v`.
"""

from __future__ import annotations

from collections import Counter
from itertools import chain
from typing import TYPE_CHECKING, Literal

import msgspec
from msgspec import UnsetType

from engine.core.actions import Action
from engine.core.events import TrickData
from engine.core.formats import encode_round_state, read_round_state, state_fields
from engine.numwars_classic.cards import BLUE, DECK_COUNTS, GREEN, KIND, RED, TRUMP_ASKED, YELLOW

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


#: What a trick may ask: nothing yet, a colour, or the trumps.
_ASKED = (None, RED, BLUE, GREEN, YELLOW, TRUMP_ASKED)
_DECODER = msgspec.json.Decoder(ClassicState)


def save(kernel: ClassicKernel) -> msgspec.Raw:
    """The round's state as stored (the round not over)."""
    return encode_round_state(STATE_FORMAT, len(kernel.history), kernel.state_values())


def load(kernel: ClassicKernel, saved: msgspec.Raw, played: list[tuple[int, Action]]) -> bool:
    """Make `kernel`, freshly dealt, the round `saved` describes after its `played` actions.
    False (the kernel untouched) when `saved` is of another version; ValueError, or msgspec's
    DecodeError or ValidationError, when it is unreadable or does not fit the round."""
    state = read_round_state(saved, _DECODER, STATE_FORMAT, len(played))
    if state is None:
        return False
    n = kernel.players
    per_seat = (state.hands, state.passed, state.received, state.shown, state.has_shown)
    if any(len(values) != n for values in (*per_seat, state.piles)):
        raise ValueError(f"a list of the state does not hold one entry per seat ({n})")
    seats = [state.leader, *state.waiting]
    for leader, cards, result in state.records:  # as `_end_trick` records a trick
        winner = result.winner
        if len(cards) != n or winner is None or result.next_leader != winner:
            raise ValueError("a finished trick of the state is not one of this round's")
        if isinstance(result.captures, UnsetType) or isinstance(result.pairs, UnsetType):
            raise ValueError("a finished trick of the state lacks its captures or pairs")
        seats += (leader, winner, *(c.seat for c in (*result.captures, *result.pairs)))
    playing = state.phase == "play"
    turn = state.current_player
    if playing != (turn is not None) or (not playing and (state.trick_cards or state.records)):
        raise ValueError(f"the state's turn or tricks do not fit its phase ({state.phase})")
    if turn is not None and turn != (state.leader + len(state.trick_cards)) % n:
        raise ValueError("the state's turn is not the next seat of its trick")
    if any(not 0 <= seat < n for seat in seats) or not min(state.best_seat, state.top_seat) >= -1:
        raise ValueError(f"a seat of the state is not one of 0 to {n - 1}")
    if max(state.best_seat, state.top_seat) >= n or len(state.trick_cards) >= n:
        raise ValueError(f"a seat of the state is not one of 0 to {n - 1}")
    if state.asked not in _ASKED or state.tbits < 0:
        raise ValueError("what the state's trick asks is not a colour or the trumps")
    places = [kernel.set_aside, *state.hands, *state.piles, state.trick_cards]
    if state.phase == "exchange":  # passed on, not received yet
        places += state.passed
    held = Counter(chain.from_iterable(places))  # each card of the deck in one place
    if not dict.__eq__(held, DECK_COUNTS):  # as dicts: a Counter compares in Python
        raise ValueError("the cards of the state are not the deck's, each in one place")
    kernel.restore_values(**state_fields(state), history=list(played))
    return True
