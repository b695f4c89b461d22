"""`api.app:app` with its SQL statements counted (bench/instructions.py): SIGUSR1 writes the
counts since the last signal to `$NUMRULES_COUNT_FILE` (JSON: statement's first words →
count) and starts counting again.

What reaches PostgreSQL is counted twice over, never twice per statement: the statements
SQLAlchemy executes (its cursor events; keys as the statement begins) and those asyncpg runs
outside SQLAlchemy's cursors (its query loggers, keys `pg: …`: SQLAlchemy's own BEGIN and
COMMIT, which asyncpg sends as simple queries, and the raw hot paths of
`api.games.repository`). `<BEGIN>`, `<COMMIT>`, `<ROLLBACK>` are SQLAlchemy's transaction
events, counted apart (on PostgreSQL's autocommit reads they send nothing; a real BEGIN shows
as `pg: BEGIN`)."""

from __future__ import annotations

import collections
import functools
import json
import os
import signal
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.pool import Pool

from api.app import app
from api.db import sole
from api.games import service as games_service
from api.games.service import GameService

#: Under valgrind the process runs tens of times slower than the sole-reads lease's timings
#: allow (a look every 0.1 s, trusted for 0.2 s): it lapsed, its epoch moved on, and a varying
#: share of the seats' reads took a statement (docs/bench-history.md, session 40). This
#: server is its throw-away database's only client, so its looks are trusted for as long as
#: a look takes here, and the reads go as at full speed. (`WAIT`, a connection's wait while
#: another app holds the claim, never applies: there is none.)
sole.LEASE, sole.GAP = 30.0, 45.0

_sweep = GameService.sweep


async def _sweep_hourly(
    self: GameService,
    interval: float,
    batch: int = 20,
    engine: Any = None,
    clock_interval: float | None = None,
) -> None:
    """The clocks' sweep once an hour, as the bots' (`NUMRULES_BOT_SWEEP_SECONDS`): it runs by
    the clock (2 s at most by its setting), so under valgrind each of its passes, some 2 ms of
    a server at full speed, fell in the window by the run's length: 0.004 to 0.008 passes an
    action, 0.78 to 0.81 M instructions an action for the same code (session 40). The games'
    clocks give an hour a turn: none runs out in a run."""
    await _sweep(self, interval, batch, engine, None if clock_interval is None else 3600.0)


GameService.sweep = _sweep_hourly  # type: ignore[method-assign]
#: A clocked hot action estimates the database's clock from a read at most 10 s old, else
#: reads it, and until then the seats' reads of clocked games ask the database: by the run's
#: length again under valgrind (0.003 to 0.014 such reads an action, session 40). Nothing
#: else moves the database's clock here: the estimate is trusted for the run.
games_service.DB_CLOCK_FRESH = 3600.0

COUNTS: collections.Counter[str] = collections.Counter()


@functools.lru_cache(maxsize=1024)
def _key(statement: str) -> str:
    """The statement's first words (kept: splitting a long statement at every run cost
    instructions that the counted server does not spend)."""
    return " ".join(statement.split())[:70]


@event.listens_for(Engine, "before_cursor_execute")
def _statement(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
    COUNTS[_key(statement)] += 1


def _logged(record: Any) -> None:
    if isinstance(record.args, list):  # SQLAlchemy's executemany: its cursor event counted it
        return
    COUNTS["pg: " + _key(record.query)] += 1


@event.listens_for(Pool, "connect")
def _connected(dbapi_connection: Any, _record: Any) -> None:
    driver = getattr(dbapi_connection, "driver_connection", None)
    if driver is not None and hasattr(driver, "add_query_logger"):
        driver.add_query_logger(_logged)


def _transactions(name: str) -> None:
    key = f"<{name.upper()}>"
    event.listen(Engine, name, lambda _conn: COUNTS.update([key]))


for _name in ("begin", "commit", "rollback"):
    _transactions(_name)


def _dump(*_: Any) -> None:
    with open(os.environ["NUMRULES_COUNT_FILE"], "w") as f:
        json.dump(COUNTS, f)
    COUNTS.clear()


signal.signal(signal.SIGUSR1, _dump)

__all__ = ["app"]
