"""Wake the event streams of a game when it moves, in this process and in every replica.

Each open stream waits on an `asyncio.Event` of its game. An action wakes the streams of its
own process at once (:meth:`Fanout.publish`); on PostgreSQL it also sends
``NOTIFY "numrules_game_<game id>", '<game id>'`` in its transaction (delivered at commit,
never for a rolled-back action: :func:`channel_of`; a hot action's payload names its version,
below), and each process LISTENs, on one asyncpg
connection of its own, on the channels of the games its streams watch, and only those: a
stream opened on one replica sees an action sent to another (no broker but the database),
and an action on a game nobody streams reaches no process (with one channel for all games,
every process received every action's notification and PostgreSQL woke each listener at
every commit: about 90 µs of the API's CPU and 80 of PostgreSQL's an action at 16 games,
issue 27; PostgreSQL up to 18 still wakes a process's listening backend at every NOTIFY of
the database while it LISTENs on any channel, but that process is no longer sent the other
games' notifications). A stream's game is LISTENed in the background; once the LISTEN is in
place the stream is woken (:meth:`Fanout.publish`) and reads the log again, so nothing
committed between its first read and the LISTEN is missed. On SQLite (one process) the
in-process wake-up is all there is.

A stream never relies on a wake-up alone: it reads the log again at least every keep-alive
interval, so a notification lost while the listening connection was down costs a delay, not
an event.

A hot action (one statement, `APPEND_HOT_PG`) committed by this process wakes the game's
streams here at once (:meth:`Fanout.announce`), and, when the game goes on and its streams
last read (or were handed) the version the action was applied to, hands them what their next
read of the log would find (the game's row after it and its events, :class:`Written`), so
that they need not read it; else they read as before. Its NOTIFY's payload names the version
it wrote (``'<game id> <version>'``), and a notification of a version this process announced
already, or of the version its hot write under way writes (:meth:`Fanout.writing`: the
NOTIFY often comes before the statement's own answer, and its wake-up made the streams read
what they were about to be handed; at 16 games, 0.75 reads of the log an action), is ignored
(any other is a wake-up as before: another replica's action, or an action of this process on
another path). A replica older than this payload takes it for an unknown
game: while builds before and after it run together (a rolling upgrade, a rollback), the
older replicas' streams see the newer ones' hot actions at their next keep-alive read.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any, NamedTuple

import asyncpg
from sqlalchemy.engine import make_url

#: Each game's channel is this followed by its id (46 characters: a PostgreSQL identifier
#: may have 63).
CHANNEL_PREFIX = "numrules_game_"
log = logging.getLogger("numrules.games")
#: A LISTEN or UNLISTEN that failed on a live connection is tried again after this (s).
RETRY_SECONDS = 1.0


class Written(NamedTuple):
    """A write this process committed and announced to the game's streams (:meth:`Fanout.announce`):
    what a read of the log after `after` events returns once it committed (the game's row, its
    new event rows, their events decoded: `GameService.events_for`'s shared read), taken by
    the streams' reads after `after` as long as nothing was published after `announced`
    (another wake-up: they read the log)."""

    after: int
    announced: float
    read: Any


def channel_of(game_id: str) -> str:
    """The game's NOTIFY channel."""
    return CHANNEL_PREFIX + game_id


class Fanout:
    def __init__(self, connect_timeout: float = 5.0) -> None:
        #: Opening the LISTEN connection gives up after this (`NUMRULES_DB_CONNECT_TIMEOUT_SECONDS`).
        self.connect_timeout = connect_timeout
        #: The LISTEN connection's `application_name` (the app's: api.db.sole).
        self.application_name: str | None = None
        self._waiters: dict[str, set[asyncio.Event]] = {}
        #: When each watched game was last published (time.monotonic()): a read of its log
        #: begun after that sees every action its streams were woken for.
        self.published: dict[str, float] = {}
        #: Per watched game: the last version this process announced (:meth:`announce`), the
        #: write it handed its streams, and the game's last row its streams read or were
        #: handed (`GameService` keeps it: the base of its next write's row).
        self.announced: dict[str, int] = {}
        #: Per watched game: the version a hot write of this process under way writes.
        self.pending: dict[str, int] = {}
        self.written: dict[str, Written] = {}
        self.rows: dict[str, Any] = {}
        self._connection: Any = None
        #: The games whose channel the connection LISTENs on (:meth:`_sync`).
        self._listening: set[str] = set()
        self._syncing: asyncio.Task[None] | None = None
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

    @property
    def listening(self) -> frozenset[str]:
        """The games whose channel this process LISTENs on now."""
        return frozenset(self._listening)

    def subscribe(self, game_id: str) -> asyncio.Event:
        """A stream's wake-up for the game; its first one LISTENs on the game's channel."""
        event = asyncio.Event()
        waiters = self._waiters.setdefault(game_id, set())
        waiters.add(event)
        if len(waiters) == 1:
            self._sync()
        return event

    def unsubscribe(self, game_id: str, event: asyncio.Event) -> None:
        """The stream is over; its game's last one UNLISTENs."""
        waiters = self._waiters.get(game_id)
        if waiters is not None:
            waiters.discard(event)
            if not waiters:
                del self._waiters[game_id]
                self.published.pop(game_id, None)
                self.announced.pop(game_id, None)
                self.pending.pop(game_id, None)
                self.written.pop(game_id, None)
                self.rows.pop(game_id, None)
                self._sync()

    def watched(self, game_id: str) -> bool:
        """Whether a stream of this process watches the game."""
        return game_id in self._waiters

    def publish(self, game_id: str) -> None:
        waiters = self._waiters.get(game_id)
        if not waiters:
            return
        self.published[game_id] = time.monotonic()
        for event in waiters:
            event.set()

    def writing(self, game_id: str, version: int) -> None:
        """A hot write of this process that writes the game's `version` goes out: until
        :meth:`written_or_not`, that version's NOTIFY wakes nobody here (its announcement
        follows the statement's answer)."""
        if game_id in self._waiters:
            self.pending[game_id] = version

    def written_or_not(self, game_id: str, committed: bool) -> None:
        """That write is over: `committed`, its announcement comes next (:meth:`announce`);
        else (refused, or failed without knowing whether it committed) the game's streams
        read the log, since a notification of that version, another replica's or this one's
        after all, may have been ignored meanwhile."""
        if self.pending.pop(game_id, None) is not None and not committed:
            self.publish(game_id)

    def announce(
        self, game_id: str, version: int, written: tuple[int, Any] | None, sent: float
    ) -> None:
        """This process committed the game's `version` by a hot action whose statement went
        out at `sent` (time.monotonic()): its streams here are woken now, without waiting for
        the commit's NOTIFY, which is then ignored. `written`: (the events' count before the
        action, what a read of the log after it returns now), handed to the streams' next
        read; not when the game was published since `sent` (another commit's wake-up, maybe
        a later one, which a handed write would hide from the streams until their keep-alive
        read; this action's own NOTIFY, come first, wakes nobody: :meth:`writing`), nor when
        None: they read the log."""
        if game_id not in self._waiters:
            return
        if self.published.get(game_id, 0.0) > sent:
            written = None
        self.announced[game_id] = max(version, self.announced.get(game_id, 0))
        self.publish(game_id)  # first: `Written.announced` is not before `published`
        if written is None:
            self.written.pop(game_id, None)
        else:
            self.written[game_id] = Written(written[0], time.monotonic(), written[1])

    # -- PostgreSQL LISTEN ------------------------------------------------------------------

    async def listen(self, database_url: str) -> None:
        """Open the LISTEN connection (PostgreSQL only), which then LISTENs on the channels
        of the games streamed here; reconnects in the background if it drops."""
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
        name = self.application_name
        settings = {} if name is None else {"application_name": name}
        connection = await asyncpg.connect(
            self._dsn, timeout=self.connect_timeout, server_settings=settings
        )
        connection.add_termination_listener(self._on_lost)
        if self._syncing is not None:  # the old connection's: it must not run on the new one
            self._syncing.cancel()
        self._connection = connection
        self._listening = set()
        self._sync()

    def _sync(self) -> None:
        """Bring the connection's LISTENs to the watched games, in the background: one task
        at a time (an asyncpg connection runs one command at once), which looks again
        until they match; a command that fails on a live connection is tried again a second
        later. Without a connection (SQLite, or PostgreSQL lost), nothing: the next
        connection LISTENs on them all."""
        if self._connection is None or self._closing:
            return
        if self._syncing is None or self._syncing.done():
            self._syncing = asyncio.get_running_loop().create_task(self._sync_loop())

    async def _sync_loop(self) -> None:
        connection = self._connection
        while connection is self._connection and not self._closing:
            wanted = set(self._waiters)
            start, stop = wanted - self._listening, self._listening - wanted
            if not start and not stop:
                return
            try:
                for game_id in start:
                    await connection.add_listener(channel_of(game_id), self._on_notify)
                    self._listening.add(game_id)
                    # its streams read the log again: what was committed before the LISTEN
                    self.publish(game_id)
                for game_id in stop:
                    # out first: asyncpg drops the callback before it sends UNLISTEN, so a
                    # failed UNLISTEN must leave the game to be LISTENed again
                    self._listening.discard(game_id)
                    await connection.remove_listener(channel_of(game_id), self._on_notify)
            except Exception as exc:
                log.warning(
                    "LISTEN failed (%s): the streams read the log meanwhile", type(exc).__name__
                )
                if connection is self._connection and not connection.is_closed():
                    asyncio.get_running_loop().call_later(RETRY_SECONDS, self._sync)
                return  # a lost connection: the next one LISTENs on them all

    def _on_notify(self, _connection: object, _pid: int, _channel: str, payload: str) -> None:
        game_id, _, version = payload.partition(" ")
        if version.isdigit() and (
            int(version) <= self.announced.get(game_id, -1)
            or int(version) == self.pending.get(game_id)
        ):
            return  # this process's own hot action, announced at its commit (or about to be)
        self.publish(game_id)

    def _on_lost(self, connection: object) -> None:
        if connection is self._connection:
            self._connection = None
            self._listening = set()
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
            break  # each watched game's streams read again once its LISTEN is back
        self._reconnect = None

    async def close(self) -> None:
        self._closing = True
        if self._reconnect is not None:
            self._reconnect.cancel()
        if self._syncing is not None:
            self._syncing.cancel()
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
