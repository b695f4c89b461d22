"""What a seat of a Num Wars classic round may see (rules/numwars-classic.md "Set-up",
"Alliance"): one projection, :func:`view`; others' hands only as counts, never the set-aside
cards, another seat's passed cards, or a show not meant for the seat."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from engine.core.base import RoundScore, TrickCard
from engine.core.view import BaseView
from engine.numwars_classic.tricks import ClassicFinishedTrick

if TYPE_CHECKING:
    from engine.numwars_classic.kernel import ClassicKernel


class View(BaseView, frozen=True, kw_only=True):
    leader: int  # who leads the current trick
    hand_counts: list[int]
    exchange_size: int  # cards each seat passes to the right
    passed_counts: list[int]
    trick: list[TrickCard]  # the current trick, in play order
    tricks: list[ClassicFinishedTrick]  # finished tricks, in order
    captured: list[list[str]]  # each seat's captured cards, canonical
    set_aside_count: int
    teams: list[list[int]] | None = None  # alliance: partners opposite
    has_shown: list[bool] | None = None  # alliance: who has made the show step
    passed: list[str] | None = None  # the cards the seat passed
    received: list[str] | None = None  # the cards the seat received
    shown: str | None = None  # alliance: the card the seat showed
    partner_shown: str | None = None  # alliance: the card the seat's partner showed it
    round_score: RoundScore | None  # the round's scores once it is over
    #: the finished tricks are the kernel's own, built once each (`finished_tricks`)
    GROWS: ClassVar[tuple[str, ...]] = ("tricks",)


def view(state: ClassicKernel, seat: int | None) -> View:
    """What `seat` may see (None: a spectator); `seat` is already checked. Built by the
    compiled kernel (:meth:`ClassicKernel.view`) with this module's type."""
    return state.view(seat, View)
