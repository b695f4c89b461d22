"""What a seat of a Num Wars round may see (rules/numwars.md "Set-up", "The Bomb"): one
projection, :func:`view`, never another hand, an unrevealed role, a card passed to another
seat, or the set-aside."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import msgspec

from engine.core.base import BombResult, Role, RoundScore, TrickCard
from engine.core.view import BaseView
from engine.numwars.cards import canon
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
    """What `seat` may see (None: a spectator); `seat` is already checked."""
    n = state.n
    own = seat is not None
    return View(
        ruleset="numwars",
        phase=state.phase.value,
        round=state.setup.round,
        dealer=state.dealer,
        players=n,
        seat=seat,
        current_player=state.current_player,
        actors=list(state.actors()),
        hand=state.hand(seat) if seat is not None else None,
        legal_actions=list(state.legal_actions(seat)) if seat is not None else None,
        scores=[0] * n,
        leader=state.leader,
        hand_counts=state.hand_counts(),
        roles=[
            state.roles[s] if state.revealed[s] or (own and s == seat) else None for s in range(n)
        ],
        role=state.roles[seat] if seat is not None else None,
        trick=[TrickCard(seat=s, card=c) for s, c in state.trick],
        tricks=state.finished_tricks(),
        captured=[
            Captured(seat=s, cards=state.canon_pile(s), pairs=[list(p) for p in state.pairs[s]])
            for s in range(n)
        ],
        bomb=state.bomb,
        exchange_size=state.k,
        passed_counts=[len(p) for p in state.passed],
        passed=(
            canon(state.passed[seat])
            if seat is not None and state.phase.value == "exchange"
            else None
        ),
        round_score=state.scores(),
    )
