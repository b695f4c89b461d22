"""What a seat of a Num Win round has seen (rules/numwin.md "Knowledge"): one projection,
:func:`view`; a spectator sees what every seat has seen."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import msgspec

from engine.core.base import RoundScore
from engine.core.view import BaseView
from engine.numwin.cards import DECK, is_action

if TYPE_CHECKING:
    from engine.numwin.kernel import NumWinKernel


class Combination(msgspec.Struct, frozen=True, kw_only=True):
    """A seat's combination, position by position; `cards[i]` None where unseen."""

    seat: int
    count: int
    cards: list[str | None]
    locked: list[bool]
    face_up: list[bool]


class InHand(msgspec.Struct, frozen=True, kw_only=True):
    """The card the seat on turn holds (None where unseen) and where it came from."""

    seat: int
    card: str | None
    from_: str = msgspec.field(name="from")


#: A card that acts when discarded (rules "Actions": swipe, flip, quantum and the malus cards).
ActionCard = Annotated[
    str, msgspec.Meta(extra_json_schema={"enum": sorted({c for c in DECK if is_action(c)})})
]


class Pending(msgspec.Struct, frozen=True, kw_only=True):
    """An activated action card waiting for its target (rules "Actions"): the seat that
    chooses it, the card, and the step (a swipe's second choice: 1)."""

    seat: int
    action: ActionCard
    step: int


class View(BaseView, frozen=True, kw_only=True):
    turns: int  # turns begun so far
    combinations: list[Combination]
    in_hand: InHand | None  # the card held by the seat on turn, if any
    discard: str | None  # the uncovered discard
    discard_count: int
    draw_pile_count: int
    set_aside_count: int
    snap_open: bool
    pending: Pending | None  # an action card waiting for its target
    call_open: int | None  # the seat that may call "Num Win" now
    caller: int | None
    last_turns: list[int] | None
    end: str | None
    shown: list[int] | None = None  # teams: the seats that made the show step
    round_score: RoundScore | None  # the round's scores once it is over


def view(state: NumWinKernel, seat: int | None) -> View:
    """What `seat` has seen (None: what every seat has seen); `seat` is already checked. Built by the
    compiled kernel (:meth:`NumWinKernel.view`) with this module's types."""
    return state.view(seat, View, Combination, InHand, Pending)
