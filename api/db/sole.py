"""Whether this process is the only client of its database (issue 27: "the match kept hot in
the process"), so that a seat's read of a game in play may be answered from what the process
wrote last, without asking PostgreSQL.

A game's row changes only by a write. While no other client is connected to the database,
every write is this process's own, and it knows each one: the row an action of its own
wrote is the row a read would find (:meth:`api.games.service.GameService.get`). The moment
another client may write, every read asks the database again, as before.

The **lease**: a connection of the process's own (its `application_name` is the app's, as
every connection of its engines) looks every :data:`BEAT` seconds at `pg_stat_activity`
for any other client backend on the database (another worker, a replica, `psql`, a script;
one of another role, whose row the app's role may not see whole, counts too). When there is
none, the process holds the lease until :data:`LEASE` seconds after that look was *sent*;
when there is one, or the connection is lost, at once not. Each time the lease starts again
after a gap (a look that saw another client, a late look) its **epoch** moves on: what was
learnt before the gap is never trusted again.

Writes by others wait for the lease to end, so that no read shows a game as it was before
them. The holder shows it may hold a lease by an advisory lock (:data:`CLAIM`), which it
lets go only once it no longer does:

* a numrules app waits :data:`WAIT` seconds (more than the lease) before using each new
  connection while another app holds the claim (:func:`wait_out_claim`, every connection of
  its engines, `NUMRULES_SOLE_READS` or not): by then the holder has seen the connection and
  its lease has run out;
* any other client's write to `games` or `game_seats` takes the claim in shared mode first
  (migration 0016's trigger, whatever `session_replication_role` is), so it waits until the
  holder, which sees it connected (or waiting for the claim), lets the claim go. A client
  that names itself `numrules …` is taken for numrules: it must wait as an app's connection
  does (`pg_restore --disable-triggers` into a served database is not covered either).

`NUMRULES_SOLE_READS=0` turns the lease off (the waits stay).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from typing import Any

import asyncpg
from sqlalchemy.engine import make_url

log = logging.getLogger("numrules.db")

#: Seconds between two looks at the database's other clients.
BEAT = 0.1
#: Seconds a look that found no other client is trusted for, from when it was sent.
LEASE = 0.2
#: Two looks that found no other client, the second received within this many seconds of
#: the first one's sending, keep the lease's epoch: nobody who waits :data:`WAIT` before
#: writing came and went between them.
GAP = 0.3
#: Seconds a numrules connection waits before its first use while another app may hold a lease.
WAIT = 0.35
#: The advisory lock (two int4 keys) a process holds while it may hold a lease.
CLAIM = (0x6E756D72, 0x736F6C65)  # "numr", "sole"
#: A look's own bound (s): a silent database ends the lease, not the process.
LOOK_TIMEOUT = 1.0

#: The other client backends on this database (a row of another role whose type the app's
#: role may not see, NULL, counts, unless it has no user: a background process), and any
#: backend that waits for the claim (a writer held by migration 0016's trigger, whatever it
#: is: a logical replication worker is no client backend).
_OTHERS = """
SELECT (SELECT count(*) FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND (backend_type = 'client backend'
               OR (backend_type IS NULL AND usesysid IS NOT NULL))
          AND application_name IS DISTINCT FROM $1)
     + (SELECT count(*) FROM pg_locks
        WHERE locktype = 'advisory' AND classid = {} AND objid = {} AND objsubid = 2
          AND NOT granted
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))
""".format(*CLAIM)
#: Whether another app (or a client whose name is hidden) holds the claim on this database.
CLAIMED_ELSEWHERE = """
SELECT EXISTS (
    SELECT 1 FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
    WHERE l.locktype = 'advisory' AND l.classid = {} AND l.objid = {} AND l.objsubid = 2
      AND l.granted AND l.mode = 'ExclusiveLock'
      AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
      AND a.application_name IS DISTINCT FROM $1)
