"""Turn clocks of stored games (issue 26): who owes a move, when a turn starts, its deadline.

Pure functions over a match and a game's row, no storage: the service calls them where a
game's state changes (creation, an action, a bot move, a timeout) and writes what they return
in the same statement as the game's new row (`api.games.repository`). The rematch and the
open tables (another slice) reuse :func:`clock_of` (the one place that reads a game's clock
settings) and :func:`deadlines_after` / :func:`start_deadlines` (a game's deadlines from its
state).

**Who is clocked** (:func:`clocked_seats`): the seat whose turn it is (`current_player`), or,
in a simultaneous phase (no current player), every seat still to act; never a bot's seat (it
moves at once), never a seat whose only moves are optional reactions outside its turn
(numwin's snaps and calls out of turn). A game over or abandoned has no clocked seat.

**When a turn starts** (:func:`deadlines_after`): when the seat comes to owe a move. A seat
that already owed a move and still does after an action keeps its deadline, unless that
action began something new: another round or phase, a trick taken (the winner leads the next
one: a new turn, even for the seat that just played), a numwin `turn` event. So a seat's own
further steps of one turn (numwin's draw then discard, an exchange passed card by card) and the
other seats' moves in a simultaneous phase never restart its clock.

**Time** is the database's (`clock_timestamp()` on PostgreSQL, SQLite's own clock): one clock
for all replicas, read with the locked game row (:class:`api.games.repository.DbNow`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec

from api.db.engine import aware
from api.games.schemas import Clock, SeatDeadline
from engine.core.events import EventBase
from engine.core.match import Match

#: Event kinds after which a seat that still owes a move has begun a new turn.
TURN_BREAKS = frozenset({"trick", "turn", "round-start", "round-over", "match-over"})


def clock_of(game: Any) -> Clock | None:
    """A game row's clock settings (`games.clock`), None for an unclocked game."""
    raw = getattr(game, "clock", None)
    return None if raw is None else msgspec.convert(raw, Clock)


def clock_document(clock: Clock | None) -> dict[str, Any] | None:
    """The stored form of a clock (`games.clock`)."""
    return None if clock is None else msgspec.to_builtins(clock)


def clocked_seats(match: Match, bots: Sequence[str | None]) -> list[int]:
    """The seats that owe a move now and whose clock runs (see the module docstring)."""
    if match.result() is not None:
        return []
    current = match.current_player
    seats = [current] if current is not None else match.actors()
    return [s for s in seats if bots[s] is None and match.legal_actions(s)]


def _entry(seat: int, at: datetime, since: int) -> dict[str, Any]:
    return {"seat": seat, "at": at.isoformat(), "since": since}


def start_deadlines(
    match: Match, bots: Sequence[str | None], clock: Clock | None, now: datetime, version: int
) -> list[dict[str, Any]] | None:
    """The stored deadlines (`games.deadlines`) of a game whose every clocked seat's turn
    starts `now` (at creation; a rematch's start): None without a clock."""
    if clock is None:
        return None
    at = now + timedelta(seconds=clock.turn_seconds)
    return [_entry(s, at, version) for s in clocked_seats(match, bots)]


def deadlines_after(
    previous: Sequence[dict[str, Any]] | None,
    match: Match,
    bots: Sequence[str | None],
    clock: Clock | None,
    events: Sequence[EventBase],
    before: tuple[int, str],
    now: datetime,
    version: int,
) -> list[dict[str, Any]] | None:
    """The stored deadlines after an action that made `events` and took the match from
    `before` (its round index and phase) to `version`: a seat still owing a move in the same
    turn keeps its deadline, a seat whose turn starts gets `now` + the clock's seconds."""
    if clock is None:
        return None
    kept = {int(d["seat"]): d for d in previous or ()}
    same_turn = (match.index, match.phase) == before and not any(
        e.kind in TURN_BREAKS for e in events
    )
    at = now + timedelta(seconds=clock.turn_seconds)
    out = []
    for seat in clocked_seats(match, bots):
        old = kept.get(seat)
        out.append(old if same_turn and old is not None else _entry(seat, at, version))
    return out


def parsed(deadlines: Sequence[dict[str, Any]] | None) -> list[SeatDeadline]:
    """The public deadlines of the stored ones, in seat order."""
    found = [
        SeatDeadline(seat=int(d["seat"]), at=datetime.fromisoformat(d["at"]))
        for d in deadlines or ()
    ]
    return sorted(found, key=lambda d: d.seat)


def earliest(deadlines: Sequence[dict[str, Any]] | None) -> datetime | None:
    """The earliest deadline (`games.deadline`, the sweep's key), None for none."""
    found = parsed(deadlines)
    return min((d.at for d in found), default=None)


def due(deadlines: Sequence[dict[str, Any]] | None, now: datetime) -> list[int]:
    """The seats whose deadline has passed at `now`, the earliest first."""
    found = sorted(parsed(deadlines), key=lambda d: (d.at, d.seat))
    return [d.seat for d in found if d.at <= now]


def is_due(game: Any) -> bool:
    """Whether a game row (read with `db_now`) has a deadline that has passed."""
    deadline = getattr(game, "deadline", None)
    if deadline is None or game.status != "active":
        return False
    now = getattr(game, "db_now", None)
    return now is not None and aware(deadline) <= from_epoch(now)


def from_epoch(seconds: float) -> datetime:
    """The database's clock (seconds since the epoch, `DbNow`) as an aware UTC datetime."""
    return datetime.fromtimestamp(float(seconds), tz=UTC)


__all__ = [
    "TURN_BREAKS",
    "clock_document",
    "clock_of",
    "clocked_seats",
    "deadlines_after",
    "due",
    "earliest",
    "from_epoch",
    "is_due",
    "parsed",
    "start_deadlines",
]
