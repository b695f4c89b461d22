"""Num Wars classic deck and card facts (rules/numwars-classic.md "Deck and hands"): the
deck in canonical order, each card's kind, value and partner, and its bit in a held pile;
the table's checks, hand and exchange sizes, and the seeded deal.
"""

from __future__ import annotations

from collections import Counter

from engine.core.base import RoundSetup
from engine.core.cards import CARDS, COMPLEMENT, ORDER as CORE_ORDER, numbered_deck
from engine.core.errors import InvalidInput
from engine.core.rng import Rng
from engine.core.texts import say
from engine.core.tricks import check_players, check_seat
from engine.numwars_classic import texts as T

#: The whole deck, canonical order ("Deck and hands"): 68 colour cards, 34 trumps, 2 Jokers.
DECK: tuple[str, ...] = (
    *numbered_deck(("red", "blue", "green", "yellow", "rainbow", "shadow"), 0, 16),
    "joker",
    "joker",
)
DECK_COUNTS: Counter[str] = Counter(DECK)
DECK_NAME = say(T.DECK)

# Card kinds, precomputed once so that legality and the duel never parse a code.
RED, BLUE, GREEN, YELLOW, RAINBOW, SHADOW, JOKER = range(7)
#: What a trump lead asks ("Lead", Ruling: either family) — distinct from every colour.
TRUMP_ASKED = RAINBOW
_KIND_OF_FAMILY = {"red": RED, "blue": BLUE, "green": GREEN, "yellow": YELLOW}
_KIND_OF_FAMILY |= {"rainbow": RAINBOW, "shadow": SHADOW}
KIND: dict[str, int] = {c: _KIND_OF_FAMILY[CARDS[c].family] for c in DECK if c != "joker"}
KIND["joker"] = JOKER
VALUE: dict[str, int] = {c: CARDS[c].value or 0 for c in DECK if c != "joker"}
VALUE["joker"] = -1
#: `shadow-X` for `rainbow-X` and the reverse (the card that completes a pair).
PARTNER_CARD: dict[str, str] = COMPLEMENT
#: The card codes `rainbow-v` and `shadow-v`, by value.
RAINBOW_CARD: tuple[str, ...] = tuple(f"rainbow-{v}" for v in range(17))
SHADOW_CARD: tuple[str, ...] = tuple(f"shadow-{v}" for v in range(17))
ORDER: dict[str, int] = CORE_ORDER
#: Canonical sort key of this deck's cards, a C-level look-up (no Python call per card).
ORDER_KEY = ORDER.__getitem__


#: A held pile's bits from 102 up count its Jokers (see `_pile_bit`).
JOKER_SHIFT = 102


def _pile_bit(card: str) -> int:
    """A card's bit in a pile held as one integer, the sum of its cards' bits.

    Bit 4 v + colour for a classic card of value v (so each byte holds the colours of two
    values), bit 68 + v for `rainbow-v`, 85 + v for `shadow-v`; from bit 102 up, the number
    of Jokers.
    """
    k, v = KIND[card], VALUE[card]
    if k < RAINBOW:
        return 1 << 4 * v + k
    if k < JOKER:
        return 1 << 68 + 17 * (k - RAINBOW) + v
    return 1 << JOKER_SHIFT


#: Each card's bit in a held pile (see `_pile_bit`).
PILE_BIT: dict[str, int] = {c: _pile_bit(c) for c in KIND}
CLASSIC_BITS = (1 << 68) - 1
UNIQUE_BITS = (1 << JOKER_SHIFT) - 1
ALL_VALUES = (1 << 17) - 1


RULESET_ID = "numwars-classic"
MIN_PLAYERS = 3
MAX_PLAYERS = 8
ALLIANCE_PLAYERS = (4, 6, 8)


def check_alliance(players: int, *, alliance: bool) -> None:
    """`alliance` only with 4, 6 or 8 players, partners opposite ("Match and variants")."""
    if alliance and players not in ALLIANCE_PLAYERS:
        raise InvalidInput(
            say(T.ALLIANCE, players=players),
            code="bad-option",
            field="options.alliance",
        )


def check_table(players: int, *, alliance: bool) -> None:
    """Player count in 3–8; `alliance` only with 4, 6 or 8 ("Match and variants")."""
    check_players(players, MIN_PLAYERS, MAX_PLAYERS, RULESET_ID)
    check_alliance(players, alliance=alliance)


def check_setup(setup: RoundSetup, *, alliance: bool) -> None:
    """A round's table (:func:`check_table`) and dealer seat."""
    check_table(setup.players, alliance=alliance)
    check_seat(setup.dealer, setup.players, "dealer")


def hand_size(players: int, *, speed: bool) -> int:
    """15 cards for 3–5 players, 13 for 6–8; 10 with `speed` ("Deck and hands")."""
    if speed:
        return 10
    return 15 if players <= 5 else 13


def exchange_size(players: int, *, speed: bool) -> int:
    """5 cards for 3–5 players, 3 for 6–8; 2 with `speed` ("Deck and hands")."""
    if speed:
        return 2
    return 5 if players <= 5 else 3


def deal_hands(setup: RoundSetup, size: int) -> tuple[list[list[str]], list[int]]:
    """The hands of `size` cards of an already checked `setup`, each in canonical order, and
    the undealt rest as ranks in DECK (`undealt_cards` names them: only a view or a deal
    shows them).

    The last n x hand size cards of the shuffled deck are dealt (only they are drawn: see
    `Rng.shuffle`): the i-th of them goes to seat (dealer + 1 + i) mod n, so a seat's hand
    is every n-th card from its first one.
    """
    n = setup.players
    dealt = n * size
    ranks = list(range(len(DECK)))  # DECK is canonical: a hand of ranks sorts plainly
    Rng(setup.seed).shuffle(ranks, last=dealt)  # the dealt cards: the last `dealt` ranks
    undealt = len(DECK) - dealt
    first = setup.dealer + 1
    card = DECK.__getitem__
    hands = [list(map(card, sorted(ranks[undealt + (s - first) % n :: n]))) for s in range(n)]
    return hands, ranks[:undealt]