""".format(*CLAIM)
_TRY = "SELECT pg_try_advisory_lock($1, $2)"
_UNLOCK = "SELECT pg_advisory_unlock($1, $2)"


def application_name() -> str:
    """A new app's `application_name`, which every connection of its engines carries (the
    prefix `numrules ` is what migration 0016's trigger lets through)."""
    return f"numrules {secrets.token_hex(6)}"


def wait_out_claim(name: str) -> Any:
    """The `connect` hook of an app's engine (`name`: its `application_name`): a new
    connection waits :data:`WAIT` seconds before its first use while another app holds the
    claim (`run_async`, as SQLAlchemy's asyncio documentation does in a `connect` hook: the
    wait is awaited, not slept)."""

    def connected(dbapi_connection: Any, _record: Any) -> None:
        if dbapi_connection.run_async(lambda driver: driver.fetchval(CLAIMED_ELSEWHERE, name)):
            dbapi_connection.run_async(lambda _driver: asyncio.sleep(WAIT))

    return connected


class SoleLease:
    """The lease of the module docstring, for the app whose connections carry `name`."""

    def __init__(self, name: str, connect_timeout: float = 5.0) -> None:
        self.name = name
        self.connect_timeout = connect_timeout
        #: Moves on each time the lease starts again (see the module docstring).
        self.epoch = 0
        #: time.monotonic() until which the lease holds (0.0: not held).
        self.until = 0.0
        self._connection: Any = None
        self._task: asyncio.Task[None] | None = None
        self._claimed = False
        self._last_sent: float | None = None
        self._dsn: str | None = None
        self._closing = False

    def current(self) -> int | None:
        """The lease's epoch while it holds, else None."""
        return self.epoch if time.monotonic() < self.until else None

    async def start(self, database_url: str) -> None:
        """Look in the background (PostgreSQL only): the first look connects."""
        url = make_url(database_url)
        if url.get_backend_name() != "postgresql":
            return
        self._dsn = url.set(drivername="postgresql").render_as_string(hide_password=False)
        self._task = asyncio.get_running_loop().create_task(self._beat())

    async def _connect(self) -> Any:
        assert self._dsn is not None
        connection = await asyncpg.connect(
            self._dsn,
            timeout=self.connect_timeout,
            server_settings={"application_name": self.name},
        )
        connection.add_termination_listener(self._lost)
        self._connection, self._claimed, self._last_sent = connection, False, None
        return connection

    def _lost(self, connection: object) -> None:
        if connection is self._connection:
            self.until, self._connection = 0.0, None

    async def _beat(self) -> None:
        delay = 0.5
        while not self._closing:
            try:
                if self._connection is None:
                    await self._connect()
                await self._look(self._connection)
                delay = 0.5
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the database is away: no lease until it is back
                self.until, self._last_sent = 0.0, None
                log.warning("the sole-reads look failed (%s)", type(exc).__name__)
                if self._connection is not None:
                    self._connection.terminate()
                    self._connection = None
                await asyncio.sleep(delay)
                delay = min(delay * 2, 10.0)
                continue
            await asyncio.sleep(BEAT)

    async def _look(self, connection: Any) -> None:
        if not self._claimed:  # the claim first: a newcomer that sees none waits not
            self._claimed = bool(await connection.fetchval(_TRY, *CLAIM, timeout=LOOK_TIMEOUT))
        sent = time.monotonic()
        alone = (
            self._claimed
            and await connection.fetchval(_OTHERS, self.name, timeout=LOOK_TIMEOUT) == 0
        )
        received = time.monotonic()
        if not alone:
            self.until, self._last_sent = 0.0, None
            if self._claimed:  # no read trusts the lease any more: the others need not wait
                await connection.fetchval(_UNLOCK, *CLAIM, timeout=LOOK_TIMEOUT)
                self._claimed = False
            return
        if self._last_sent is None or received - self._last_sent > GAP:
            self.epoch += 1
        self._last_sent = sent
        self.until = sent + LEASE

    async def close(self) -> None:
        self._closing, self.until = True, 0.0
        if self._task is not None:
            self._task.cancel()
            await asyncio.wait({self._task})
        if self._connection is not None:
            with contextlib.suppress(Exception):
                await self._connection.close(timeout=5)
            self._connection = None
