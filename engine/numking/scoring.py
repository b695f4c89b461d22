"""Num King scoring (rules/numking.md "Scoring a round", "Bids"): bid results, the precision
bonus of a streak, and the next round's first bidder.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from engine.core.base import (
    PlayerScore,
    RoundScore,
)
from engine.core.scoring import best_seats, score_line
from engine.core.texts import Text, kind


class NumKingBid(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One player's round for score-round: bid, tricks taken, streak before the round."""

    bid: int
    tricks: int
    streak: int = 0


# --------------------------------------------------------------------------- pure rules


def round_points(cards: int, bid: int, tricks: int) -> int:
    """Points of one bid result (rules "Scoring a round", the table)."""
    if bid > 0:
        return 10 + 3 * bid if tricks == bid else -3 * abs(tricks - bid)
    return 25 + 2 * cards if tricks == 0 else -(10 + 5 * tricks)


BID_MET = kind("bid-met", "bid {bid} met: 10 + 3×{bid}", "pari {bid} tenu : 10 + 3×{bid}")
BID_MISSED = kind(
    "bid-missed",
    "bid {bid}, took {tricks}: −3×{off}",
    "pari {bid}, {tricks} plis faits : −3×{off}",
)
ZERO_BID_MET = kind(
    "zero-bid-met",
    "bid 0 met in a {cards}-card round: 25 + 2×{cards}",
    "pari 0 tenu dans une manche à {cards} cartes : 25 + 2×{cards}",
)
ZERO_BID_MISSED = kind(
    "zero-bid-missed",
    "bid 0, took {tricks}: −(10 + 5×{tricks})",
    "pari 0, {tricks} plis faits : −(10 + 5×{tricks})",
)
PRECISION_BONUS = kind(
    "precision-bonus",
    "precision bonus (streak {streak})",
    "bonus de précision (série de {streak})",
)


def _result(cards: int, bid: int, tricks: int) -> tuple[Text, dict[str, int]]:
    """The breakdown line of a bid result, with the table's formula: its text and parameters."""
    if bid > 0:
        if tricks == bid:
            return BID_MET, {"bid": bid}
        return BID_MISSED, {"bid": bid, "tricks": tricks, "off": abs(tricks - bid)}
    if tricks == 0:
        return ZERO_BID_MET, {"cards": cards}
    return ZERO_BID_MISSED, {"tricks": tricks}


def precision_bonus(streak_after: int) -> int:
    """+5 at a streak of 2, +10 at 3 or more, every round while it lasts (Ruling "+10")."""
    if streak_after >= 3:
        return 10
    return 5 if streak_after == 2 else 0


def next_first_bidder(previous_first_bidder: int, tricks_by_seat: Sequence[int]) -> int:
    """The seat with the most tricks; a tie goes to the tied seat first met clockwise from
    the previous first bidder, that seat included (rules "Bids", Ruling)."""
    n = len(tricks_by_seat)
    most = max(tricks_by_seat)
    for i in range(n):
        seat = (previous_first_bidder + i) % n
        if tricks_by_seat[seat] == most:
            return seat
    raise AssertionError("unreachable")


def score_rows(cards: int, rows: Sequence[tuple[int, int, int]]) -> RoundScore:
    players = []
    for seat, (bid, tricks, streak) in enumerate(rows):
        points = round_points(cards, bid, tricks)
        result, params = _result(cards, bid, tricks)
        after = streak + 1 if tricks == bid else 0
        bonus = precision_bonus(after)
        players.append(
            PlayerScore(
                seat=seat,
                score=points + bonus,
                breakdown=[
                    score_line(result, [], points, **params),
                    score_line(PRECISION_BONUS, [], bonus, streak=after),
                ],
                streak=after,
                bonus=bonus,
            )
        )
    return RoundScore(players=players, winners=best_seats([p.score for p in players]))
