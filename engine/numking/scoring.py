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


# The labels say « annonce » as the app does, avoid plurals that a number would break
# (« plis faits : 1 »), and write the minus sign as the points are written (`-3`), so that
# « -3×1 : -3 pts » reads with one sign.
BID_MET = kind(
    "bid-met", "Bid {bid} met: 10 + 3×{bid}", "Annonce {bid} réussie\u00a0: 10 + 3×{bid}"
)
BID_MISSED = kind(
    "bid-missed",
    "Bid {bid} missed (tricks taken: {tricks}): -3×{off}",
    "Annonce {bid} ratée (plis faits\u00a0: {tricks})\u00a0: -3×{off}",
)
ZERO_BID_MET = kind(
    "zero-bid-met",
    "Bid 0 met (cards per player: {cards}): 25 + 2×{cards}",
    "Annonce 0 réussie (cartes par joueur\u00a0: {cards})\u00a0: 25 + 2×{cards}",
)
ZERO_BID_MISSED = kind(
    "zero-bid-missed",
    "Bid 0 missed (tricks taken: {tricks}): -(10 + 5×{tricks})",
    "Annonce 0 ratée (plis faits\u00a0: {tricks})\u00a0: -(10 + 5×{tricks})",
)
#: Said by what it counts (bids met in a row: +5 at 2, +10 from 3), not by the jargon
#: « série de 0 ».
PRECISION_BONUS = kind(
    "precision-bonus",
    "Precision bonus (bids met in a row: {streak})",
    "Bonus de précision (annonces réussies d’affilée\u00a0: {streak})",
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
