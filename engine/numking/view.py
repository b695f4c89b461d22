"""What a seat of a Num King round may see (rules/numking.md "Rounds"): one projection,
:func:`view`; public data plus the seat's own hand, never another hand nor the reserve."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from engine.core.base import RoundScore, TrickCard
from engine.core.view import BaseView
from engine.numking.cards import INF17, INFINITY

if TYPE_CHECKING:
    from engine.numking.kernel import NumKingKernel


class Trick(msgspec.Struct, frozen=True, kw_only=True):
    """A finished trick: its leader, cards in play order, winner (None: annulled), and the
    cards cancelled out (rules "Cancellation")."""

    leader: int
    cards: list[TrickCard]
    winner: int | None
    cancelled: list[str]


class View(BaseView, frozen=True, kw_only=True):
    first_bidder: int
    leader: int  # who leads the current trick
    bids: list[int | None]
    tricks_taken: list[int]
    streaks_before: list[int]
    hand_counts: list[int]
    reserve_count: int
    trick: list[TrickCard]  # the current trick, in play order (`declared` on infinity)
    tricks: list[Trick]
    round_score: RoundScore | None  # the round's scores once it is over


def trick_card(entry: tuple[int, str, int]) -> TrickCard:
    """A played (seat, card, strength) as a TrickCard; infinity with its declaration."""
    seat, card, strength = entry
    if card == INFINITY:
        return TrickCard(seat=seat, card=card, declared=17 if strength == INF17 else 0)
    return TrickCard(seat=seat, card=card)


def view(state: NumKingKernel, seat: int | None) -> View:
    """What `seat` may see (None: a spectator); `seat` is already checked."""
    n = state.n
    return View(
        ruleset="numking",
        phase=str(state.phase),
        round=state.setup.round,
        dealer=state.setup.dealer,
        players=n,
        seat=seat,
        current_player=state.current_player,
        actors=list(state.actors()),
        hand=list(state.hands[seat]) if seat is not None else None,
        legal_actions=list(state.legal_actions(seat)) if seat is not None else None,
        scores=[0] * n,
        first_bidder=state.first_bidder,
        leader=state.trick_leader,
        bids=list(state.bids),
        tricks_taken=list(state.tricks_taken),
        streaks_before=list(state.streaks_before),
        hand_counts=[len(p) for p in state.hands],
        reserve_count=len(state.reserve),
        trick=[trick_card(e) for e in state.trick],
        tricks=[
            Trick(
                leader=leader,
                cards=[trick_card(e) for e in cards],
                winner=winner,
                cancelled=list(cancelled),
            )
            for leader, cards, winner, cancelled in state.tricks
        ],
        round_score=state.scores(),
    )
