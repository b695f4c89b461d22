"""Num Wars round scoring (rules/numwars.md "Scoring a round"): value groups, captured pairs
and the role bonuses of the Bomb's fate.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import groupby

import msgspec

from engine.core.base import (
    PlayerScore,
    RoundScore,
    ScoreLine,
)
from engine.core.cards import ORDER, VALUE
from engine.core.scoring import VALUE_GROUP, best_seats, score_line, value_group_points
from engine.core.texts import kind
from engine.numwars.cards import BONUSES, CLASSIC, KIND, canon
from engine.numwars.texts import OUTCOME_WORDS, ROLE_WORDS
from engine.numwars.tricks import role_bonus


class NumWarsPile(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One player's round for score-round: cards won, pairs captured as pairs, role."""

    captured: list[str]
    pairs: list[list[str]] = []
    role: str


_CLASSIC_VALUE: dict[str, int] = {c: VALUE[c] for c, k in KIND.items() if k == CLASSIC}
#: Label and points of a group of `count` classic cards of value `v`: [count][v].
_CLASSIC_VALUE_KEY = _CLASSIC_VALUE.__getitem__
#: Sort key of a classic card: its value, then its canonical order (value groups).
_GROUP_ORDER_KEY = {c: v * 10_000 + ORDER[c] for c, v in _CLASSIC_VALUE.items()}.__getitem__
_GROUP_LINE: list[list[tuple[str, int]]] = [
    [
        (VALUE_GROUP.render(count=count, value=v), value_group_points(v, count) if count else 0)
        for v in range(17)
    ]
    for count in range(5)
]
#: The parameters of each value-group line, [count][v] (shared: never change them).
_GROUP_PARAMS: list[list[dict[str, int | str]]] = [
    [{"count": count, "value": v} for v in range(17)] for count in range(5)
]
#: A trump pair captured as a pair (rainbow-X with shadow-X): X points.
CAPTURED_PAIR = kind(
    "captured-pair",
    "pair rainbow-{value} + shadow-{value}",
    "paire Rainbow {value} + Shadow {value}",
)
#: The role bonus (or malus) of the Bomb's fate: the role and the fate in the game's words
#: (« bonus de rôle (Démineur, Bombe volée) »), their codes in `params`.
ROLE_BONUS = kind(
    "role-bonus",
    "role bonus ({role}, {outcome})",
    "bonus de rôle ({role}, {outcome})",
    words={"role": ROLE_WORDS, "outcome": OUTCOME_WORDS},
)


def value_lines(cards: Sequence[str]) -> list[ScoreLine]:
    """Classic cards grouped by value across colours, one line per value ascending
    (Scoring a round); the same lines as :func:`engine.core.scoring.value_groups`. One sort by
    (value, canonical order) leaves the groups consecutive, each in canonical order."""
    classic = [c for c in cards if c in _CLASSIC_VALUE]
    classic.sort(key=_GROUP_ORDER_KEY)
    lines = []
    for v, group in groupby(classic, _CLASSIC_VALUE_KEY):
        held = list(group)
        count = len(held)
        label, points = _GROUP_LINE[count][v]
        lines.append(
            ScoreLine(
                label=label,
                cards=held,
                points=points,
                kind=VALUE_GROUP.key,
                params=_GROUP_PARAMS[count][v],
            )
        )
    return lines


def score_pile(
    captured: Sequence[str],
    pairs: Sequence[Sequence[str]],
    role: str,
    outcome: str,
    seat: int = -1,
) -> PlayerScore:
    """A player's round (Scoring a round): value groups, captured pairs, role bonus."""
    lines = value_lines(captured)
    if pairs:
        for pair in sorted(pairs, key=lambda p: VALUE[p[0]]):
            cards = canon(list(pair))
            lines.append(score_line(CAPTURED_PAIR, cards, VALUE[cards[0]], value=VALUE[cards[0]]))
    lines.append(score_line(ROLE_BONUS, [], role_bonus(role, outcome), role=role, outcome=outcome))
    total = 0
    for line in lines:
        total += line.points
    return PlayerScore(seat=seat, score=total, breakdown=lines)


#: Points of a group of `count` classic cards of value `v`: [count][v].
_GROUP_POINTS: list[list[int]] = [[points for _, points in row] for row in _GROUP_LINE]
_CLASSIC_VALUE_GET = _CLASSIC_VALUE.get


def pile_points(
    captured: Sequence[str], pairs: Sequence[Sequence[str]], role: str, outcome: str
) -> int:
    """The total of :func:`score_pile` without its breakdown (the end of a played round;
    the breakdown is built when asked for). Tests compare both on every play-out."""
    points = _GROUP_POINTS
    total = 0
    for v, count in Counter(map(_CLASSIC_VALUE_GET, captured)).items():
        if v is not None:
            total += points[count][v]
    for pair in pairs:
        total += VALUE[pair[0]]
    return total + BONUSES[outcome].get(role, 0)


def score_piles(piles: Sequence[NumWarsPile], bomb_outcome: str) -> RoundScore:
    """Scoring a round for checked piles: each seat's score and the winners (ties share)."""
    players = [
        score_pile(p.captured, p.pairs, p.role, bomb_outcome, s) for s, p in enumerate(piles)
    ]
    return RoundScore(players=players, winners=best_seats([p.score for p in players]))
