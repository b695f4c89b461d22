"""Num King deck and card facts (rules/numking.md "Deck", "Strength"): each card's held
strength and family bits, the shared Play and Bid actions, the per-deck tables the round
indexes by strength rank, the checks of a table and a round's setup, and the deal.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import cache
from typing import NamedTuple

from engine.core.actions import Action, Bid, Play
from engine.core.base import RoundSetup
from engine.core.cards import ORDER_KEY, check_cards, numbered_deck
from engine.core.errors import InvalidInput
from engine.core.rng import Rng
from engine.core.texts import Message, Said, say
from engine.core.tricks import check_players, check_seat
from engine.numking import texts as T
from engine.numking.options import NumKingOptions

RULESET_ID = "numking"
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


HELD, VBIT, RBIT, SBIT = _tables()
#: Strengths with infinity played at 0 (rules "Strength").
HELD_INF0 = {**HELD, INFINITY: INF0}
#: Rainbow-X sets bit X, Shadow-X bit X + 17: one int tracks both families of a trick.
FBIT: dict[str, int] = {code: RBIT[code] | (SBIT[code] << 17) for code in HELD}
LOW17 = (1 << 17) - 1
SORT_KEY = ORDER_KEY

#: Shared, immutable action instances: legal_actions never builds a struct.
_PLAY: dict[str, Play] = {code: Play(card=code) for code in HELD}
PLAY_INF17 = Play(card=INFINITY, declared=17)
PLAY_INF0 = Play(card=INFINITY, declared=0)
_PLAY[INFINITY] = PLAY_INF17
BIDS: list[Action] = [Bid(tricks=t) for t in range(40)]


#: The Play of the Rainbow/Shadow card of each single bit of a hand's family bits.
BIT_PLAY: dict[int, Play] = {FBIT[code]: _PLAY[code] for code in HELD if FBIT[code]}


class DeckTables(NamedTuple):
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
def deck_tables(zeros: bool) -> DeckTables:
    """The deck (rules "Deck": 36 cards, 38 with zeros) and its tables, built once."""
    cards = (
        *numbered_deck(("rainbow", "shadow"), 0 if zeros else 1, 16),
        NUMX,
        INFINITY,
        FLASH,
        FLASH,
    )
    by_strength = sorted(range(len(cards)), key=lambda i: -HELD[cards[i]])
    srank = [0] * len(cards)
    for r, i in enumerate(by_strength):
        srank[i] = r
    ranked = [cards[i] for i in by_strength]
    first_rank: dict[str, int] = {}
    for r, c in enumerate(ranked):
        first_rank.setdefault(c, r)
    return DeckTables(
        cards=cards,
        counts=Counter(cards),
        srank=srank,
        rank_play=[_PLAY[c] for c in ranked],
        rank_fbit=[FBIT[c] for c in ranked],
        rank_card=ranked,
        first_rank=first_rank,
        cut=[sum(1 for c in ranked if HELD[c] > t) for t in range(FLASH_STRENGTH + 1)],
    )


def bad_input(message: Message, field: str, code: str = "bad-request") -> InvalidInput:
    """The engine's error for a bad request field (code ``bad-request`` unless told)."""
    return InvalidInput(message, code=code, field=field)


def is_int(x: object) -> bool:
    """An int and not a bool."""
    return isinstance(x, int) and not isinstance(x, bool)


def deck_name(zeros: bool) -> Said:
    """How errors name the deck of option `zeros`."""
    return say(T.DECK_WITH_ZEROS if zeros else T.DECK)


def max_cards(players: int, options: NumKingOptions, deck_size: int) -> int:
    """The last round's hand size at `players` seats: option `max_cards` (1 … k_max) or
    k_max = floor(deck size / players) (rules "Deck"); checks the player count, and
    `max_cards` and `first_bidder` against it."""
    check_players(players, MIN_PLAYERS, MAX_PLAYERS, RULESET_ID)
    k_max = deck_size // players
    mc = options.max_cards
    if mc is not None and mc > k_max:
        raise bad_input(
            say(T.MAX_CARDS_FOR_TABLE, high=k_max, players=players, deck=deck_size, value=mc),
            "options.max_cards",
            "bad-option",
        )
    if options.first_bidder >= players:
        raise bad_input(
            say(
                T.FIRST_BIDDER_TABLE,
                seat=options.first_bidder,
                players=players,
                last=players - 1,
            ),
            "options.first_bidder",
            "bad-option",
        )
    return k_max if mc is None else mc


def check_setup(setup: RoundSetup, options: NumKingOptions, deck_size: int) -> int:
    """Check a round's setup (rules "Rounds", "Bids"); return its first bidder."""
    n = setup.players
    last = max_cards(n, options, deck_size)
    k = setup.round
    if type(k) is not int or not 1 <= k <= last:
        raise bad_input(say(T.ROUND_RANGE, last=last), "round")
    leader = options.first_bidder if setup.leader is None else setup.leader
    if type(leader) is not int or not 0 <= leader < n:
        raise bad_input(say(T.FIRST_BIDDER_SEAT, last=n - 1), "first_bidder")
    check_seat(setup.dealer, n, "dealer")
    if setup.carry is not None and (
        len(setup.carry) != n or not all(is_int(s) and 0 <= s <= MAX_STREAK for s in setup.carry)
    ):
        raise bad_input(say(T.CARRY, high=MAX_STREAK, players=n), "carry")
    return leader


def dealt_ranks(setup: RoundSetup, tables: DeckTables) -> list[int]:
    """The seeded deal of a checked `setup` as strength ranks: the deck shuffled in canonical
    order, as `NumKing.deal` does, but as ranks (a hand is then its sorted slice); only the
    n·k dealt cards are drawn, the last n·k (see `Rng.shuffle`)."""
    order = tables.srank[:]
    Rng(setup.seed).shuffle(order, last=setup.players * setup.round)
    return order


def scripted_ranks(
    tables: DeckTables, zeros: bool, players: int, k: int, hands: Sequence[Sequence[str]]
) -> list[int]:
    """The deal of exactly `hands` (k cards each; tests, puzzles) as strength ranks: the
    reserve, then the hands."""
    if len(hands) != players or any(len(h) != k for h in hands):
        raise bad_input(say(T.HANDS, players=players, k=k), "hands")
    check_cards(
        tables.counts,
        [(f"hands[{s}]", h) for s, h in enumerate(hands)],
        deck_name=deck_name(zeros),
    )
    free: dict[str, list[int]] = {}
    for i, c in enumerate(tables.cards):
        free.setdefault(c, []).append(i)
    order = [free[c].pop(0) for h in hands for c in h]
    return [tables.srank[i] for i in sorted(i for left in free.values() for i in left) + order]
