"""Num Win round scoring (rules/numwin.md "Scoring"), exact and closed-form: pairs only form
between cards of one value, and the deck holds one `rainbow-X` and one `shadow-X` per value,
so each value is settled on its own except for one global choice (see :func:`_settle`).
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from engine.core.base import PlayerScore, RoundScore, ScoreLine
from engine.core.cards import CARDS, canonical
from engine.core.scoring import (
    best_seats,
    opposite_teams,
    score_line,
    team_scores,
    winning_team_seats,
)
from engine.core.texts import kind
from engine.numwin.cards import (
    ACTION,
    ACTION_POINTS,
    CALLER_PENALTY,
    CLASSIC,
    KIND,
    RAINBOW,
    SHADOW,
)


class NumWinHand(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One player's final combination for score-round; locked pairs listed apart."""

    combination: list[str]
    locked: list[list[str]] = []


class _Settled(msgspec.Struct, frozen=True):
    """One combination after the pair removal of rules "Scoring" 2."""

    removed: list[str]
    remaining: list[str]  # classic and shadow cards left
    rainbows: list[str]  # rainbow cards left
    actions: list[str]

    @property
    def points(self) -> int:
        base = sum(CARDS[c].value or 0 for c in self.remaining)
        rainbow = sum(CARDS[c].value or 0 for c in self.rainbows) if len(self.rainbows) >= 2 else 0
        return base + rainbow + ACTION_POINTS * len(self.actions)


def _settle(cards: Sequence[str]) -> _Settled:
    """The pairing that leaves the lowest score (rules "Scoring" 2 and its Ruling).

    Per value X with c classics, r rainbows and s shadows (r, s <= 1 in this deck):
    - no rainbow: classics pair two by two, a shadow stays;
    - rainbow and shadow: rainbow-shadow pair, classics two by two (never worse than
      rainbow-classic, which leaves the shadow);
    - rainbow, no shadow, odd c: rainbow-classic pair, the rest pairs off (nothing left);
    - rainbow alone: it stays;
    - rainbow, no shadow, even c >= 2 ("open" value): either rainbow-classic (one classic X
      left) or classics two by two (the rainbow left).
    Only the open values interact (the Rainbow rule counts the rainbows left). A left rainbow
    costs X when 2+ rainbows remain, so keeping open rainbows pays only when none is otherwise
    left: then the rainbow of the highest open value stays alone, scoring 0.
    """
    by_value: dict[int, list[str]] = {}
    actions: list[str] = []
    for code in cards:
        if KIND[code] == ACTION:
            actions.append(code)
        else:
            v = CARDS[code].value
            assert v is not None
            by_value.setdefault(v, []).append(code)
    removed: list[str] = []
    remaining: list[str] = []
    rainbows: list[str] = []
    open_values: list[tuple[int, str, list[str]]] = []
    for v, group in by_value.items():
        classics = [c for c in group if KIND[c] == CLASSIC]
        rainbow = next((c for c in group if KIND[c] == RAINBOW), None)
        shadow = next((c for c in group if KIND[c] == SHADOW), None)
        if rainbow is None:
            _pair_off(classics, removed, remaining)
            if shadow is not None:
                remaining.append(shadow)
        elif shadow is not None:
            removed += [rainbow, shadow]
            _pair_off(classics, removed, remaining)
        elif len(classics) % 2 == 1:
            removed += [rainbow, classics[0]]
            _pair_off(classics[1:], removed, remaining)
        elif not classics:
            rainbows.append(rainbow)
        else:
            open_values.append((v, rainbow, classics))
    keep = None
    if open_values and not rainbows and max(open_values)[0] > 0:
        keep = max(open_values)[0]
    for v, rainbow, classics in open_values:
        if v == keep:
            rainbows.append(rainbow)
            _pair_off(classics, removed, remaining)
        else:
            removed += [rainbow, classics[0]]
            _pair_off(classics[1:], removed, remaining)
    return _Settled(
        canonical(removed), canonical(remaining), canonical(rainbows), canonical(actions)
    )


def _pair_off(classics: Sequence[str], removed: list[str], remaining: list[str]) -> None:
    """Classics of one value pair two by two; an odd one stays."""
    even = len(classics) - len(classics) % 2
    removed += classics[:even]
    remaining += classics[even:]


LOCKED_PAIRS = kind("locked-pairs", "locked pairs", "paires bloquées")
PAIRS_REMOVED = kind("pairs-removed", "pairs removed", "paires retirées")
REMAINING_CARDS = kind("remaining-cards", "remaining cards", "cartes restantes")
LONE_RAINBOW = kind("lone-rainbow", "Rainbow alone scores 0", "Rainbow seul\u00a0: 0 point")
RAINBOWS = kind("rainbows", "Rainbows (two or more)", "Rainbows (deux ou plus)")
ACTION_CARDS = kind("action-cards", "action cards", "cartes Action")
CALLER_PENALTY_LINE = kind("caller-penalty", "caller penalty", "pénalité de l’annonceur")


def player_lines(hand: NumWinHand) -> tuple[int, list[ScoreLine]]:
    """One player's points and breakdown before any caller penalty (rules "Scoring" 1-3)."""
    lines: list[ScoreLine] = []
    locked = [c for pair in hand.locked for c in pair]
    if locked:
        lines.append(score_line(LOCKED_PAIRS, canonical(locked), 0))
    s = _settle(hand.combination)
    if s.removed:
        lines.append(score_line(PAIRS_REMOVED, s.removed, 0))
    if s.remaining:
        pts = sum(CARDS[c].value or 0 for c in s.remaining)
        lines.append(score_line(REMAINING_CARDS, s.remaining, pts))
    if len(s.rainbows) == 1:
        lines.append(score_line(LONE_RAINBOW, s.rainbows, 0))
    elif s.rainbows:
        pts = sum(CARDS[c].value or 0 for c in s.rainbows)
        lines.append(score_line(RAINBOWS, s.rainbows, pts))
    if s.actions:
        pts = ACTION_POINTS * len(s.actions)
        lines.append(score_line(ACTION_CARDS, s.actions, pts))
    return s.points, lines


def score_hands(hands: Sequence[NumWinHand], caller: int | None, *, teams: bool) -> RoundScore:
    """Score valid combinations of any size: each player's points and breakdown
    (:func:`player_lines`), the caller penalty (rules "Scoring" 4), the lowest score winning,
    by team with option `teams` (rules "Match and variant")."""
    raw: list[int] = []
    breakdowns: list[list[ScoreLine]] = []
    for hand in hands:
        points, lines = player_lines(hand)
        raw.append(points)
        breakdowns.append(lines)
    if caller is not None and any(s < raw[caller] for i, s in enumerate(raw) if i != caller):
        breakdowns[caller].append(score_line(CALLER_PENALTY_LINE, [], CALLER_PENALTY))
        raw[caller] += CALLER_PENALTY
    players = [
        PlayerScore(seat=i, score=raw[i], breakdown=breakdowns[i]) for i in range(len(hands))
    ]
    if teams:
        team_totals = team_scores(players, opposite_teams(len(hands)))
        return RoundScore(
            players=players,
            winners=winning_team_seats(team_totals, lowest=True),
            teams=team_totals,
        )
    return RoundScore(players=players, winners=best_seats(raw, lowest=True))
