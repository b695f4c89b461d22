"""Num Wars classic round and match scoring (rules/numwars-classic.md "Scoring a round",
"Match"): a captured pile held as one integer (the sum of its cards' bits, see
:mod:`engine.numwars_classic.cards`), read from tables built once. (The match tie-break Ruling, shared with numwars, is
:mod:`engine.core.tiebreak`.)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import product

import msgspec

from engine.core.base import (
    PlayerScore,
    RoundScore,
    ScoreLine,
)
from engine.core.cards import COLOURS, check_cards
from engine.core.scoring import (
    VALUE_GROUP,
    best_seats,
    opposite_teams,
    score_line,
    team_scores,
    value_group_points,
    winning_team_seats,
)
from engine.core.texts import kind
from engine.numwars_classic.cards import (
    ALL_VALUES,
    CLASSIC_BITS,
    DECK_COUNTS,
    DECK_NAME,
    JOKER_SHIFT,
    PILE_BIT,
    RAINBOW_CARD,
    SHADOW_CARD,
    UNIQUE_BITS,
)


class ClassicPile(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One player's captured cards for score-round."""

    captured: list[str]


def _value_group(v: int, colours: int) -> ScoreLine:
    """The line of the classic cards of value v whose colours are the bits of `colours`.

    Scored as `numwars`: 1 card = value, 2 = 0, 3 = value + 30, 4 = value + 50.
    """
    cards = [f"{family}-{v}" for c, family in enumerate(COLOURS) if colours >> c & 1]
    count = len(cards)
    return score_line(VALUE_GROUP, cards, value_group_points(v, count), count=count, value=v)


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
#: A pile holding rainbow-X and shadow-X: X points, however they got there.
TRUMP_PAIR = kind("trump-pair", "trump pair {value}", "paire d’atouts {value}")
#: Trumps without their partner: 0 points.
LONE_TRUMPS = kind("lone-trumps", "lone trumps", "atouts seuls")
#: Jokers: 0 points.
JOKERS = kind("jokers", "jokers", "Jokers capturés")
_PAIR_LINE = [
    score_line(TRUMP_PAIR, [RAINBOW_CARD[v], SHADOW_CARD[v]], v, value=v) for v in range(17)
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
    return score_line(LONE_TRUMPS, cards, 0)


#: The lone-trump line of every set of one or two lone trumps, the usual case (shared too).
_LONE_LINES = {
    1 << a | 1 << b: _lone_line(1 << a | 1 << b) for a in range(34) for b in range(a, 34)
}
_JOKER_LINES = [score_line(JOKERS, ["joker"] * n, 0) for n in range(3)]


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
    classic = (held & CLASSIC_BITS).to_bytes(9, "little")
    for i in _SET_BYTES[classic.translate(_ZERO_OR_ONE)]:
        group_lines, points = _BYTE_GROUPS[i][classic[i]]
        lines += group_lines
        total += points
    trumps = held >> 68
    if not trumps:
        return total, lines
    pairs = trumps & trumps >> 17 & ALL_VALUES
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


#: `score_held`'s points without its lines: per classic byte and byte value, and per pair bits.
_BYTE_POINTS: list[list[int]] = [[points for _, points in row] for row in _BYTE_GROUPS]
_PAIR_POINTS_LOW = [points for _, points in _PAIRS_LOW]
_PAIR_POINTS_HIGH = [points for _, points in _PAIRS_HIGH]


def held_points(held: int) -> int:
    """The points of `score_held(held)` without building its breakdown (a played round's end:
    the round-over event carries the totals, the breakdown is built when asked for). Tests
    compare both on every play-out."""
    total = 0
    classic = (held & CLASSIC_BITS).to_bytes(9, "little")
    for i in _SET_BYTES[classic.translate(_ZERO_OR_ONE)]:
        total += _BYTE_POINTS[i][classic[i]]
    trumps = held >> 68
    pairs = trumps & trumps >> 17 & ALL_VALUES
    return total + _PAIR_POINTS_LOW[pairs & 511] + _PAIR_POINTS_HIGH[pairs >> 9]


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
    return jokers <= 2 and (total & UNIQUE_BITS).bit_count() + jokers == count


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
