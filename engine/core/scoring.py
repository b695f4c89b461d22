"""Scoring pieces shared by several rulesets (value groups, winners, teams)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from engine.core.base import PlayerScore, RoundScore, ScoreLine, TeamScore
from engine.core.cards import CARDS, canonical
from engine.core.errors import InvalidInput
from engine.core.texts import Text, kind, say, text

#: Points of a group of classic cards of one value, by group size (numwars and
#: numwars-classic: 1 card = value, 2 = 0, 3 = value + 30, 4 = value + 50).
_GROUP_BONUS = {1: 0, 3: 30, 4: 50}


NO_ROUND = text(
    "match-no-round", "a match holds at least one round", "une partie compte au moins une manche"
)
SEATS_ONCE = text(
    "round-seats-once",
    "round {round} does not score seats 0..{last} exactly once",
    "la manche {round} ne compte pas les places 0..{last} exactement une fois",
)
#: numwars and numwars-classic: `count` classic cards of one `value` across colours.
VALUE_GROUP = kind("value-group", "{count} × value {value}", "{count} × valeur {value}")


def score_line(t: Text, cards: list[str], points: int, /, **params: int | str) -> ScoreLine:
    """A breakdown line of kind `t` (its key) with `params`, labelled in English (the API
    renders the label again in the caller's language)."""
    return ScoreLine(
        label=t.render(**params), cards=cards, points=points, kind=t.key, params=params
    )


def value_group_points(value: int, count: int) -> int:
    if count == 2:
        return 0
    return value + _GROUP_BONUS[count]


def value_groups(cards: Iterable[str]) -> list[ScoreLine]:
    """One line per value held among the classic cards, ascending by value."""
    groups: dict[int, list[str]] = defaultdict(list)
    for card in cards:
        c = CARDS[card]
        if c.is_classic:
            assert c.value is not None
            groups[c.value].append(card)
    lines = []
    for v in sorted(groups):
        held = groups[v]
        points = value_group_points(v, len(held))
        lines.append(score_line(VALUE_GROUP, canonical(held), points, count=len(held), value=v))
    return lines


def best_seats(scores: Sequence[int], *, lowest: bool = False) -> list[int]:
    """Seats holding the best score (highest, or lowest); ties share, ascending seats."""
    if not scores:
        return []
    best = min(scores) if lowest else max(scores)
    return [seat for seat, s in enumerate(scores) if s == best]


def opposite_teams(players: int) -> list[list[int]]:
    """Partners sit opposite: seat s with s + n/2."""
    half = players // 2
    return [[s, s + half] for s in range(half)]


def team_scores(players: Sequence[PlayerScore], teams: Sequence[Sequence[int]]) -> list[TeamScore]:
    by_seat = {p.seat: p.score for p in players}
    return [TeamScore(seats=list(t), score=sum(by_seat.get(s, 0) for s in t)) for t in teams]


def winning_team_seats(teams: Sequence[TeamScore], *, lowest: bool = False) -> list[int]:
    """Seats of every team holding the best total, ascending."""
    best = best_seats([t.score for t in teams], lowest=lowest)
    return sorted(s for i in best for s in teams[i].seats)


def match_totals(rounds: Sequence[RoundScore]) -> list[int]:
    """Each seat's total over a match's rounds (every ruleset: "totals add up").

    Every round must score seats ``0 … n-1`` exactly once, n being the first round's count.
    """
    if not rounds:
        raise InvalidInput(say(NO_ROUND), code="bad-request", field="rounds")
    n = len(rounds[0].players)
    seats = list(range(n))
    totals = [0] * n
    for r, rnd in enumerate(rounds):
        if sorted(p.seat for p in rnd.players) != seats:
            raise InvalidInput(
                say(SEATS_ONCE, round=r, last=n - 1),
                code="bad-request",
                field=f"rounds[{r}].players",
            )
        for p in rnd.players:
            totals[p.seat] += p.score
    return totals
