"""What a seat of a Num Wars round may see (rules/numwars.md "Set-up", "The Bomb"): one
projection, :func:`view`, never another hand, an unrevealed role, a card passed to another
seat, or the set-aside."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import msgspec

from engine.core.base import BombResult, Role, RoundScore, TrickCard
from engine.core.view import BaseView
from engine.numwars.tricks import FinishedTrick

if TYPE_CHECKING:
    from engine.numwars.kernel import NumWarsKernel


class Captured(msgspec.Struct, frozen=True, kw_only=True):
    """A seat's captured cards and the trump pairs it captured as pairs (public)."""

    seat: int
    cards: list[str]
    pairs: list[list[str]]


class View(BaseView, frozen=True, kw_only=True):
    leader: int  # who leads the current trick
    hand_counts: list[int]
    roles: list[Role | None]  # revealed roles, and the seat's own
    role: Role | None = None  # the seat's own role
    trick: list[TrickCard]  # the current trick, in play order
    tricks: list[FinishedTrick]  # finished tricks, in order
    captured: list[Captured]
    bomb: BombResult | None  # the Bomb's fate, once decided
    exchange_size: int  # cards each seat passes (option `exchange`)
    passed_counts: list[int]
    passed: list[str] | None = None  # the cards the seat passed, during the exchange
    round_score: RoundScore | None  # the round's scores once it is over
    #: the finished tricks are the kernel's own, built once each (`finished_tricks`)
    GROWS: ClassVar[tuple[str, ...]] = ("tricks",)


def view(state: NumWarsKernel, seat: int | None) -> View:
    """What `seat` may see (None: a spectator); `seat` is already checked. Built by the
    compiled kernel (:meth:`NumWarsKernel.view`) with this module's types."""
    return state.view(seat, View, Captured)
