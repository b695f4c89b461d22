"""Wake the event streams of a game when it moves, in this process and in every replica.

Each open stream waits on an `asyncio.Event` of its game. An action wakes the streams of its
own process at once (:meth:`Fanout.publish`); on PostgreSQL it also sends
``NOTIFY numrules_games, '<game id>'`` in its transaction (delivered at commit, never for a
rolled-back action), and every process LISTENs on that channel with one asyncpg connection
of its own, so a stream opened on one replica sees an action sent to another: no broker but
the database. On SQLite (one process) the in-process wake-up is all there is.

A stream never relies on a wake-up alone: it reads the log again at least every keep-alive
interval, so a notification lost while the listening connection was down costs a delay, not
an event.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

import asyncpg
from sqlalchemy.engine import make_url

CHANNEL = "numrules_games"
log = logging.getLogger("numrules.games")


class Fanout:
    def __init__(self, connect_timeout: float = 5.0) -> None:
        #: Opening the LISTEN connection gives up after this (`NUMRULES_DB_CONNECT_TIMEOUT_SECONDS`).
        self.connect_timeout = connect_timeout
        self._waiters: dict[str, set[asyncio.Event]] = {}
        #: When each watched game was last published (time.monotonic()): a read of its log
        #: begun after that sees every action its streams were woken for.
        self.published: dict[str, float] = {}
        self._connection: Any = None
        self._dsn: str | None = None
        self._reconnect: asyncio.Task[None] | None = None
        self._closing = False
        self._slots = 0
        #: the slots held per client network (`reserve`'s `per_network`)
        self._by_network: dict[str, int] = {}

    @property
    def closing(self) -> bool:
        """The service is shutting down: streams end."""
        return self._closing

    @property
    def streams(self) -> int:
        """How many streams this process holds: open, or being opened (their slots)."""
        return self._slots

    def reserve(
        self, limit: int, network: str | None = None, per_network: int = 0
    ) -> StreamSlot | None:
        """A slot for a new stream, or None when `limit` are held, or (`per_network` > 0)
        when the client's `network` holds `per_network` already: one client cannot take
        every stream of the process (an attacker held them all from one address, and every
        player elsewhere was refused). Checked and counted in one step, with no await between
        (the event loop runs nothing else meanwhile), before the stream's first read: a
        burst of opens cannot all pass the check before any of them counts (200 concurrent
        opens held 35 streams under a cap of 20; issue 21)."""
        if self._slots >= limit:
            return None
        counted = network if per_network > 0 else None
        if counted is not None:
            held = self._by_network.get(counted, 0)
            if held >= per_network:
                return None
            self._by_network[counted] = held + 1
        self._slots += 1
        return StreamSlot(self, counted)

    def _give_back(self, network: str | None) -> None:
        self._slots -= 1
        if network is not None:
            held = self._by_network.get(network, 0) - 1
            if held > 0:
                self._by_network[network] = held
            else:
                self._by_network.pop(network, None)

    def subscribe(self, game_id: str) -> asyncio.Event:
        event = asyncio.Event()
        self._waiters.setdefault(game_id, set()).add(event)
        return event

    def unsubscribe(self, game_id: str, event: asyncio.Event) -> None:
        waiters = self._waiters.get(game_id)
        if waiters is not None:
            waiters.discard(event)
            if not waiters:
                del self._waiters[game_id]
                self.published.pop(game_id, None)

    def publish(self, game_id: str) -> None:
        waiters = self._waiters.get(game_id)
        if not waiters:
            return
        self.published[game_id] = time.monotonic()
        for event in waiters:
            event.set()

    # -- PostgreSQL LISTEN ------------------------------------------------------------------

    async def listen(self, database_url: str) -> None:
        """LISTEN on the channel (PostgreSQL only); reconnects in the background if the
        connection drops."""
        url = make_url(database_url)
        if url.get_backend_name() != "postgresql":
            return
        self._dsn = url.set(drivername="postgresql").render_as_string(hide_password=False)
        try:
            await self._connect()
        except (OSError, asyncpg.PostgresError) as exc:  # streams poll meanwhile
            log.warning("LISTEN failed (%s): retrying in the background", type(exc).__name__)
            self._reconnect = asyncio.get_running_loop().create_task(self._reconnect_loop())

    async def _connect(self) -> None:
        assert self._dsn is not None
        connection = await asyncpg.connect(self._dsn, timeout=self.connect_timeout)
        await connection.add_listener(CHANNEL, self._on_notify)
        connection.add_termination_listener(self._on_lost)
        self._connection = connection

    def _on_notify(self, _connection: object, _pid: int, _channel: str, payload: str) -> None:
        self.publish(payload)

    def _on_lost(self, _connection: object) -> None:
        if not self._closing and self._reconnect is None:
            log.warning("the LISTEN connection was lost: reconnecting")
            self._reconnect = asyncio.get_running_loop().create_task(self._reconnect_loop())

    async def _reconnect_loop(self) -> None:
        delay = 0.5
        while not self._closing:
            await asyncio.sleep(delay)
            try:
                await self._connect()
            except (OSError, asyncpg.PostgresError) as exc:
                log.warning("LISTEN reconnect failed (%s): retrying", type(exc).__name__)
                delay = min(delay * 2, 10.0)
                continue
            for game_id in list(self._waiters):  # whatever was missed: streams read again
                self.publish(game_id)
            break
        self._reconnect = None

    async def close(self) -> None:
        self._closing = True
        if self._reconnect is not None:
            self._reconnect.cancel()
        if self._connection is not None:
            with contextlib.suppress(Exception):
                await self._connection.close(timeout=5)
        for waiters in self._waiters.values():  # streams end at their next wake-up
            for event in waiters:
                event.set()


class StreamSlot:
    """One stream's place under the cap (`Fanout.reserve`); `release` gives it back, once."""

    __slots__ = ("_fanout", "_network")

    def __init__(self, fanout: Fanout, network: str | None = None) -> None:
        self._fanout: Fanout | None = fanout
        self._network = network

    def release(self) -> None:
        if self._fanout is not None:
            self._fanout._give_back(self._network)
            self._fanout = None
