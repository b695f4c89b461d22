"""Whether this process is the only client of its database (issue 27: "the match kept hot in
the process"), so that a seat's read of a game in play may be answered from what the process
wrote last, without asking PostgreSQL.

A game's row changes only by a write. While no other client is connected to the database,
every write is this process's own, and it knows each one: the row an action of its own
wrote is the row a read would find (:meth:`api.games.service.GameService.get`). The moment
another client may write, every read asks the database again, as before.

The **lease**: a connection of the process's own (its `application_name` is the app's, as
every connection of its engines) looks every :data:`BEAT` seconds at `pg_stat_activity`
for any other client backend on the database (another worker, a replica, `psql`, a script).
When there is none, the process holds the lease until :data:`LEASE` seconds after that
look was *sent*; when there is one, or the connection is lost, at once not. Each time the
lease starts again after a gap (a look that saw another client, a late look) its **epoch**
moves on: what was learnt before the gap is never trusted again (the other client may have
written meanwhile).

Another numrules process that connects while a lease may be held waits :data:`WAIT` seconds
(more than the lease) before its first write (:meth:`SoleLease.start`): the holder saw it
within a beat and its lease ran out. The holder shows it may hold a lease by an advisory
lock (:data:`CLAIM`), which it lets go only once its lease is over. A client that is not
numrules and writes to `games` or `game_seats` within :data:`WAIT` seconds of connecting
should take the same care (deploy/README.md, "One process, its reads"): a read may
otherwise show the game as it was, for at most :data:`LEASE` seconds. `NUMRULES_SOLE_READS=0`
turns all of this off. A process whose database is away when it starts starts without
waiting (it cannot write either); its look connects in the background.
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

log = logging.getLogger("numrules.games")

#: Seconds between two looks at the database's other clients.
BEAT = 0.1
#: Seconds a look that found no other client is trusted for, from when it was sent.
LEASE = 0.2
#: Two looks that found no other client, the second received within this many seconds of
#: the first one's sending, keep the lease's epoch: nobody who waits :data:`WAIT` before
#: writing came and went between them.
GAP = 0.3
#: Seconds a numrules process waits before its first write when a lease may be held.
WAIT = 0.35
#: The advisory lock (two int4 keys) a process holds while it may hold a lease.
CLAIM = (0x6E756D72, 0x736F6C65)  # "numr", "sole"

_OTHERS = """
SELECT count(*) FROM pg_stat_activity
WHERE datname = current_database() AND backend_type = 'client backend'
  AND pid <> pg_backend_pid() AND application_name IS DISTINCT FROM $1
"""
_CLAIMED = """
SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = $1
               AND objid = $2 AND objsubid = 2 AND granted)
"""


def application_name() -> str:
    """A new app's `application_name`, which every connection of its engines carries."""
    return f"numrules {secrets.token_hex(6)}"


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
        """Connect (PostgreSQL only), wait :data:`WAIT` seconds if another process may hold
        a lease, then look in the background. Before the app's first write: from here on
        this process is one of the database's clients."""
        url = make_url(database_url)
        if url.get_backend_name() != "postgresql":
            return
        self._dsn = url.set(drivername="postgresql").render_as_string(hide_password=False)
        try:
            connection = await self._connect()
            if await connection.fetchval(_CLAIMED, *CLAIM):
                await asyncio.sleep(WAIT)
        except (TimeoutError, OSError, asyncpg.PostgresError) as exc:
            # the database is away (the app starts anyway: /readyz says so); no lease until
            # the look connects, in the background
            log.warning("the sole-reads connection failed (%s)", type(exc).__name__)
            self._connection = None
        self._task = asyncio.get_running_loop().create_task(self._beat())

    async def _connect(self) -> Any:
        assert self._dsn is not None
        connection = await asyncpg.connect(
            self._dsn, timeout=self.connect_timeout, server_settings={"application_name": self.name}
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
                with contextlib.suppress(Exception):
                    if self._connection is not None:
                        self._connection.terminate()
                self._connection = None
                await asyncio.sleep(delay)
                delay = min(delay * 2, 10.0)
                continue
            await asyncio.sleep(BEAT)

    async def _look(self, connection: Any) -> None:
        if not self._claimed:  # the claim first: a newcomer that sees none waits not
            self._claimed = bool(await connection.fetchval(_TRY, *CLAIM))
        sent = time.monotonic()
        alone = self._claimed and await connection.fetchval(_OTHERS, self.name) == 0
        received = time.monotonic()
        if not alone:
            self.until, self._last_sent = 0.0, None
            if self._claimed:  # no read trusts the lease any more: a newcomer need not wait
                await connection.fetchval(_UNLOCK, *CLAIM)
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
            with contextlib.suppress(BaseException):
                await self._task
        if self._connection is not None:
            with contextlib.suppress(Exception):
                await self._connection.close(timeout=5)
            self._connection = None


_TRY = "SELECT pg_try_advisory_lock($1, $2)"
_UNLOCK = "SELECT pg_advisory_unlock($1, $2)"
