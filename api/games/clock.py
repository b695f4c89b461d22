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
from operator import attrgetter
from typing import Any

import msgspec

from api.db.engine import aware
from api.games.schemas import Clock, SeatDeadline
from engine.core.events import EventBase
from engine.core.match import Match

#: Event kinds after which a seat that still owes a move has begun a new turn.
TURN_BREAKS = frozenset({"trick", "turn", "round-start", "round-over", "match-over"})


def clock_of(game: Any) -> Clock | None:
    """A game row's clock settings (`games.clock`; a hot game's cached row holds them
    converted already), None for an unclocked game."""
    raw = getattr(game, "clock", None)
    if raw is None or type(raw) is Clock:
        return raw
    return msgspec.convert(raw, Clock)


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


def _entry(seat: int, at: str, since: int) -> dict[str, Any]:
    return {"seat": seat, "at": at, "since": since}


_ENCODE = msgspec.json.Encoder().encode


def _text(moment: datetime) -> str:
    """A deadline's stored text: RFC 3339 in UTC, `…Z` (msgspec's, a tenth of
    `datetime.isoformat`'s cost, whose `+00:00` the rows written before carry: both read
    back with `datetime.fromisoformat`)."""
    return _ENCODE(moment)[1:-1].decode()


def start_deadlines(
    match: Match, bots: Sequence[str | None], clock: Clock | None, now: datetime, version: int
) -> list[dict[str, Any]] | None:
    """The stored deadlines (`games.deadlines`) of a game whose every clocked seat's turn
    starts `now` (at creation; a rematch's start): None without a clock."""
    if clock is None:
        return None
    at = _text(now + timedelta(seconds=clock.turn_seconds))
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
    moment = now.timestamp()
    return deadlines_moved(previous, match, bots, clock, events, before, moment, version)[0]


def deadlines_moved(
    previous: Sequence[dict[str, Any]] | None,
    match: Match,
    bots: Sequence[str | None],
    clock: Clock,
    events: Sequence[EventBase],
    before: tuple[int, str],
    now: float,
    version: int,
    shown_before: Sequence[SeatDeadline] | None = None,
) -> tuple[list[dict[str, Any]], list[SeatDeadline], datetime | None, float | None]:
    """:func:`deadlines_after`, the same deadlines as answers show them (:func:`parsed`),
    the earliest of them (`games.deadline`) and that in seconds since the epoch, made
    together, `now` in seconds since the epoch (the database's clock as `DbNow` reads it).
    Run by every action on a clocked game, so kept short: a seat's turn that starts now (it
    held no deadline before) made and returned at once, one seat's turn without a loop, a
    new turn's deadline made once (its text too), a kept one taken from `shown_before` (the
    deadlines as the previous action showed them, when this process made them) or else
    parsed. (`now` plus whole seconds is exact in a float until 2038, so the deadline is
    `now`'s datetime plus the clock's seconds to the microsecond.)"""
    current = None if match.is_over else match.current_player
    if current is not None:  # one seat's turn
        if bots[current] is not None or not match.legal_actions(current):
            return [], [], None, None
        if not previous or entry_of(previous, current) is None:  # its turn starts now
            # (the common case, made at once: what the loop below makes of it)
            starts = datetime.fromtimestamp(now + clock.turn_seconds, UTC)
            return (
                [_entry(current, _text(starts), version)],
                [SeatDeadline(seat=current, at=starts)],
                starts,
                starts.timestamp(),
            )
        seats: Sequence[int] = (current,)
    else:
        seats = clocked_seats(match, bots)
        if not seats:
            return [], [], None, None
    # the entries a seat may keep: none once a new turn began
    entries: Sequence[dict[str, Any]] = ()
    if previous and (match.index, match.phase) == before:
        entries = previous
        for e in events:
            if e.kind in TURN_BREAKS:
                entries = ()
                break
    when: datetime | None = None
    at = ""
    stored = []
    shown = []
    for seat in seats:
        if len(entries) == 1:  # one seat's turn (kept, or the turn passed to another)
            old = entries[0] if int(entries[0]["seat"]) == seat else None
        else:
            old = entry_of(entries, seat)
        if old is not None:
            stored.append(old)
            kept = own_deadline(shown_before, seat)
            shown.append(
                SeatDeadline(
                    seat=seat, at=datetime.fromisoformat(old["at"]) if kept is None else kept
                )
            )
            continue
        if when is None:
            when = datetime.fromtimestamp(now + clock.turn_seconds, UTC)
            at = _text(when)
        stored.append(_entry(seat, at, version))
        shown.append(SeatDeadline(seat=seat, at=when))
    if len(shown) == 1:
        earliest = shown[0].at
    else:
        shown.sort(key=_BY_SEAT)
        earliest = min(d.at for d in shown)
    return stored, shown, earliest, epoch_of(earliest)


