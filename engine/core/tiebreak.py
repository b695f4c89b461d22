"""The tie-break Ruling of a tied match total (rules/numwars-classic.md "Match and variants").

Shared by two games: numwars-classic breaks a tied total this way when its option `tiebreak`
is on (the default), and numwars does "as numwars-classic does" when its own `tiebreak` is on
(rules/numwars.md "Match", Ruling). It lives in core because a game never imports another
game (pyproject.toml's import-linter contracts). The match (:mod:`engine.core.match`) deals
the tie-break rounds (the next dealer in rotation) and keeps their scores out of the totals;
this module only says, after the tie-break rounds played so far, who is still in contention
and whether another round is due.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from engine.core.base import RoundScore
from engine.core.errors import InvalidInput
from engine.core.texts import say, text

NO_TIED_SEATS = text(
    "tiebreak-no-seats",
    "a tie-break needs the tied seats",
    "un départage a besoin des places à égalité",
)
TIEBREAK_MISSING = text(
    "tiebreak-missing-score",
    "tie-break round {round} has no score for seat {seat}",
    "la manche de départage {round} n’a pas de score pour la place {seat}",
)

__all__ = ["MAX_TIEBREAK_ROUNDS", "TiebreakOutcome", "decide_tiebreak"]

#: At most this many tie-break rounds; a tie after them is shared (the Ruling).
MAX_TIEBREAK_ROUNDS = 3


class TiebreakOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """Where the tie-break of a tied match stands after the tie-break rounds played so far.

    `winners`: the seats still in contention (the match winners once `decided`);
    `another_round`: one more tie-break round is due; `shared`: three rounds left a tie.
    """

    winners: list[int]
    decided: bool
    another_round: bool
    shared: bool
    rounds_used: int


def decide_tiebreak(
    tied: Sequence[int],
    rounds: Sequence[RoundScore],
    *,
    alliance: bool = False,
) -> TiebreakOutcome:
    """Settle a tied match total by tie-break rounds ("Match and variants", Ruling).

    `tied`: the seats sharing the best total (under `alliance`, the seats of the tied teams);
    `rounds`: the tie-break rounds played so far, in order (all players play each one, the
    next dealer in rotation deals; their scores are not added to the match totals). Each round
    keeps, among those still tied, the highest round score (team totals under `alliance`);
    while more than one player (team) remains another round is due, at most 3, after which the
    win is shared. Rounds beyond the third are ignored.
    """
    if not tied:
        raise InvalidInput(say(NO_TIED_SEATS), code="bad-request", field="tied")
    alive = sorted(set(tied))
    used = 0
    for score in rounds[:MAX_TIEBREAK_ROUNDS]:
        if _entrants(alive, alliance) <= 1:
            break
        used += 1
        by_seat = {p.seat: p.score for p in score.players}
        missing = [s for s in alive if s not in by_seat]
        if missing:
            raise InvalidInput(
                say(TIEBREAK_MISSING, round=used, seat=missing[0]),
                code="bad-request",
                field=f"rounds[{used - 1}].players",
            )
        if alliance:
            half = len(score.players) // 2
            key = {s: by_seat[s % half] + by_seat[s % half + half] for s in alive}
        else:
            key = by_seat
        best = max(key[s] for s in alive)
        alive = [s for s in alive if key[s] == best]
    decided = _entrants(alive, alliance) <= 1
    shared = not decided and used >= MAX_TIEBREAK_ROUNDS
    return TiebreakOutcome(
        winners=alive,
        decided=decided or shared,
        another_round=not decided and not shared,
        shared=shared,
        rounds_used=used,
    )


def _entrants(seats: Sequence[int], alliance: bool) -> int:
    """How many players (teams, under `alliance`: partners count once) are still in contention."""
    return (len(seats) + 1) // 2 if alliance else len(seats)
