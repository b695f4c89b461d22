"""Num King deck and card facts (rules/numking.md "Deck", "Strength"): each card's held
strength and family bits, the shared Play and Bid actions, and the per-deck tables the round
indexes by strength rank.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from typing import NamedTuple

from engine.core.actions import Action, Bid, Play
from engine.core.cards import ORDER_KEY, numbered_deck

MIN_PLAYERS = 2
MAX_PLAYERS = 8
INFINITY = "infinity"
FLASH = "flash"
NUMX = "numx"
DECLARATIONS = (17, 0)
#: The longest streak a round can start with: a match has at most 19 rounds (k_max of two
#: players with zeros, 38 // 2), so the streak before its last round is at most 18.
MAX_STREAK = 18

#: Strength of a played card (rules "Strength"); infinity's depends on its declaration.
INF0, INF17, NUMX_STRENGTH, FLASH_STRENGTH = 0, 18, 19, 20


def _tables() -> tuple[dict[str, int], dict[str, int], dict[str, int], dict[str, int]]:
    """Per-card strength when held, value bit, Rainbow bit and Shadow bit (0 if none)."""
    held: dict[str, int] = {NUMX: NUMX_STRENGTH, INFINITY: INF17, FLASH: FLASH_STRENGTH}
    vbit: dict[str, int] = {NUMX: 0, INFINITY: 0, FLASH: 0}
    rbit = dict(vbit)
    sbit = dict(vbit)
    for v in range(17):
        for family in ("rainbow", "shadow"):
            code = f"{family}-{v}"
            held[code] = v + 1
            vbit[code] = 1 << v
            rbit[code] = (1 << v) if family == "rainbow" else 0
            sbit[code] = (1 << v) if family == "shadow" else 0
    return held, vbit, rbit, sbit


_HELD, _VBIT, _RBIT, _SBIT = _tables()
#: Strengths with infinity played at 0 (rules "Strength").
_HELD_INF0 = {**_HELD, INFINITY: INF0}
#: Rainbow-X sets bit X, Shadow-X bit X + 17: one int tracks both families of a trick.
_FBIT: dict[str, int] = {code: _RBIT[code] | (_SBIT[code] << 17) for code in _HELD}
_LOW17 = (1 << 17) - 1
_SORT_KEY = ORDER_KEY

#: Shared, immutable action instances: legal_actions never builds a struct.
_PLAY: dict[str, Play] = {code: Play(card=code) for code in _HELD}
_PLAY_INF17 = Play(card=INFINITY, declared=17)
_PLAY_INF0 = Play(card=INFINITY, declared=0)
_PLAY[INFINITY] = _PLAY_INF17
_BIDS: list[Action] = [Bid(tricks=t) for t in range(40)]


#: The Play of the Rainbow/Shadow card of each single bit of a hand's family bits.
_BIT_PLAY: dict[int, Play] = {_FBIT[code]: _PLAY[code] for code in _HELD if _FBIT[code]}


class _DeckTables(NamedTuple):
    """Per-deck facts the round state indexes by strength rank (strongest first, then
    canonical): deck index i → rank `srank[i]`; per rank the Play, family bit and card; the
    first rank of each card; `cut[t]` = how many ranks are stronger than strength t."""

    cards: tuple[str, ...]
    counts: Counter[str]
    srank: list[int]
    rank_play: list[Action]
    rank_fbit: list[int]
    rank_card: list[str]
    first_rank: dict[str, int]
    cut: list[int]


@cache
def _deck_tables(zeros: bool) -> _DeckTables:
    """The deck (rules "Deck": 36 cards, 38 with zeros) and its tables, built once."""
    cards = (
        *numbered_deck(("rainbow", "shadow"), 0 if zeros else 1, 16),
        NUMX,
        INFINITY,
        FLASH,
        FLASH,
    )
    by_strength = sorted(range(len(cards)), key=lambda i: -_HELD[cards[i]])
    srank = [0] * len(cards)
    for r, i in enumerate(by_strength):
        srank[i] = r
    ranked = [cards[i] for i in by_strength]
    first_rank: dict[str, int] = {}
    for r, c in enumerate(ranked):
        first_rank.setdefault(c, r)
    return _DeckTables(
        cards=cards,
        counts=Counter(cards),
        srank=srank,
        rank_play=[_PLAY[c] for c in ranked],
        rank_fbit=[_FBIT[c] for c in ranked],
        rank_card=ranked,
        first_rank=first_rank,
        cut=[sum(1 for c in ranked if _HELD[c] > t) for t in range(FLASH_STRENGTH + 1)],
    )
