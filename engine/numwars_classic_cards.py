"""`numwars-classic`'s cards as tables, and captured piles as integers (the round's scorer).

Split from :mod:`engine.numwars_classic`, which re-exports every public name, so that mypyc
compiles it (setup.py) without the rules module's input checks: this module only sees cards
already checked, or sends them to `check_cards` (pure Python) to be named.

A pile is held as one integer, the sum of its cards' bits (`_pile_bit`); `score_held` reads
its breakdown from tables built here once, and `held_piles` checks a whole score-round request
in one pass over its cards.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import product

from engine.base import PlayerScore, RoundScore, ScoreLine
from engine.cards import CARDS, COLOURS, check_cards, numbered_deck
from engine.scoring import (
    best_seats,
    opposite_teams,
    team_scores,
    value_group_points,
    winning_team_seats,
)

#: The whole deck, canonical order ("Deck and hands"): 68 colour cards, 34 trumps, 2 Jokers.
DECK: tuple[str, ...] = (
    *numbered_deck(("red", "blue", "green", "yellow", "rainbow", "shadow"), 0, 16),
    "joker",
    "joker",
)
DECK_COUNTS: Counter[str] = Counter(DECK)
DECK_NAME = "the numwars-classic deck"

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
PARTNER_CARD: dict[str, str] = {f"rainbow-{v}": f"shadow-{v}" for v in range(17)}
PARTNER_CARD |= {f"shadow-{v}": f"rainbow-{v}" for v in range(17)}
#: The card codes `rainbow-v` and `shadow-v`, by value.
RAINBOW_CARD: tuple[str, ...] = tuple(f"rainbow-{v}" for v in range(17))
SHADOW_CARD: tuple[str, ...] = tuple(f"shadow-{v}" for v in range(17))
ORDER: dict[str, int] = {c: CARDS[c].order for c in DECK}
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
_CLASSIC_BITS = (1 << 68) - 1
_UNIQUE_BITS = (1 << JOKER_SHIFT) - 1
_ALL_VALUES = (1 << 17) - 1


def _value_group(v: int, colours: int) -> ScoreLine:
    """The line of the classic cards of value v whose colours are the bits of `colours`.

    Scored as `numwars`: 1 card = value, 2 = 0, 3 = value + 30, 4 = value + 50.
    """
    cards = [f"{family}-{v}" for c, family in enumerate(COLOURS) if colours >> c & 1]
    return ScoreLine(
        label=f"{len(cards)} × value {v}",
        cards=cards,
        points=value_group_points(v, len(cards)),
    )


def _byte_lines(i: int, byte: int) -> tuple[ScoreLine, ...]:
    """The value-group lines of byte i of a pile's classic bits: value 2 i in its low four
    bits, value 2 i + 1 in its high four."""
    groups = ((2 * i, byte & 15), (2 * i + 1, byte >> 4))
    return tuple(_value_group(v, colours) for v, colours in groups if colours and v < 17)


#: Per byte of a held pile's classic bits (9 bytes), the lines and their points for every byte
#: value, and the other fixed lines. Shared values, like the round's events: never mutate a
#: breakdown's card lists.
_BYTE_GROUPS: list[list[tuple[tuple[ScoreLine, ...], int]]] = [
    [(lines, sum(line.points for line in lines)) for lines in row]
    for row in ([_byte_lines(i, byte) for byte in range(256)] for i in range(9))
]
#: Which of the 9 classic bytes are set, by those bytes mapped to 0 / 1 (`_ZERO_OR_ONE`): a
#: pile holds few values, and a Python loop over the bytes would cost more than the lines.
_ZERO_OR_ONE = bytes((0, *[1] * 255))
_SET_BYTES: dict[bytes, tuple[int, ...]] = {
    bytes(flags): tuple(i for i, flag in enumerate(flags) if flag)
    for flags in product((0, 1), repeat=9)
}
_PAIR_LINE = [
    ScoreLine(label=f"trump pair {v}", cards=[RAINBOW_CARD[v], SHADOW_CARD[v]], points=v)
    for v in range(17)
]


def _pair_group(values: int) -> tuple[tuple[ScoreLine, ...], int]:
    """The pair lines (ascending values) and their points for the trump values in `values`."""
    lines = tuple(line for v, line in enumerate(_PAIR_LINE) if values >> v & 1)
    return lines, sum(line.points for line in lines)


#: The pairs of a pile by the low 9 and the high 8 bits of its 17 pair values.
_PAIRS_LOW = [_pair_group(bits) for bits in range(512)]
_PAIRS_HIGH = [_pair_group(bits << 9) for bits in range(256)]
#: The trump of each bit of a pile's 34 trump bits (`held >> 68`): Rainbows, then Shadows.
_TRUMP_OF_BIT = {1 << b: card for b, card in enumerate(RAINBOW_CARD + SHADOW_CARD)}
_TRUMP_BITS = (1 << 34) - 1


def _lone_line(lone: int) -> ScoreLine:
    """The 0-point line of the trumps whose bits of `held >> 68` are set in `lone`."""
    cards = []
    while lone:
        bit = lone & -lone
        cards.append(_TRUMP_OF_BIT[bit])
        lone ^= bit
    return ScoreLine(label="lone trumps", cards=cards, points=0)


#: The lone-trump line of every set of one or two lone trumps, the usual case (shared too).
_LONE_LINES = {
    1 << a | 1 << b: _lone_line(1 << a | 1 << b) for a in range(34) for b in range(a, 34)
}
_JOKER_LINES = [ScoreLine(label="jokers", cards=["joker"] * n, points=0) for n in range(3)]


def score_pile(cards: Iterable[str]) -> tuple[int, list[ScoreLine]]:
    """Points of one captured pile ("Scoring a round") and its line-by-line breakdown."""
    return score_held(sum(map(PILE_BIT.__getitem__, cards)))


def score_held(held: int) -> tuple[int, list[ScoreLine]]:
    """`score_pile` of a pile summed into one integer (see `_pile_bit`).

    Classic cards by value group; a pile holding both `rainbow-X` and `shadow-X` scores X
    however they got there; lone trumps and Jokers score 0. The classic bytes index the
    value-group lines, the values held in both trump families are the pairs.
    """
    lines: list[ScoreLine] = []
    total = 0
    classic = (held & _CLASSIC_BITS).to_bytes(9, "little")
    for i in _SET_BYTES[classic.translate(_ZERO_OR_ONE)]:
        group_lines, points = _BYTE_GROUPS[i][classic[i]]
        lines += group_lines
        total += points
    trumps = held >> 68
    if not trumps:
        return total, lines
    pairs = trumps & trumps >> 17 & _ALL_VALUES
    if pairs:
        low_lines, low_points = _PAIRS_LOW[pairs & 511]
        high_lines, high_points = _PAIRS_HIGH[pairs >> 9]
        lines += low_lines
        lines += high_lines
        total += low_points + high_points
    lone = trumps & _TRUMP_BITS ^ (pairs | pairs << 17)
    if lone:
        line = _LONE_LINES.get(lone)
        lines.append(_lone_line(lone) if line is None else line)
    jokers = held >> JOKER_SHIFT
    if jokers:
        lines.append(_JOKER_LINES[jokers])
    return total, lines


def score_helds(helds: Sequence[int], *, alliance: bool) -> RoundScore:
    """A round's scores from its valid piles, each summed into one integer (`score_held`);
    team scores and winners with `alliance` ("Scoring a round", "Match and variants")."""
    players = []
    scores = []
    for seat, held in enumerate(helds):
        points, lines = score_held(held)
        players.append(PlayerScore(seat=seat, score=points, breakdown=lines))
        scores.append(points)
    if alliance:
        teams = team_scores(players, opposite_teams(len(helds)))
        return RoundScore(players=players, winners=winning_team_seats(teams), teams=teams)
    best = max(scores, default=0)
    if scores.count(best) == 1:  # the usual single winner, without best_seats' scan
        return RoundScore(players=players, winners=[scores.index(best)])
    return RoundScore(players=players, winners=best_seats(scores))


def sums_are_valid(total: int, count: int) -> bool:
    """Whether `count` cards of this deck whose bits (`_pile_bit`) sum to `total` are no more
    copies than the deck holds: a unique card held twice carries into a higher bit, so the set
    unique bits plus the Jokers (at most two) then count fewer than the cards."""
    jokers = total >> JOKER_SHIFT
    return jokers <= 2 and (total & _UNIQUE_BITS).bit_count() + jokers == count


def held_piles(captured: Sequence[Sequence[str]]) -> list[int]:
    """Score-round's piles (the `captured` lists), each summed into one integer, once every
    card is known valid.

    Valid means what `check_cards` checks: every card of this deck, no card more often across
    the piles than the deck holds. A card of this deck adds its bit (`_pile_bit`), so a unique
    card held twice carries into a higher bit: the set unique bits plus the Jokers then count
    fewer than the cards. Anything else goes to `check_cards`, which names the first bad card.
    One pass over the piles: this is most of a score-round request's cost.
    """
    helds: list[int] = []
    count = 0
    try:
        for cards in captured:
            held = 0
            for card in cards:
                held += PILE_BIT[card]
            helds.append(held)
            count += len(cards)
    except (KeyError, TypeError):  # not a card code, not of this deck, or not hashable
        pass
    else:
        if sums_are_valid(sum(helds), count):
            return helds
    fields = [(f"players[{i}].captured", cards) for i, cards in enumerate(captured)]
    check_cards(DECK_COUNTS, fields, deck_name=DECK_NAME)
    raise AssertionError("check_cards accepts only piles that the sums accept")