def own_deadline(shown: Sequence[SeatDeadline] | None, seat: int | None) -> datetime | None:
    """The `seat`'s deadline among those shown (:func:`parsed`), None if its clock does not
    run."""
    for d in shown or ():
        if d.seat == seat:
            return d.at
    return None


def entry_of(deadlines: Sequence[dict[str, Any]] | None, seat: int) -> dict[str, Any] | None:
    """The seat's stored deadline, None if its clock does not run."""
    for d in deadlines or ():
        if int(d["seat"]) == seat:
            return d
    return None


_BY_SEAT = attrgetter("seat")
_BY_TIME = attrgetter("at", "seat")


def parsed(deadlines: Sequence[dict[str, Any]] | None) -> list[SeatDeadline]:
    """The public deadlines of the stored ones, in seat order."""
    if not deadlines:
        return []
    found = [
        SeatDeadline(seat=int(d["seat"]), at=datetime.fromisoformat(d["at"])) for d in deadlines
    ]
    if len(found) > 1:
        found.sort(key=_BY_SEAT)
    return found


def earliest(deadlines: Sequence[dict[str, Any]] | None) -> datetime | None:
    """The earliest deadline (`games.deadline`; the sweep's bound `sweep_at` starts there),
    None for none."""
    return earliest_of(parsed(deadlines))


def earliest_of(shown: Sequence[SeatDeadline]) -> datetime | None:
    """The earliest of deadlines already parsed (:func:`parsed`), None for none."""
    if not shown:
        return None
    return shown[0].at if len(shown) == 1 else min(d.at for d in shown)


def due(deadlines: Sequence[dict[str, Any]] | None, now: datetime) -> list[int]:
    """The seats whose deadline has passed at `now`, the earliest first."""
    found = sorted(parsed(deadlines), key=_BY_TIME)
    return [d.seat for d in found if d.at <= now]


def is_due(game: Any) -> bool:
    """Whether a game row (read with `db_now`) has a deadline that has passed (compared in
    seconds since the epoch, as the database's clock is read)."""
    deadline = getattr(game, "deadline", None)
    if deadline is None or game.status != "active":
        return False
    now = getattr(game, "db_now", None)
    if deadline.tzinfo is None:  # SQLite's (`aware`)
        deadline = aware(deadline)
    return now is not None and deadline.timestamp() <= now


def epoch_of(moment: datetime) -> float:
    """A deadline in seconds since the epoch (a naive one, SQLite's, is UTC: `aware`)."""
    return (moment if moment.tzinfo is not None else aware(moment)).timestamp()


def from_epoch(seconds: float) -> datetime:
    """The database's clock (seconds since the epoch, `DbNow`) as an aware UTC datetime."""
    return datetime.fromtimestamp(float(seconds), tz=UTC)


__all__ = [
    "TURN_BREAKS",
    "clock_document",
    "clock_of",
    "clocked_seats",
    "deadlines_after",
    "deadlines_moved",
    "due",
    "earliest",
    "earliest_of",
    "entry_of",
    "epoch_of",
    "from_epoch",
    "is_due",
    "own_deadline",
    "parsed",
    "start_deadlines",
]
