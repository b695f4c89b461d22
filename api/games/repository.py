"""Stored games' storage (STYLE 14; boardgame.io's `server/db/base.ts`): the prebuilt
statements and the stored formats' codecs (:mod:`api.games.formats`), nothing of the flow.

A game is its row (`games`), its seats (`game_seats`), the append-only action log
(`game_actions`, one row per action, `seq` = the version it produced), the events each action
made (`game_events`, with the seats that may see each), the checkpoint of its current round's
start and that round's progress, and the answers kept for an `Idempotency-Key`
(`idempotency_keys`). Every method takes the caller's connection: the service decides the
transactions (one per action) and the locks, this module only what one statement reads or
writes.

The statements of the hot paths (reading a game, acting) are built once with bound
parameters: SQLAlchemy then reuses their cache keys and compiled forms, and an action or a
read pays for none of the statement building (about half of an action's CPU time when built
per call).

On PostgreSQL (:class:`PostgresGameRepository`, issue 27) those two hot paths skip
SQLAlchemy's statement execution and go to asyncpg directly, and an action writes all it
writes in one statement (`APPEND_PG`): BEGIN, the locked read, that statement, COMMIT (six
round trips before). :func:`repository_for` picks the dialect's repository; the service
never asks which it has.

Shared commits (issue 27, `NUMRULES_GROUP_COMMIT_MS`, :class:`GroupCommit`): on PostgreSQL
the actions that arrive while another batch is committing are applied one after the other
in one transaction and answered after its one COMMIT: one WAL flush and one BEGIN/COMMIT pair
for the batch.
"""

from __future__ import annotations

import asyncio
import logging
import operator
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any, Generic, NamedTuple, TypeAlias, TypeVar

import asyncpg
import msgspec
from sqlalchemy import (
    Float,
    Row,
    Select,
    String,
    Text,
    Update,
    and_,
    bindparam,
    case,
    cast,
    column,
    func,
    insert,
    literal,
    literal_column,
    null,
    or_,
    select,
    text,
    true,
    update,
)
from sqlalchemy.dialects.postgresql import JSONB, insert as pg_insert
from sqlalchemy.dialects.postgresql.asyncpg import dialect as asyncpg_dialect
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import ColumnClause
from sqlalchemy.sql.functions import FunctionElement

from api.db.engine import HeldConnections, held_size
from api.db.models import (
    AccountSession,
    BotCpu,
    Game,
    GameAction,
    GameEvent,
    GameHint,
    GameSeat,
    IdempotencyKey,
    StreamTicket,
    table,
)
from api.games.fanout import CHANNEL_PREFIX, channel_of
from api.games.formats import (
    action_document,
    answer_document,
    decode_action,
    decode_answer,
    decode_checkpoint,
    encode_checkpoint,
    encode_progress,
    export_actions,
    with_progress,
)
from api.games.schemas import ActionOut, ExportAction, SeatDeadline
from api.http.responses import HEX_ID
from engine.core.actions import Action
from engine.core.match import MatchCheckpoint

GAMES = table(Game)
SEATS = table(GameSeat)
ACTIONS = table(GameAction)
EVENTS = table(GameEvent)
KEYS = table(IdempotencyKey)
TICKETS = table(StreamTicket)
SESSIONS = table(AccountSession)
HINTS = table(GameHint)
CPU = table(BotCpu)

log = logging.getLogger("numrules.games")

#: A game's row, its columns read by attribute: SQLAlchemy's `Row`, or on PostgreSQL's hot
#: paths asyncpg's (:class:`GameRecord`).
GameRow: TypeAlias = Any
_T = TypeVar("_T")


class DbNow(FunctionElement[float]):
    """The database's clock, in seconds since the epoch (issue 26's turn clocks): PostgreSQL's
    `clock_timestamp()` (the time of the statement, one clock for every replica), SQLite's own
    (`julianday('now')`, to the millisecond)."""

    type = Float()
    inherit_cache = True
    name = "db_now"


@compiles(DbNow)
def _sqlite_now(element: DbNow, compiler: SQLCompiler, **kw: Any) -> str:
    return "((julianday('now') - 2440587.5) * 86400.0)"


@compiles(DbNow, "postgresql")
def _postgresql_now(element: DbNow, compiler: SQLCompiler, **kw: Any) -> str:
    return "CAST(EXTRACT(EPOCH FROM clock_timestamp()) AS DOUBLE PRECISION)"


#: Every column of a game but its checkpoint and its round's progress, which only a cold load
#: reads (`_CHECKPOINT`), and the database's clock when the row was read (`db_now`: turn
#: clocks).
#: The columns of `games` a read leaves out (the checkpoint and progress: `_CHECKPOINT`; the
#: sweep's bound; the creator token's hash, read by an abandon only).
UNREAD_COLUMNS = frozenset({"checkpoint", "progress", "sweep_at", "creator_token_hash"})
_GAME_COLUMNS = [
    *(c for c in GAMES.c if c.name not in UNREAD_COLUMNS),
    DbNow().label("db_now"),
]
_GAME = select(*_GAME_COLUMNS).where(GAMES.c.id == bindparam("b_game"))
_GAME_LOCKED = _GAME.with_for_update()
#: The game and, in the same query, the seat whose token hash is `b_digest` (if any).
_GAME_AND_SEAT: Select[Any] = (
    select(*_GAME_COLUMNS, SEATS.c.seat.label("token_seat"))
    .select_from(
        GAMES.outerjoin(
            SEATS,
            (SEATS.c.game_id == GAMES.c.id) & (SEATS.c.token_hash == bindparam("b_digest")),
        )
    )
    .where(GAMES.c.id == bindparam("b_game"))
)
_GAME_AND_SEAT_LOCKED = _GAME_AND_SEAT.with_for_update(of=GAMES)
#: A token's hash (api.http.tokens.token_hash).
_DIGEST = re.compile(r"[0-9a-f]{64}")
#: Several games and seats at once (:class:`SharedReads`): each pair of `b_keys` (a JSON
#: array of `{"game": id, "digest": token hash}`: not arrays, whose every element asyncpg
#: checks with Python-level `isinstance` calls, see `APPEND_HOT_MANY_PG`) read as
#: `_GAME_AND_SEAT` reads it, with the pair's `key_digest`; no row for a game that does not
#: exist.
_KEYS = (
    func.jsonb_to_recordset(cast(bindparam("b_keys", type_=String), JSONB))
    .table_valued(column("game", String), column("digest", String))
    .render_derived(name="k", with_types=True)
)
#: Each pair's game and seat looked up by its key: LATERAL subqueries, which the planner
#: cannot turn into joins (`LIMIT 1`). As joins, on a database never analysed (the planner
#: counts its tables as at least ten pages), the planner hashed the whole table of games, and
#: each connection kept that plan as the table grew. The pairs come as JSON, whose rows the
#: planner always counts as 100, so that its plan does not depend on their number: with a
#: count it knew (an array's), it planned the statement afresh at each run
#: (docs/bench-history.md, "Issue 27: key look-ups planned as look-ups").
_ONE: ColumnClause[int] = literal_column("1")
_KEYED_GAME = select(*_GAME_COLUMNS).where(GAMES.c.id == _KEYS.c.game).limit(_ONE).lateral("g")
_KEYED_SEAT = (
    select(SEATS.c.seat)
    .where(SEATS.c.game_id == _KEYS.c.game, SEATS.c.token_hash == _KEYS.c.digest)
    .limit(_ONE)
    .lateral("s")
)
_GAMES_AND_SEATS: Select[Any] = select(
    *_KEYED_GAME.c, _KEYED_SEAT.c.seat.label("token_seat"), _KEYS.c.digest.label("key_digest")
).select_from(_KEYS.join(_KEYED_GAME, true()).outerjoin(_KEYED_SEAT, true()))
_SEAT_BY_TOKEN = select(SEATS.c.seat, SEATS.c.token_hash).where(
    SEATS.c.game_id == bindparam("b_game"), SEATS.c.token_hash == bindparam("b_digest")
)
#: The seat an account joined (its session acts for it).
_SEAT_BY_ACCOUNT = select(SEATS.c.seat).where(
    SEATS.c.game_id == bindparam("b_game"),
    SEATS.c.joined,
    SEATS.c.account_id == bindparam("b_account"),
)
#: Whether the token of sha256 `b_digest` still holds seat `b_seat`: the seat's own token, or
#: a live session of the account that joined it (a stream's check of its credential).
_HOLDS_SEAT = select(SEATS.c.seat).where(
    SEATS.c.game_id == bindparam("b_game"),
    SEATS.c.seat == bindparam("b_seat"),
    or_(
        SEATS.c.token_hash == bindparam("b_digest"),
        and_(
            SEATS.c.joined,
            SEATS.c.account_id.in_(
                select(SESSIONS.c.account_id).where(
                    SESSIONS.c.token_hash == bindparam("b_digest"),
                    SESSIONS.c.expires_at > bindparam("b_now"),
                )
            ),
        ),
    ),
)
_NAMES = (
    select(SEATS.c.name, SEATS.c.bot)
    .where(SEATS.c.game_id == bindparam("b_game"))
    .order_by(SEATS.c.seat)
)
_KEY = select(KEYS.c.request_hash, KEYS.c.response).where(
    KEYS.c.game_id == bindparam("b_game"),
    KEYS.c.seat == bindparam("b_seat"),
    KEYS.c.key == bindparam("b_key"),
)
_ADD_ACTION = insert(ACTIONS)
_ADD_EVENTS = insert(EVENTS)
_ADD_GAME = insert(GAMES)
_ADD_SEATS = insert(SEATS)
_ADD_KEY = insert(KEYS)
#: The log from `b_after` (exclusive) to `b_upto` (inclusive), for a replay or a catch-up.
# A replay reads the log's and the checkpoint's JSON text and decodes it straight into the
# engine's types (api.games.formats): 0.3 µs an action, where `msgspec.convert` of the
# decoded dict took 10 µs.
_ACTIONS = (
    select(ACTIONS.c.seat, cast(ACTIONS.c.action, Text).label("action"))
    .where(
        ACTIONS.c.game_id == bindparam("b_game"),
        ACTIONS.c.seq > bindparam("b_after"),
        ACTIONS.c.seq <= bindparam("b_upto"),
    )
    .order_by(ACTIONS.c.seq)
)
_CHECKPOINT = select(GAMES.c.checkpoint, GAMES.c.progress).where(GAMES.c.id == bindparam("b_game"))
_EVENT_ROWS = (
    select(EVENTS.c.seq, cast(EVENTS.c.visibility, Text), cast(EVENTS.c.payload, Text))
    .where(
        EVENTS.c.game_id == bindparam("b_game"),
        EVENTS.c.seq > bindparam("b_after"),
        EVENTS.c.seq <= bindparam("b_upto"),
    )
    .order_by(EVENTS.c.seq)
    .limit(bindparam("b_limit"))
)


class EventRow(NamedTuple):
    """An event's row as the reads use it (:meth:`GameRepository.event_rows`)."""

    seq: int
    visibility: list[int] | None
    payload: Any


#: `games.sweep_at` after a write that sets `deadline` to `{d}` (SQL): NULL with it, the
#: deadline when it comes earlier than the bound or there was none, else the bound as it was:
#: an unchanged value keeps the update HOT (`api.db.models.Game.sweep_at`).
SWEEP_AT = (
    "CASE WHEN {d} IS NULL THEN NULL WHEN {t}sweep_at IS NULL OR {d} < {t}sweep_at THEN {d} "
    "ELSE {t}sweep_at END"
)


def _sweep_at(deadline: Any) -> Any:
    """`SWEEP_AT` as a SQLAlchemy expression of the new deadline `deadline`."""
    bound = GAMES.c.sweep_at
    return case(
        (deadline.is_(None), null()),
        (or_(bound.is_(None), deadline < bound), deadline),
        else_=bound,
    )


def deadline_values(deadline: datetime | None) -> dict[str, Any]:
    """The columns of a game's earliest deadline where a write sets it without a prior one
    (a creation, a table's start) or clears it (an abandon): `deadline` and the sweep's
    bound alike."""
    return {"deadline": deadline, "sweep_at": deadline}


def _move(checkpoint: bool, progress: bool, notify: bool) -> Update:
    """The game's row after an action, guarded by the version the action was applied to;
    with the new round's checkpoint (and no progress yet) when the action started a round;
    with the round's progress when it is due; with the game's NOTIFY in the same statement
    when `notify`."""
    deadline = bindparam("b_deadline", type_=GAMES.c.deadline.type)
    values: dict[str, Any] = {
        "version": bindparam("b_version"),
        "event_seq": bindparam("b_event_seq"),
        "status": bindparam("b_status"),
        "result": bindparam("b_result", type_=GAMES.c.result.type),
        "bot_pending": bindparam("b_bot_pending"),
        "deadlines": bindparam("b_deadlines", type_=GAMES.c.deadlines.type),
        "deadline": deadline,
        "sweep_at": _sweep_at(deadline),
        "updated_at": func.now(),
    }
    if checkpoint:
        values["checkpoint"] = bindparam("b_checkpoint")
        values["progress"] = None
    if progress:
        values["progress"] = bindparam("b_progress")
    moved = (
        update(GAMES)
        .where(GAMES.c.id == bindparam("b_game"), GAMES.c.version == bindparam("b_read"))
        .values(**values)
    )
    channel = literal(CHANNEL_PREFIX, Text) + GAMES.c.id
    return moved.returning(func.pg_notify(channel, GAMES.c.id)) if notify else moved


#: `_MOVES[checkpoint, progress, notify]`.
_MOVES = {
    (c, p, n): _move(c, p, n) for c in (False, True) for p in (False, True) for n in (False, True)
}

#: An action's whole write on PostgreSQL, one statement (data-modifying CTEs, which all see
#: the row `moved` returns): the game's row moved to the next version, guarded by the version
#: the action was applied to ($2, read under the row's lock: no row, nothing written); the
#: action's log row; its events (`$12`: `[[seq, payload, to], …]`, `to` kept as JSON, `null`
#: for everyone, as the models' JSON columns store None); the answer kept for its
#: `Idempotency-Key` ($13, NULL: none); the game's NOTIFY. `$9`: the checkpoint of the round
#: the action started (NULL: the stored one kept), which clears the round's progress; `$16`:
#: the round's progress (NULL: the stored one kept).
_APPEND_PG = """\
WITH moved AS (
    UPDATE games SET version = $2 + 1, event_seq = $3, status = $4, result = $5::jsonb,
        bot_pending = $6, deadlines = $7::jsonb, deadline = $8::timestamptz,
        sweep_at = {sweep_at},
        checkpoint = COALESCE($9::text, checkpoint),
        progress = CASE WHEN $9::text IS NULL THEN COALESCE($16::text, progress) END,
        updated_at = now()
    WHERE id = $1 AND version = $2{guard}
    RETURNING id
), logged AS (
    INSERT INTO game_actions (game_id, seq, seat, action)
    SELECT id, $2 + 1, $10::integer, $11::jsonb FROM moved
), evented AS (
    INSERT INTO game_events (game_id, seq, kind, visibility, payload)
    SELECT moved.id, (e.doc->>0)::integer, e.doc->1->>'kind', e.doc->2, e.doc->1
    FROM moved, jsonb_array_elements($12::jsonb) AS e(doc)
), kept AS (
    INSERT INTO idempotency_keys (game_id, seat, key, request_hash, status, response)
    SELECT id, $10::integer, $13::varchar, $14::varchar, 200, $15::jsonb FROM moved
    WHERE $13::varchar IS NOT NULL
)
SELECT pg_notify('{channel}' || id, {payload}) FROM moved"""
_SWEEP_AT_PG = SWEEP_AT.format(d="$8::timestamptz", t="")
APPEND_PG = _APPEND_PG.format(guard="", channel=CHANNEL_PREFIX, payload="id", sweep_at=_SWEEP_AT_PG)
#: The same write as an action's whole transaction, one statement in autocommit (the hot
#: action, :meth:`PostgresGameRepository.append_hot`): no lock was read first, so the
#: statement itself checks what the locked read would have: the game is still active at the
#: version the cached match is at, none of its turn clocks has run out, and `$17` is the hash
#: of the seat's token. Its NOTIFY names the version it wrote (`'<id> <version>'`: the
#: process that committed it announced it to its streams already, api.games.fanout).
APPEND_HOT_PG = _APPEND_PG.format(
    guard=" AND status = 'active' AND (deadline IS NULL OR deadline > clock_timestamp()) "
    "AND EXISTS (SELECT 1 FROM game_seats WHERE game_id = $1 AND seat = $10 "
    "AND token_hash = $17)",
    channel=CHANNEL_PREFIX,
    payload="id || ' ' || ($2 + 1)",
    sweep_at=_SWEEP_AT_PG,
)
#: Several games' hot actions written and committed by one statement (:class:`HotWrites`):
#: `APPEND_HOT_PG` for each element of `$1`, a JSON array with one object a game
#: (:class:`_HotMany`), each game's row moved only under the same checks; its rows are the
#: ids of the games it moved (each with its NOTIFY, naming the version written, as
#: `APPEND_HOT_PG`'s). The rows are locked first, in their ids' order (`locked`), as
#: `GroupCommit`'s batches lock them, so that two such writes never deadlock (the update's
#: own join may take them in any order: the planner's). One JSON parameter, not an array a
#: column: asyncpg checks each element of an array parameter against `collections.abc`'s
#: classes, Python-level `isinstance` calls (two for a string), which cost more than the rest
#: of the statement's encoding (bench/instructions.py: 73 K instructions an action). A JSON
#: null is SQL NULL in `jsonb_to_recordset`'s columns: `result` and `deadlines` get back the
#: JSON null `APPEND_HOT_PG` stores for None.
#:
#: Each game is looked up by its key: `locked`'s look-ups are LATERAL subqueries, which the
#: planner cannot turn into a join, and each element's seat is checked once (`checked`, the
#: seat's token hash looked up by the seat's key) before the update joins the games. As
#: joins, on a database never analysed (the planner counts its tables as at least ten pages),
#: the lock hashed the whole table of games, at times the seats' too, and each connection
#: kept that plan as the table grew; a seat check in the update's own join could run once
#: per row of a table scanned (docs/bench-history.md, "Issue 27: key look-ups planned as
#: look-ups"). A look-up by key still follows the statistics, as every statement's: tables
#: analysed while tiny are scanned until they are analysed again (autovacuum's work).
APPEND_HOT_MANY_PG = f"""\
WITH v AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb) AS v(id text, read integer,
        event_seq integer, status text, result jsonb, bot_pending boolean, deadlines jsonb,
        deadline timestamptz, checkpoint text, seat integer, action jsonb, events jsonb,
        progress text, digest text)
), checked AS MATERIALIZED (
    SELECT * FROM v WHERE v.digest = (SELECT token_hash FROM game_seats
        WHERE game_id = v.id AND seat = v.seat)
), locked AS MATERIALIZED (
    SELECT g.id FROM (SELECT id FROM v ORDER BY id) AS o,
        LATERAL (SELECT id FROM games WHERE games.id = o.id FOR UPDATE) AS g
), moved AS (
    UPDATE games SET version = v.read + 1, event_seq = v.event_seq, status = v.status,
        result = COALESCE(v.result, 'null'), bot_pending = v.bot_pending,
        deadlines = COALESCE(v.deadlines, 'null'),
        deadline = v.deadline, sweep_at = {SWEEP_AT.format(d="v.deadline", t="games.")},
        checkpoint = COALESCE(v.checkpoint, games.checkpoint),
        progress = CASE WHEN v.checkpoint IS NULL THEN COALESCE(v.progress, games.progress) END,
        updated_at = now()
    FROM checked AS v, locked
    WHERE games.id = v.id AND locked.id = v.id AND games.version = v.read
        AND games.status = 'active'
        AND (games.deadline IS NULL OR games.deadline > clock_timestamp())
    RETURNING games.id, v.read, v.seat, v.action, v.events
), logged AS (
    INSERT INTO game_actions (game_id, seq, seat, action)
    SELECT id, read + 1, seat, action FROM moved
), evented AS (
    INSERT INTO game_events (game_id, seq, kind, visibility, payload)
    SELECT moved.id, (e.doc->>0)::integer, e.doc->1->>'kind', e.doc->2, e.doc->1
    FROM moved, jsonb_array_elements(moved.events) AS e(doc)
)
SELECT id, pg_notify('{CHANNEL_PREFIX}' || id, id || ' ' || (read + 1)) FROM moved"""


class _HotMany(msgspec.Struct):
    """One game's element of `APPEND_HOT_MANY_PG`'s `$1`: `APPEND_HOT_PG`'s arguments (not
    the kept answer's: a hot action has no `Idempotency-Key`), its JSON ones as they are."""

    id: str
    read: int
    event_seq: int
    status: str
    result: msgspec.Raw
    bot_pending: bool
    deadlines: msgspec.Raw
    deadline: datetime | None
    checkpoint: str | None
    seat: int
    action: msgspec.Raw
    events: msgspec.Raw
    progress: str | None
    digest: str


def _hot_many(args: tuple[Any, ...]) -> _HotMany:
    """`APPEND_HOT_PG`'s arguments as `APPEND_HOT_MANY_PG`'s element."""
    return _HotMany(
        args[0],
        args[1],
        args[2],
        args[3],
        msgspec.Raw(args[4]),
        args[5],
        msgspec.Raw(args[6]),
        args[7],
        args[8],
        args[9],
        msgspec.Raw(args[10]),
        msgspec.Raw(args[11]),
        args[15],
        args[16],
    )


#: JSON parameters' text (`APPEND_HOT_MANY_PG`'s, `_GAMES_AND_SEATS`').
_ENCODE = msgspec.json.Encoder().encode


class LostUpdate(RuntimeError):
    """The game's row was not at the version an action was applied to: it moved under the
    row's lock, which only a bug can do; the action's transaction is rolled back."""


class StoredEvent(msgspec.Struct, frozen=True, array_like=True):
    """An event as an action appends it: its `seq`, stored document and audience."""

    seq: int
    payload: dict[str, Any]
    to: list[int] | None


def _event_row(game_id: str, e: StoredEvent) -> dict[str, Any]:
    return {
        "game_id": game_id,
        "seq": e.seq,
        "kind": e.payload["kind"],
        "visibility": e.to,
        "payload": e.payload,
    }


class Move(msgspec.Struct, frozen=True):
    """What an applied action writes: its seat and action, its events, and the game's row
    after it (`checkpoint`: the round it started, None if none; `progress`: the round's
    actions so far, when due, None if not)."""

    seat: int
    action: Action
    events: Sequence[StoredEvent]
    status: str
    result: Any
    checkpoint: MatchCheckpoint | None
    bot_pending: bool
    deadlines: list[Any] | None
    deadline: datetime | None
    progress: MatchCheckpoint | None = None
    #: `deadlines` as answers show them, made with them (`api.games.clock.deadlines_moved`).
    shown: list[SeatDeadline] = []
    #: `deadline` in seconds since the epoch (None: none), made with it
    due_at: float | None = None


class Kept(NamedTuple):
    """The answer kept for a seat's `Idempotency-Key`, written with the action."""

    key: str
    request_hash: str
    answer: ActionOut


class GameRepository:
    """The storage contract of stored games: what is read and written, in which statements.

    `notify`: whether the database is PostgreSQL, whose NOTIFY wakes the other replicas'
    event streams in the statement that moves the game."""

    #: Whether an action on a game this process holds hot may be written in one statement
    #: without a lock read first (:meth:`PostgresGameRepository.append_hot`; SQLite: never).
    hot = False

    def __init__(self, notify: bool) -> None:
        self.notify = notify
        #: Called when an action's transaction on a held connection begins and once it
        #: ended (PostgreSQL: `GameService` forgets the rows it reads answer from).
        self.on_write: Callable[[], None] | None = None

    def acting(self, engine: AsyncEngine) -> AbstractAsyncContextManager[AsyncConnection]:
        """An action's transaction (committed when the block ends, rolled back on an error):
        the engine's own (on SQLite, `BEGIN IMMEDIATE`: api.db.engine)."""
        return engine.begin()

    async def transact(
        self, engine: AsyncEngine, game_id: str, body: Callable[[AsyncConnection], Awaitable[_T]]
    ) -> _T:
        """`body` run in an action's transaction (:meth:`acting`) on the game `game_id`, its
        value returned once the transaction committed."""
        async with self.acting(engine) as conn:
            return await body(conn)

    def connected(self) -> AbstractAsyncContextManager[AsyncConnection]:
        """Where a hot action runs (only where :attr:`hot`)."""
        raise NotImplementedError

    async def append_hot(self, game: Any, move: Move, digest: str) -> bool:
        """A hot action's write, committed (only where :attr:`hot`)."""
        raise NotImplementedError

    async def now_hot(self, conn: AsyncConnection) -> float:
        """:meth:`now` on :meth:`connected`'s connection (only where :attr:`hot`)."""
        raise NotImplementedError

    # -- games and seats ------------------------------------------------------------------

    async def game(self, conn: AsyncConnection, game_id: str, lock: bool = False) -> GameRow | None:
        """The game's row (locked for a write), None for an id no game has."""
        if not HEX_ID.fullmatch(game_id):
            return None
        return (await conn.execute(_GAME_LOCKED if lock else _GAME, {"b_game": game_id})).first()

    async def game_and_seat(
        self, conn: AsyncConnection, game_id: str, digest: str, lock: bool = False
    ) -> GameRow | None:
        """The game's row (locked for a write) with `token_seat`, the seat whose token hash is
        `digest` (None if none): one query, the hot path of every action."""
        if not HEX_ID.fullmatch(game_id):
            return None
        query = _GAME_AND_SEAT_LOCKED if lock else _GAME_AND_SEAT
        row: Row[Any] | None = (
            await conn.execute(query, {"b_game": game_id, "b_digest": digest})
        ).first()
        return row

    async def seat_by_token(self, conn: AsyncConnection, game_id: str, digest: str) -> int | None:
        row = (await conn.execute(_SEAT_BY_TOKEN, {"b_game": game_id, "b_digest": digest})).first()
        return None if row is None else int(row.seat)

    async def seat_by_account(
        self, conn: AsyncConnection, game_id: str, account_id: str
    ) -> int | None:
        """The seat the account joined in this game, if any."""
        row = (
            await conn.execute(_SEAT_BY_ACCOUNT, {"b_game": game_id, "b_account": account_id})
        ).first()
        return None if row is None else int(row.seat)

    async def holds_seat(self, conn: AsyncConnection, game_id: str, seat: int, digest: str) -> bool:
        """Whether the token whose sha256 is `digest` still holds `seat` of the game: it is
        the seat's token, or a live session of the account that joined the seat."""
        values = {"b_game": game_id, "b_seat": seat, "b_digest": digest, "b_now": datetime.now(UTC)}
        return (await conn.execute(_HOLDS_SEAT, values)).first() is not None

    async def creator_token_hash(self, conn: AsyncConnection, game_id: str) -> str | None:
        """The sha256 of the creator's token of a game of bots only created without a session
        (None for any other game): read by an abandon only, never with the game's row."""
        query = select(GAMES.c.creator_token_hash).where(GAMES.c.id == game_id)
        found: str | None = (await conn.execute(query)).scalar()
        return found

    async def names(self, conn: AsyncConnection, game_id: str) -> list[tuple[str, str | None]]:
        """Each seat's name and bot level (None for a person), in seat order."""
        return [(r.name, r.bot) for r in await conn.execute(_NAMES, {"b_game": game_id})]

    async def open_seats(self, conn: AsyncConnection, game_id: str) -> list[int]:
        """The seats nobody holds yet, in order (a waiting game's)."""
        rows = await conn.execute(
            select(SEATS.c.seat)
            .where(SEATS.c.game_id == game_id, SEATS.c.open)
            .order_by(SEATS.c.seat)
        )
        return [int(r.seat) for r in rows]

    async def owing_bots(self, conn: AsyncConnection, idle_seconds: float, limit: int) -> list[str]:
        """Active games owing a bot move for at least `idle_seconds` (the replica that
        applied their last action should have played it by then), oldest first, locked and
        skipping those another transaction holds (`FOR UPDATE SKIP LOCKED`: an action or a
        bot move under way there)."""
        since = datetime.now(UTC) - timedelta(seconds=idle_seconds)
        query = (
            select(GAMES.c.id)
            .where(GAMES.c.bot_pending, GAMES.c.status == "active", GAMES.c.updated_at <= since)
            .order_by(GAMES.c.updated_at)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
        return [r.id for r in await conn.execute(query)]

    async def now(self, conn: AsyncConnection) -> float:
        """The database's clock, seconds since the epoch (:class:`DbNow`)."""
        return float((await conn.execute(select(DbNow()))).scalar_one())

    async def due_clock(self, conn: AsyncConnection, now: Any) -> GameRow | None:
        """An active game whose earliest deadline is at or before `now` (the database's
        clock), the earliest bound first, locked, skipping those another transaction holds (`FOR
        UPDATE SKIP LOCKED`: a replica or a request applying it or acting there); None when
        none is due. Found through the sweep's bound (`sweep_at`, at or before the
        deadline): the games whose bound passed before their deadline are
        :meth:`catch_up_sweep`'s."""
        query = (
            select(*_GAME_COLUMNS)
            .where(
                GAMES.c.sweep_at <= now,
                GAMES.c.deadline <= now,
                GAMES.c.status == "active",
            )
            .order_by(GAMES.c.sweep_at)  # the index's order: the scan stops at the first
            .limit(1)
            .with_for_update(skip_locked=True)
        )
        return (await conn.execute(query)).first()

    async def catch_up_sweep(self, conn: AsyncConnection, now: Any, limit: int) -> int:
        """Move up to `limit` sweep bounds that passed at `now` while their game's deadline
        did not (it moved on since, or the game ended) on to that deadline (NULL for none):
        :meth:`due_clock` then no longer finds them. Rows another transaction holds are
        skipped (the next sweep's). How many moved."""
        stale = (
            select(GAMES.c.id)
            .where(
                GAMES.c.sweep_at <= now,
                or_(
                    GAMES.c.deadline.is_(None),
                    GAMES.c.deadline > now,
                    GAMES.c.status != "active",
                ),
            )
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
        moved = await conn.execute(
            update(GAMES)
            .where(GAMES.c.id.in_(stale))
            .values(
                sweep_at=case((GAMES.c.status == "active", GAMES.c.deadline), else_=null()),
                updated_at=GAMES.c.updated_at,  # not an action: the bot sweep's order kept
            )
        )
        return int(moved.rowcount or 0)

    async def timed_out(
        self, conn: AsyncConnection, game_id: str, timeouts: list[Any], abandoned: bool
    ) -> None:
        """Record the turns that ended by timeout (`games.timeouts`); an abandon by timeout
        ends the game here too (its deadlines cleared)."""
        values: dict[str, Any] = {"timeouts": timeouts}
        if abandoned:
            values.update(
                status="abandoned", deadlines=[], **deadline_values(None), updated_at=func.now()
            )
        await conn.execute(update(GAMES).where(GAMES.c.id == game_id).values(**values))

    async def add_events(
        self, conn: AsyncConnection, game_id: str, events: Sequence[StoredEvent]
    ) -> None:
        """Events written outside an action (an abandon by timeout's `timeout`, a waiting
        game's start: its round 1's); `event_seq` moves to the last one's."""
        if not events:
            return
        await conn.execute(_ADD_EVENTS, [_event_row(game_id, e) for e in events])
        await conn.execute(
            update(GAMES).where(GAMES.c.id == game_id).values(event_seq=max(e.seq for e in events))
        )

    async def last_action_seq(self, conn: AsyncConnection, game_id: str, seat: int) -> int:
        """The version the seat's last logged action produced (0: none)."""
        found = (
            await conn.execute(
                select(func.max(ACTIONS.c.seq)).where(
                    ACTIONS.c.game_id == game_id, ACTIONS.c.seat == seat
                )
            )
        ).scalar()
        return int(found or 0)

    async def round_events(
        self, conn: AsyncConnection, game: GameRow, seat: int
    ) -> list[dict[str, Any]]:
        """The current round's events (from its last `round-start`) that `seat` may see, as
        stored: what a bot or a hint is given besides the seat's view."""
        start = (
            await conn.execute(
                select(func.max(EVENTS.c.seq)).where(
                    EVENTS.c.game_id == game.id,
                    EVENTS.c.kind == "round-start",
                    EVENTS.c.seq <= game.event_seq,
                )
            )
        ).scalar() or 0
        rows = await conn.execute(
            select(EVENTS.c.visibility, EVENTS.c.payload)
            .where(
                EVENTS.c.game_id == game.id,
                EVENTS.c.seq >= start,
                EVENTS.c.seq <= game.event_seq,
            )
            .order_by(EVENTS.c.seq)
        )
        return [r.payload for r in rows if r.visibility is None or seat in r.visibility]

    async def add_hint(self, conn: AsyncConnection, game_id: str, seat: int, version: int) -> None:
        """A hint given to `seat` at `version` (once: asked again, nothing more)."""
        known = (
            await conn.execute(
                select(HINTS.c.seat).where(
                    HINTS.c.game_id == game_id, HINTS.c.seat == seat, HINTS.c.version == version
                )
            )
        ).first()
        if known is None:
            await conn.execute(insert(HINTS).values(game_id=game_id, seat=seat, version=version))

    # -- hints in flight, hints a minute, the bots' CPU ----------------------------------

    async def claim_hint(
        self, conn: AsyncConnection, game_id: str, seat: int, now: float, stale: float, limit: int
    ) -> bool:
        """Mark a hint in flight for the seat and count it in the seat's minute, in one
        statement (every replica sees the same row): refused (False) while another hint
        started less than `stale` seconds ago is in flight, or when the minute's `limit`
        hints (0: none) were asked."""
        fresh = (SEATS.c.hint_window.is_(None)) | (SEATS.c.hint_window <= now - 60)
        room = fresh | (SEATS.c.hint_count < limit) if limit > 0 else true()
        result = await conn.execute(
            update(SEATS)
            .where(
                SEATS.c.game_id == game_id,
                SEATS.c.seat == seat,
                SEATS.c.hint_started.is_(None) | (SEATS.c.hint_started < now - stale),
                room,
            )
            .values(
                hint_started=now,
                hint_window=case((fresh, now), else_=SEATS.c.hint_window),
                hint_count=case((fresh, 1), else_=SEATS.c.hint_count + 1),
            )
        )
        return bool(result.rowcount)

    async def hint_state(
        self, conn: AsyncConnection, game_id: str, seat: int
    ) -> tuple[float | None, float | None]:
        """When the seat's hint in flight started and its minute started (None: none)."""
        row = (
            await conn.execute(
                select(SEATS.c.hint_started, SEATS.c.hint_window).where(
                    SEATS.c.game_id == game_id, SEATS.c.seat == seat
                )
            )
        ).first()
        return (None, None) if row is None else (row.hint_started, row.hint_window)

    async def release_hint(
        self, conn: AsyncConnection, game_id: str, seat: int, now: float
    ) -> None:
        """The hint claimed at `now` is done (a later claim, once that one went stale, stays)."""
        await conn.execute(
            update(SEATS)
            .where(SEATS.c.game_id == game_id, SEATS.c.seat == seat, SEATS.c.hint_started == now)
            .values(hint_started=None)
        )

    async def bot_cpu(
        self, conn: AsyncConnection, owner: str, since: int
    ) -> list[tuple[int, float]]:
        """The owner's think time by minute from minute `since` on, oldest first."""
        rows = await conn.execute(
            select(CPU.c.minute, CPU.c.seconds)
            .where(CPU.c.owner == owner, CPU.c.minute >= since)
            .order_by(CPU.c.minute)
        )
        return [(int(r.minute), float(r.seconds)) for r in rows]

    async def charge_bot_cpu(
        self, conn: AsyncConnection, owner: str, minute: int, seconds: float
    ) -> None:
        """Add `seconds` to the owner's `minute` (one upsert, on PostgreSQL and SQLite)."""
        insert_ = pg_insert if conn.dialect.name == "postgresql" else sqlite_insert
        statement = insert_(CPU).values(owner=owner, minute=minute, seconds=seconds)
        await conn.execute(
            statement.on_conflict_do_update(
                index_elements=[CPU.c.owner, CPU.c.minute],
                set_={"seconds": CPU.c.seconds + statement.excluded.seconds},
            )
        )

    async def seat_binding(
        self, conn: AsyncConnection, game_id: str, seat: int
    ) -> Row[Any, Any] | None:
        """A seat's name and the account it was created for (None: no such seat)."""
        return (
            await conn.execute(
                select(SEATS.c.name, SEATS.c.account_id).where(
                    SEATS.c.game_id == game_id, SEATS.c.seat == seat
                )
            )
        ).first()

    async def join(self, conn: AsyncConnection, game_id: str, seat: int) -> None:
        await conn.execute(
            update(SEATS)
            .where(SEATS.c.game_id == game_id, SEATS.c.seat == seat)
            .values(joined=True)
        )

    async def add_game(
        self,
        conn: AsyncConnection,
        game: dict[str, Any],
        seats: list[dict[str, Any]],
        events: Sequence[StoredEvent] = (),
    ) -> None:
        """A new game's row and its seats' (each with its token's hash, never the token), and
        the events that start it (round 1's `round-start` and deals; `event_seq` counts them)."""
        # its values as parameters, not in the statement (`.values()`): the statement is then
        # compiled once and taken from SQLAlchemy's cache, not built, keyed and compiled anew
        await conn.execute(_ADD_GAME, game)
        await conn.execute(_ADD_SEATS, seats)
        if events:
            await conn.execute(_ADD_EVENTS, [_event_row(game["id"], e) for e in events])

    async def add_game_alone(
        self,
        engine: AsyncEngine,
        game: dict[str, Any],
        seats: list[dict[str, Any]],
        events: Sequence[StoredEvent] = (),
    ) -> None:
        """:meth:`add_game` as a transaction of its own, on `engine`."""
        async with engine.begin() as conn:
            await self.add_game(conn, game, seats, events)

    async def abandon(self, conn: AsyncConnection, game_id: str) -> None:
        await conn.execute(
            update(GAMES)
            .where(GAMES.c.id == game_id)
            .values(status="abandoned", **deadline_values(None), updated_at=func.now())
        )
        if self.notify:
            await conn.execute(
                text("SELECT pg_notify(:channel, :game)"),
                {"channel": channel_of(game_id), "game": game_id},
            )

    # -- the log --------------------------------------------------------------------------

    async def actions(
        self, conn: AsyncConnection, game_id: str, after: int, upto: int
    ) -> list[tuple[int, Action]]:
        """The logged actions from `after` (exclusive) to `upto` (inclusive), decoded."""
        rows = await conn.execute(_ACTIONS, {"b_game": game_id, "b_after": after, "b_upto": upto})
        return [(r.seat, decode_action(r.action)) for r in rows]

    async def checkpoint(self, conn: AsyncConnection, game: GameRow) -> MatchCheckpoint | None:
        """The saved checkpoint, with the round's progress when one continues it, if this
        code reads it and it is at or before the row's version (a reader's older row may come
        after a newer checkpoint), else None."""
        saved, progress = await self.checkpoint_texts(conn, game.id)
        if saved is None:
            return None
        try:
            checkpoint = decode_checkpoint(saved)
        except (msgspec.DecodeError, RecursionError):
            log.warning("game %s: its checkpoint is unreadable, replaying its whole log", game.id)
            return None
        if checkpoint.actions > game.version:
            return None
        return with_progress(checkpoint, progress)

    async def checkpoint_texts(
        self, conn: AsyncConnection, game_id: str
    ) -> tuple[str | None, str | None]:
        """The game's stored checkpoint and round's progress as they are stored (JSON text),
        each None when there is none."""
        row = (await conn.execute(_CHECKPOINT, {"b_game": game_id})).first()
        return (None, None) if row is None else (row[0], row[1])

    async def event_rows(
        self, conn: AsyncConnection, game: GameRow, after: int, limit: int
    ) -> list[Any]:
        """Events after `after` up to the row's `event_seq` (read first: all committed)."""
        rows = await conn.execute(
            select(EVENTS.c.seq, EVENTS.c.visibility, EVENTS.c.payload)
            .where(
                EVENTS.c.game_id == game.id,
                EVENTS.c.seq > after,
                EVENTS.c.seq <= game.event_seq,
            )
            .order_by(EVENTS.c.seq)
            .limit(limit)
        )
        return list(rows.all())

    async def export_actions(self, conn: AsyncConnection, game: GameRow) -> list[ExportAction]:
        rows = (
            await conn.execute(
                select(ACTIONS.c.seq, ACTIONS.c.seat, ACTIONS.c.action)
                .where(ACTIONS.c.game_id == game.id, ACTIONS.c.seq <= game.version)
                .order_by(ACTIONS.c.seq)
            )
        ).all()
        bots = {
            r.seat
            for r in await conn.execute(
                select(SEATS.c.seat).where(SEATS.c.game_id == game.id, SEATS.c.bot.is_not(None))
            )
        }
        timed = {  # the actions the server played for a seat whose clock ran out
            (int(t["seat"]), seq)
            for t in game.timeouts or ()
            for seq in range(int(t["from"]) + 1, int(t["to"]) + 1)
        }
        hinted: set[tuple[int, int]] = set()  # each hint marks the seat's next action
        for r in await conn.execute(
            select(HINTS.c.seat, HINTS.c.version).where(HINTS.c.game_id == game.id)
        ):
            after = [a.seq for a in rows if a.seat == r.seat and a.seq > r.version]
            if after:
                hinted.add((r.seat, min(after)))
        return export_actions(rows, bots, hinted, timed)

    async def append(
        self, conn: AsyncConnection, game: Any, move: Move, kept: Kept | None = None
    ) -> None:
        """One action applied to `game` (its row as read under its lock): its log row, its
        events, the game's row moved to the next version, and the answer kept for its
        `Idempotency-Key`, in the caller's transaction; `LostUpdate` if the row is not at
        `game.version` any more."""
        await conn.execute(
            _ADD_ACTION,
            {
                "game_id": game.id,
                "seq": game.version + 1,
                "seat": move.seat,
                "action": action_document(move.action),
            },
        )
        if move.events:
            await conn.execute(_ADD_EVENTS, [_event_row(game.id, e) for e in move.events])
        moved = {
            "b_game": game.id,
            "b_read": game.version,
            "b_version": game.version + 1,
            "b_event_seq": game.event_seq + len(move.events),
            "b_status": move.status,
            "b_result": move.result,
            "b_bot_pending": move.bot_pending,
            "b_deadlines": move.deadlines,
            "b_deadline": move.deadline,
        }
        if move.checkpoint is not None:
            moved["b_checkpoint"] = encode_checkpoint(move.checkpoint)
        if move.progress is not None:
            moved["b_progress"] = encode_progress(move.progress)
        statement = _MOVES[move.checkpoint is not None, move.progress is not None, self.notify]
        done = await conn.execute(statement, moved)
        if done.rowcount != 1:
            raise LostUpdate(game.id)
        if kept is not None:
            await self.keep_answer(
                conn, game.id, move.seat, kept.key, kept.request_hash, kept.answer
            )

    # -- idempotency ----------------------------------------------------------------------

    async def kept_answer(
        self, conn: AsyncConnection, game_id: str, seat: int, key: str
    ) -> tuple[str, ActionOut] | None:
        """The request hash and answer kept for a seat's `Idempotency-Key`, if any."""
        row = (await conn.execute(_KEY, {"b_game": game_id, "b_seat": seat, "b_key": key})).first()
        return None if row is None else (row.request_hash, decode_answer(row.response))

    async def keep_answer(
        self,
        conn: AsyncConnection,
        game_id: str,
        seat: int,
        key: str,
        request_hash: str,
        answer: ActionOut,
    ) -> None:
        await conn.execute(
            _ADD_KEY,
            {
                "game_id": game_id,
                "seat": seat,
                "key": key,
                "request_hash": request_hash,
                "status": 200,
                "response": answer_document(answer),
            },
        )

    # -- stream tickets -------------------------------------------------------------------

    async def add_ticket(
        self,
        conn: AsyncConnection,
        ticket_hash: str,
        game_id: str,
        seat: int | None,
        seconds: int,
        holder_hash: str,
    ) -> None:
        """A ticket's hash (never the ticket) and its holder's (the token it was given to);
        expired tickets are deleted on the way."""
        now = datetime.now(UTC)
        await conn.execute(TICKETS.delete().where(TICKETS.c.expires_at < now))
        await conn.execute(
            insert(TICKETS).values(
                ticket_hash=ticket_hash,
                game_id=game_id,
                seat=seat,
                expires_at=now + timedelta(seconds=seconds),
                used=False,
                holder_hash=holder_hash,
            )
        )

    async def use_ticket(
        self, conn: AsyncConnection, game_id: str, ticket_hash: str, use: bool = True
    ) -> tuple[int, str | None] | None:
        """The seat and holder's hash of a valid, unused, unexpired ticket of this game, now
        used up (`use` false: left as it is, for a HEAD request)."""
        valid = (
            TICKETS.c.ticket_hash == ticket_hash,
            TICKETS.c.game_id == game_id,
            TICKETS.c.used.is_(False),
            TICKETS.c.expires_at > datetime.now(UTC),
        )
        if use:
            statement: Any = update(TICKETS).where(*valid).values(used=True)
            statement = statement.returning(TICKETS.c.seat, TICKETS.c.holder_hash)
        else:
            statement = select(TICKETS.c.seat, TICKETS.c.holder_hash).where(*valid)
        row = (await conn.execute(statement)).first()
        return None if row is None else (int(row.seat), row.holder_hash)

    async def drop_tickets(self, conn: AsyncConnection, game_id: str, seat: int) -> None:
        """Delete the seat's tickets (it changes hands: they were its last holder's)."""
        await conn.execute(
            TICKETS.delete().where(TICKETS.c.game_id == game_id, TICKETS.c.seat == seat)
        )


class GameRecord(asyncpg.Record):  # type: ignore[misc]  # asyncpg ships no types
    """A game's row as asyncpg reads it, read as SQLAlchemy's `Row` is (the service reads
    either): its columns by attribute, `_mapping`, `_asdict()`.

    Each column of a game read (`_GAME_COLUMNS`, and `token_seat`) is a property reading the
    record's item (an `itemgetter`: all in C), set below. A `__getattr__` reading the item
    made each attribute read fail the ordinary lookup first: an `AttributeError` built,
    formatted and dropped every time, about 30 a request and a tenth of a stored action's
    instructions (issue 27)."""

    @property
    def _mapping(self) -> dict[str, Any]:
        return dict(self.items())

    def _asdict(self) -> dict[str, Any]:
        return dict(self.items())


for _column in _GAME_COLUMNS:
    setattr(GameRecord, _column.name, property(operator.itemgetter(_column.name)))
#: the seat of the token read with the game (`_GAME_AND_SEAT`'s rows only: None in others)
GameRecord.token_seat = property(operator.methodcaller("get", "token_seat"))


def _compiled(statement: Select[Any]) -> tuple[str, tuple[str, ...]]:
    """A statement's PostgreSQL text for asyncpg and its parameters' names in order."""
    compiled = statement.compile(dialect=asyncpg_dialect())  # type: ignore[no-untyped-call]
    return str(compiled), tuple(compiled.positiontup or ())


_GAME_AND_SEAT_PG = {False: _compiled(_GAME_AND_SEAT), True: _compiled(_GAME_AND_SEAT_LOCKED)}
_GAME_PG = _compiled(_GAME)
_GAMES_AND_SEATS_PG = _compiled(_GAMES_AND_SEATS)
_NOW_PG = "SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) AS DOUBLE PRECISION)"
#: The columns of a new game's row that `add_game` is given (`GameService.insert_game`), in
#: `ADD_GAME_PG`'s order: its JSON ones as JSON texts (None as JSON null, as SQLAlchemy's
#: JSON columns store it), `sweep_at` the same parameter as `deadline` (`deadline_values`).
_NEW_GAME_PG = (
    ("id", ""),
    ("ruleset", ""),
    ("options", "::jsonb"),
    ("rules_version", ""),
    ("seed", ""),
    ("salt", ""),
    ("seed_commitment", ""),
    ("players", ""),
    ("status", ""),
    ("version", ""),
    ("event_seq", ""),
    ("result", "::jsonb"),
    ("creator_id", ""),
    ("bot_seed", ""),
    ("bot_pending", ""),
    ("hints", ""),
    ("created_with", "::jsonb"),
    ("seeded_by_creator", ""),
    ("clock", "::jsonb"),
    ("deadlines", "::jsonb"),
    ("deadline", "::timestamptz"),
    ("bot_owner", ""),
    ("checkpoint", ""),
    ("creator_token_hash", ""),
)
_JSON_COLUMNS = frozenset(name for name, cast in _NEW_GAME_PG if cast == "::jsonb")
_SEATS_PG = (
    ("seat", "integer"),
    ("name", "text"),
    ("token_hash", "text"),
    ("account_id", "text"),
    ("joined", "boolean"),
    ("bot", "text"),
    ("open", "boolean"),
    ("open_name", "text"),
    ("token_pending", "boolean"),
)
#: A new game written and committed by one statement in autocommit (a creation without a
#: key, a session or an account: `GameService.create_once`): its row (`$1`…`$24`, `sweep_at`
#: its deadline), its seats (`$25`, a JSON array of objects) and the events that start it
#: (`$26`, as `APPEND_PG`'s `events`). The seats' foreign keys are checked at the statement's
#: end, the game's row written by then (the events have none: migration 0018).
ADD_GAME_PG = f"""\
WITH g AS (
    INSERT INTO games ({", ".join(name for name, _ in _NEW_GAME_PG)}, sweep_at)
    VALUES ({", ".join(f"${i}{cast}" for i, (_, cast) in enumerate(_NEW_GAME_PG, 1))}, $21)
    RETURNING id
), s AS (
    INSERT INTO game_seats (game_id, {", ".join(name for name, _ in _SEATS_PG)})
    SELECT g.id, v.* FROM g,
        jsonb_to_recordset($25::jsonb) AS v({", ".join(f"{n} {t}" for n, t in _SEATS_PG)})
), e AS (
    INSERT INTO game_events (game_id, seq, kind, visibility, payload)
    SELECT g.id, (x.doc->>0)::integer, x.doc->1->>'kind', x.doc->2, x.doc->1
    FROM g, jsonb_array_elements($26::jsonb) AS x(doc)
)
SELECT id FROM g"""
_ACTIONS_PG = _compiled(_ACTIONS)
_CHECKPOINT_PG = _compiled(_CHECKPOINT)
_EVENT_ROWS_PG = _compiled(_EVENT_ROWS)
_decode_json = msgspec.json.decode


def _driver(conn: AsyncConnection) -> Any:
    """The asyncpg connection under `conn` (checked out: no I/O to reach it)."""
    return conn.sync_connection.connection.driver_connection  # type: ignore[union-attr]


def _broken(exc: BaseException, driver: Any) -> bool:
    """Whether `exc` leaves the connection unusable: closed, or mid-exchange (a statement
    the client stopped waiting for, a task cancelled in one: asyncpg's `command_timeout`
    issue 21 sets), as SQLAlchemy's `handle_error` hook judges its own statements
    (:func:`api.db.engine.create_engine`)."""
    return bool(
        driver.is_closed()
        or not isinstance(exc, Exception)
        or isinstance(
            exc, TimeoutError | OSError | asyncpg.InterfaceError | asyncpg.InternalClientError
        )
    )


async def _drop(conn: AsyncConnection, exc: BaseException) -> None:
    """Close the connection at once (a graceful close would wait up to two seconds more on
    a server that does not answer) and invalidate it: never returned to the pool."""
    if not conn.invalidated:
        _driver(conn).terminate()
        await conn.invalidate(exc if isinstance(exc, Exception) else None)


class PostgresGameRepository(GameRepository):
    """PostgreSQL's: the two hot paths, the read of a game with its caller's seat and an
    action's transaction, go to asyncpg directly (SQLAlchemy's statement execution cost
    about 100 µs of CPU a statement, as much as the round trip), with asyncpg's prepared
    statement cache; an action's whole write is one statement (`APPEND_PG`). The other
    statements stay SQLAlchemy's, on the same connection and in the same transaction.

    A statement's bounds are the connection's (issue 21): PostgreSQL's `statement_timeout`
    and asyncpg's `command_timeout`; a connection a statement broke is invalidated here,
    as SQLAlchemy does for its own, and the error (asyncpg's) is the one
    :func:`api.db.engine.unavailable` names."""

    hot = True

    def __init__(
        self,
        engine: AsyncEngine,
        group_commit: float = 0.0,
        refusals: tuple[type[BaseException], ...] = (),
    ) -> None:
        super().__init__(notify=True)
        #: SQLAlchemy begins and commits nothing on these connections: `acting` does. Half
        #: the pool at most is kept checked out between uses (the rest serves everything else).
        self.held = HeldConnections(engine, held_size(engine))
        #: Actions' shared commits (None: each action commits alone).
        self.group_commit = (
            GroupCommit(self, engine, group_commit, refusals) if group_commit > 0 else None
        )
        #: Hot actions' shared statements (with shared commits only).
        self.hot_writes = HotWrites(self, together=group_commit > 0)
        #: Seats' reads of their games, shared likewise.
        self.seat_reads = SharedReads(self, together=group_commit > 0)

    async def transact(
        self, engine: AsyncEngine, game_id: str, body: Callable[[AsyncConnection], Awaitable[_T]]
    ) -> _T:
        """With shared commits, `body` joins a batch (:class:`GroupCommit`)."""
        if self.group_commit is None:
            return await super().transact(engine, game_id, body)
        return await self.group_commit.run(game_id, body)

    @asynccontextmanager
    async def acting(self, engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
        """An action's transaction, begun and committed by asyncpg: SQLAlchemy's connection
        is in autocommit mode, so what it executes inside (the cold paths: a replay's log, a
        kept answer) runs in this transaction without a BEGIN of its own."""
        on_write = self.on_write
        if on_write is not None:
            on_write()
        try:
            async with self._acting() as conn:
                yield conn
        finally:
            if on_write is not None:
                on_write()

    @asynccontextmanager
    async def _acting(self) -> AsyncIterator[AsyncConnection]:
        async with self.held.connect() as conn:
            driver = _driver(conn)
            try:
                transaction = driver.transaction()  # raises on a closed connection
                await transaction.start()
            except BaseException as exc:
                if _broken(exc, driver):
                    await _drop(conn, exc)
                raise
            try:
                yield conn
            except BaseException as exc:
                if _broken(exc, driver) or conn.invalidated:
                    await _drop(conn, exc)
                else:
                    try:
                        await transaction.rollback()
                    except BaseException as failed:
                        await _drop(conn, failed)
                raise
            try:
                await transaction.commit()
            except BaseException as exc:
                await _drop(conn, exc)  # committed or not: the connection is not reused
                raise

    async def _fetch(
        self,
        conn: AsyncConnection,
        sql: str,
        args: Sequence[Any],
        record: type[Any] | None = None,
    ) -> list[Any]:
        """asyncpg's rows of `sql`; a connection the statement broke is dropped."""
        driver = _driver(conn)
        try:
            return list(await driver.fetch(sql, *args, record_class=record))
        except BaseException as exc:
            if _broken(exc, driver):
                await _drop(conn, exc)
            raise

    async def _fetchrow(
        self, conn: AsyncConnection, sql: str, args: Sequence[Any], record: type[Any] | None
    ) -> Any:
        driver = _driver(conn)
        try:
            return await driver.fetchrow(sql, *args, record_class=record)
        except BaseException as exc:
            if _broken(exc, driver):
                await _drop(conn, exc)
            raise

    async def game(self, conn: AsyncConnection, game_id: str, lock: bool = False) -> GameRow | None:
        """A spectator's or a stream's read through asyncpg; a locked read stays SQLAlchemy's:
        it is the first statement of transactions SQLAlchemy begins (with that statement)."""
        if lock:
            return await super().game(conn, game_id, lock)
        if not HEX_ID.fullmatch(game_id):
            return None
        return await self._fetchrow(conn, _GAME_PG[0], (game_id,), GameRecord)

    async def game_and_seat(
        self, conn: AsyncConnection, game_id: str, digest: str, lock: bool = False
    ) -> GameRow | None:
        """Through asyncpg: with `lock`, only in :meth:`acting`'s transaction."""
        if not HEX_ID.fullmatch(game_id):
            return None
        sql, names = _GAME_AND_SEAT_PG[lock]
        values = {"b_game": game_id, "b_digest": digest}
        return await self._fetchrow(conn, sql, [values[n] for n in names], GameRecord)

    async def game_and_seat_held(self, game_id: str, digest: str) -> GameRow | None:
        """:meth:`game_and_seat` on a held connection (:class:`SharedReads`, alone)."""
        if not HEX_ID.fullmatch(game_id):
            return None
        async with self.held.connect() as conn:
            return await self.game_and_seat(conn, game_id, digest)

    async def games_and_seats(
        self, keys: Sequence[tuple[str, str]]
    ) -> dict[tuple[str, str], GameRow]:
        """Several (game, token hash) pairs read in one statement, as :meth:`game_and_seat`
        reads each (:class:`SharedReads`); a game that does not exist has no row, nor a pair
        whose id or hash is not hexadecimal (never a token's hash)."""
        keys = [key for key in keys if HEX_ID.fullmatch(key[0]) and _DIGEST.fullmatch(key[1])]
        if not keys:
            return {}
        pairs = [{"game": game, "digest": digest} for game, digest in keys]
        values = {"b_keys": _ENCODE(pairs).decode()}
        sql, names = _GAMES_AND_SEATS_PG
        async with self.held.connect() as conn:
            rows = await self._fetch(conn, sql, [values[n] for n in names], GameRecord)
        return {(row["id"], row["key_digest"]): row for row in rows}

    async def actions(
        self, conn: AsyncConnection, game_id: str, after: int, upto: int
    ) -> list[tuple[int, Action]]:
        """A cold load's log through asyncpg (SQLAlchemy's rows cost 2.3 µs each, asyncpg's
        a fraction of it). Never the first statement of a transaction SQLAlchemy begins: a
        replay reads its game's row first."""
        sql, names = _ACTIONS_PG
        values = {"b_game": game_id, "b_after": after, "b_upto": upto}
        rows = await self._fetch(conn, sql, [values[n] for n in names])
        return [(row[0], decode_action(row[1])) for row in rows]

    async def event_rows(
        self, conn: AsyncConnection, game: GameRow, after: int, limit: int
    ) -> list[Any]:
        """The events' read (pages, streams) through asyncpg, their JSON decoded by msgspec."""
        sql, names = _EVENT_ROWS_PG
        values = {"b_game": game.id, "b_after": after, "b_upto": game.event_seq, "b_limit": limit}
        rows = await self._fetch(conn, sql, [values[n] for n in names])
        return [
            EventRow(seq, None if seen is None else _decode_json(seen), _decode_json(payload))
            for seq, seen, payload in rows
        ]

    async def checkpoint_texts(
        self, conn: AsyncConnection, game_id: str
    ) -> tuple[str | None, str | None]:
        row = await self._fetchrow(conn, _CHECKPOINT_PG[0], (game_id,), None)
        return (None, None) if row is None else (row[0], row[1])

    def connected(self) -> AbstractAsyncContextManager[AsyncConnection]:
        """A pooled connection in autocommit mode, outside any transaction (the hot action:
        its one statement is its transaction)."""
        return self.held.connect()

    async def append(
        self, conn: AsyncConnection, game: Any, move: Move, kept: Kept | None = None
    ) -> None:
        notified = await self._fetchrow(conn, APPEND_PG, self._append_args(game, move, kept), None)
        if notified is None:
            raise LostUpdate(game.id)

    async def add_game_alone(
        self,
        engine: AsyncEngine,
        game: dict[str, Any],
        seats: list[dict[str, Any]],
        events: Sequence[StoredEvent] = (),
    ) -> None:
        """:meth:`add_game` in one statement (`ADD_GAME_PG`), its own transaction, on a
        held connection: SQLAlchemy's three statements, BEGIN and COMMIT cost a creation a
        third of its CPU. `engine` is not used."""
        args: list[Any] = [
            _json(game[name]) if name in _JSON_COLUMNS else game[name] for name, _ in _NEW_GAME_PG
        ]
        args.append(_ENCODE([{n: s[n] for n, _ in _SEATS_PG} for s in seats]).decode())
        args.append(_json(events))
        async with self.held.connect() as conn:
            await self._fetchrow(conn, ADD_GAME_PG, args, None)

    async def now_hot(self, conn: AsyncConnection) -> float:
        """The database's clock (:meth:`now`) through asyncpg: a clocked hot action's first
        round trip, its new turns' start."""
        return float((await self._fetchrow(conn, _NOW_PG, (), None))[0])

    async def append_hot(self, game: Any, move: Move, digest: str) -> bool:
        """The action written and committed by one statement, alone or with other games'
        (:class:`HotWrites`), if the game is still active at `game.version` and `digest` is
        the hash of the acting seat's token and none of the game's turn clocks has run out;
        False (nothing written) if not."""
        args = (*self._append_args(game, move, None), digest)
        return await self.hot_writes.write(game.id, args)

    async def write_hot(self, args: tuple[Any, ...]) -> bool:
        """One game's hot action (`APPEND_HOT_PG`): whether it was written."""
        async with self.held.connect() as conn:
            return await self._fetchrow(conn, APPEND_HOT_PG, args, None) is not None

    async def write_hot_many(self, rows: Sequence[tuple[Any, ...]]) -> set[str]:
        """Several games' hot actions (`APPEND_HOT_MANY_PG`, `rows` in their games' id order):
        the ids of the games written."""
        doc = _ENCODE([_hot_many(args) for args in rows]).decode()
        async with self.held.connect() as conn:
            written = await self._fetch(conn, APPEND_HOT_MANY_PG, [doc])
        return {row[0] for row in written}

    @staticmethod
    def _append_args(game: Any, move: Move, kept: Kept | None) -> tuple[Any, ...]:
        checkpoint = None if move.checkpoint is None else encode_checkpoint(move.checkpoint)
        progress = None if move.progress is None else encode_progress(move.progress)
        return (
            game.id,
            game.version,
            game.event_seq + len(move.events),
            move.status,
            _json(move.result),
            move.bot_pending,
            _json(move.deadlines),
            move.deadline,
            checkpoint,
            move.seat,
            _json(action_document(move.action)),
            _json(move.events),
            None if kept is None else kept.key,
            None if kept is None else kept.request_hash,
            None if kept is None else _json(answer_document(kept.answer)),
            progress,
        )


def _json(value: Any) -> str:
    """A JSONB parameter's text (None: JSON null, as the models' JSON columns store it)."""
    if value is None:  # most of them: an active game's result, an unclocked one's deadlines
        return "null"
    return msgspec.json.encode(value).decode()


#: A shared write's errors that are its actions' own: it waited its whole time (a lock
#: held, the database stuck), and writing them again apart would wait as long again.
_WAITED_OUT = (asyncpg.QueryCanceledError, asyncpg.LockNotAvailableError)


def _waited_out(exc: BaseException) -> bool:
    """Whether `exc` is one of `_WAITED_OUT`, asyncpg's own or wrapped by SQLAlchemy."""
    if isinstance(exc, DBAPIError) and exc.orig is not None:
        return isinstance(exc.orig.__cause__ or exc.orig, _WAITED_OUT)
    return isinstance(exc, _WAITED_OUT)


class _Entry(Generic[_T]):
    """One action of a batch: its body, and what the batch found (`error`: a refusal, which
    wrote nothing)."""

    __slots__ = ("body", "error", "future", "value")

    def __init__(
        self, body: Callable[[AsyncConnection], Awaitable[_T]], future: asyncio.Future[bool]
    ) -> None:
        self.body = body
        #: True: answered by the batch (`value` or `error`); False: to run alone.
        self.future = future
        self.value: _T | None = None
        self.error: BaseException | None = None


class _Batch:
    """Actions sharing one transaction, by game (one action per game: a batch never reads a
    game it moved)."""

    def __init__(self) -> None:
        self.entries: dict[str, _Entry[Any]] = {}
        self.timer: asyncio.TimerHandle | None = None
        self.started = False
        self.done = asyncio.Event()


class GroupCommit:
    """Shared commits done by the application (issue 27), PostgreSQL's: an action that finds
    no transaction of this class under way runs at once, alone (one game alone waits for
    nobody); the actions that arrive while one is under way wait for the next batch, which
    starts when none is under way or `window` seconds after its first action came, whichever
    is first.

    A batch is one transaction on one connection: each action's body (its locked read, the
    engine, its one statement) in the order of the games' ids, so that two batches lock
    rows in the same order and never deadlock; then one COMMIT, after which each action is
    answered, its NOTIFY sent by the commit as before. A refusal (an exception of
    `refusals`: raised before the body writes anything) answers its action and the batch
    goes on. Any other error may have aborted the transaction: the batch is rolled back and
    each of its actions but the refused ones runs again in a transaction of its own, as
    without shared commits (so a failing action cannot lose the others), but for a statement
    timeout (or a lock timeout: `_WAITED_OUT`), which is each action's error: running them
    again would wait as long again, each on a connection of its own. A COMMIT that fails
    answers every action that was not refused with its error, as it would answer one action
    (and whether it committed or not, as there, the connection is not reused)."""

    def __init__(
        self,
        repository: GameRepository,
        engine: AsyncEngine,
        window: float,
        refusals: tuple[type[BaseException], ...],
    ) -> None:
        self.repository = repository
        self.engine = engine
        self.window = window
        self.refusals = refusals
        self._open: _Batch | None = None
        self._running = 0
        #: The batches being committed (:meth:`api.games.service.GameService.close` awaits
        #: them before the engine goes).
        self.tasks: set[asyncio.Task[None]] = set()
        #: Batches committed, the actions they answered, batches rolled back (tests).
        self.batches = 0
        self.shared = 0
        self.rolled_back = 0

    async def run(self, game_id: str, body: Callable[[AsyncConnection], Awaitable[_T]]) -> _T:
        if self._open is None and not self._running:  # nothing under way: alone, at once
            self._running += 1
            try:
                async with self.repository.acting(self.engine) as conn:
                    return await body(conn)
            finally:
                self._finished()
        loop = asyncio.get_running_loop()
        while True:
            batch = self._open
            if batch is None:
                batch = self._open = _Batch()
                batch.timer = loop.call_later(self.window, self._start, batch)
            if game_id not in batch.entries:
                break
            await batch.done.wait()  # the game's action in it first, then the next batch
        entry: _Entry[_T] = _Entry(body, loop.create_future())
        batch.entries[game_id] = entry
        if not await entry.future:
            async with self.repository.acting(self.engine) as conn:
                return await body(conn)
        if entry.error is not None:
            raise entry.error
        return entry.value  # type: ignore[return-value]  # set when there is no error

    def _start(self, batch: _Batch) -> None:
        if batch.started:
            return
        batch.started = True
        if batch.timer is not None:
            batch.timer.cancel()
        if self._open is batch:
            self._open = None
        self._running += 1
        task = asyncio.create_task(self._flush(batch))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _flush(self, batch: _Batch) -> None:
        entries = [batch.entries[k] for k in sorted(batch.entries)]
        aborted = False
        try:
            try:
                async with self.repository.acting(self.engine) as conn:
                    for entry in entries:
                        if entry.future.done():  # its request went first: never applied
                            continue
                        try:
                            entry.value = await entry.body(conn)
                        except self.refusals as exc:
                            entry.error = exc
                        except Exception:
                            aborted = True  # rolled back by `acting`
                            raise
            except Exception as exc:
                if aborted and not _waited_out(exc):
                    self.rolled_back += 1  # the refused ones keep their answer: they only read
                    for entry in entries:
                        _answer(entry, entry.error is not None)
                    return
                for entry in entries:  # BEGIN or COMMIT failed, or the batch waited out
                    entry.error = entry.error or exc
                    _answer(entry, True)
                return
            except BaseException:
                for entry in entries:
                    entry.future.cancel()
                raise
            self.batches += 1
            self.shared += len(entries)
            for entry in entries:
                _answer(entry, True)
        finally:
            batch.done.set()
            self._finished()

    def _finished(self) -> None:
        """A transaction ended: the next batch starts now if none is under way."""
        self._running -= 1
        waiting = self._open
        if not self._running and waiting is not None:
            self._start(waiting)


_Waiting: TypeAlias = dict[str, tuple[tuple[Any, ...], "asyncio.Future[bool]"]]
_K = TypeVar("_K")
_W = TypeVar("_W")


class _OneAtATime(Generic[_K, _W]):
    """What :class:`HotWrites` and :class:`SharedReads` share: one statement under way at a
    time; what comes meanwhile waits (`_waiting`, by key) and goes together when it ends
    (:meth:`_flush`, in a task of its own), never joining a statement already under way."""

    def __init__(self, repository: PostgresGameRepository, together: bool = True) -> None:
        self.repository = repository
        #: Shared (with shared commits on); else each goes alone, at once.
        self.together = together
        #: The shared statement under way (None: the one under way, if any, is alone).
        self._flushing: asyncio.Task[None] | None = None
        self._running = False
        self._waiting: dict[_K, _W] = {}
        #: Set by :meth:`stop` (a shutdown past its grace): nothing more goes together.
        self._stopped = False
        #: The shared statements under way (:meth:`api.games.service.GameService.close`).
        self.tasks: set[asyncio.Task[None]] = set()

    @staticmethod
    def _future(waiter: _W) -> asyncio.Future[Any]:
        """The future a waiter is answered by."""
        raise NotImplementedError

    async def _flush(self, waiting: dict[_K, _W]) -> None:
        """Those waiting, together; each answered (its future), then :meth:`_next` if this
        task is still the one under way."""
        raise NotImplementedError

    def stop(self) -> None:
        """A shutdown past its grace: those waiting are cancelled, and any that comes goes
        alone."""
        self._stopped = True
        waiting, self._waiting = self._waiting, {}
        for waiter in waiting.values():
            self._future(waiter).cancel()

    def _next(self) -> None:
        """A statement ended: those waiting go now, together."""
        self._running = False
        self._flushing = None
        if not self._waiting:
            return
        waiting, self._waiting = self._waiting, {}
        self._running = True
        task = self._flushing = asyncio.create_task(self._flush(waiting))
        self.tasks.add(task)
        task.add_done_callback(lambda done: self._ended(done, waiting))

    def _ended(self, task: asyncio.Task[None], waiting: dict[_K, _W]) -> None:
        """A shared statement's task ended, perhaps cancelled before it ever ran (its own
        `finally` never ran then): none of those it held is left waiting, nor the next ones."""
        self.tasks.discard(task)
        for waiter in waiting.values():
            future = self._future(waiter)
            if not future.done():
                future.cancel()
        if self._flushing is task:
            self._next()


class HotWrites(_OneAtATime[str, tuple[tuple[Any, ...], "asyncio.Future[bool]"]]):
    """Shared commits for hot actions (issue 27): an action that finds no hot write under
    way is written at once, alone (`APPEND_HOT_PG`: one game alone waits for nobody); the
    actions of other games that arrive while one is under way wait for it to end, then are
    written together by one statement (`APPEND_HOT_MANY_PG`: one round trip, one commit for
    them all), and each is answered once that statement committed. One write is under way
    at a time: a write that waits (a row lock another transaction holds, up to the statement
    timeout) delays every hot action of the process meanwhile.

    That statement is its own transaction, so an error PostgreSQL answers for it
    (`asyncpg.PostgresError`: a deadlock, a constraint, a failing trigger) means that it
    wrote nothing: each of its actions is answered False and takes the locked path, in a
    transaction of its own, as when another replica moved its game; an action that fails
    there fails alone. Its statement timeout (or a lock timeout) is each of its actions'
    error, as is any other error (the connection lost: whether it committed is not known).
    So when the database is stuck, an action that waited for the write under way may wait
    twice the statement timeout before its 503. An action written alone answers its errors as
    before. An action whose request went while it waited is not written. A game has at most
    one hot action under way in a process (the service holds its match meanwhile); should a
    second come (its first's request went while it waited), it is written alone. Not
    `together` (shared commits off), each action is written alone, at once."""

    def __init__(self, repository: PostgresGameRepository, together: bool = True) -> None:
        super().__init__(repository, together)
        #: Statements of several actions committed, the actions they held, and statements
        #: of several actions PostgreSQL refused (tests).
        self.batches = 0
        self.shared = 0
        self.refused = 0

    async def write(self, game_id: str, args: tuple[Any, ...]) -> bool:
        """Whether the action was written (`APPEND_HOT_PG`'s checks)."""
        if not self.together or self._stopped:
            return await self.repository.write_hot(args)
        if self._running and game_id not in self._waiting:
            future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
            self._waiting[game_id] = (args, future)
            return await future
        if self._running:  # see the class: alone, beside the others
            return await self.repository.write_hot(args)
        self._running = True
        try:
            return await self.repository.write_hot(args)
        finally:
            self._next()

    @staticmethod
    def _future(waiter: tuple[tuple[Any, ...], asyncio.Future[bool]]) -> asyncio.Future[Any]:
        return waiter[1]

    async def _flush(self, waiting: _Waiting) -> None:
        live = sorted((g, w) for g, w in waiting.items() if not w[1].done())
        try:
            written: set[str] = set()
            if len(live) == 1:
                game_id, (args, _) = live[0]
                if await self.repository.write_hot(args):
                    written.add(game_id)
            elif live:
                try:
                    written = await self.repository.write_hot_many([a for _, (a, _) in live])
                except _WAITED_OUT:
                    raise  # the locked path would wait as long again: each action's error
                except asyncpg.PostgresError:
                    self.refused += 1
                else:
                    self.batches += 1
                    self.shared += len(live)
            for game_id, (_, future) in live:
                if not future.done():
                    future.set_result(game_id in written)
        except Exception as exc:
            for _, (_, future) in live:
                if not future.done():
                    future.set_exception(exc)
        finally:
            if self._flushing is asyncio.current_task():
                self._next()


_Reads: TypeAlias = dict[tuple[str, str], "asyncio.Future[GameRow | None]"]


class SharedReads(_OneAtATime[tuple[str, str], "asyncio.Future[GameRow | None]"]):
    """Shared reads of games by their seats (issue 27: a seat reads its view before nearly
    every action it makes), as :class:`HotWrites` shares writes: a read that finds none
    under way goes at once, alone (one game alone waits for nobody); the reads that arrive
    while one is under way wait for it to end, then go together in one statement
    (`_GAMES_AND_SEATS`: one round trip for them all), each answered with its own row. A
    read that waits joins only a statement that starts after it arrived: it sees every
    action committed before it was asked, as a read of its own would. Two reads of one game
    by one token that wait together share one row. A read whose request went while it
    waited is still made for the others (its row is dropped); an error is each waiting
    read's. One read is under way at a time: a read that waits (for a connection when the
    pool is exhausted, up to its timeout; or a stuck database, up to the statement timeout)
    delays every seat's read of the process meanwhile, which may then wait as long again
    for its own statement. Not `together`, each read goes alone."""

    def __init__(self, repository: PostgresGameRepository, together: bool = True) -> None:
        super().__init__(repository, together)
        #: Statements of several reads made, and the reads they held (tests).
        self.batches = 0
        self.shared = 0

    async def read(self, game_id: str, digest: str) -> GameRow | None:
        """The game's row and the token's seat (`token_seat`), as
        :meth:`PostgresGameRepository.game_and_seat` reads them; None: no such game."""
        if not self.together or self._stopped:
            return await self.repository.game_and_seat_held(game_id, digest)
        if self._running:
            key = (game_id, digest)
            future = self._waiting.get(key)
            if future is None:
                future = self._waiting[key] = asyncio.get_running_loop().create_future()
                future.add_done_callback(_retrieved)
            return await asyncio.shield(future)  # another waiter's cancellation is not ours
        self._running = True
        try:
            return await self.repository.game_and_seat_held(game_id, digest)
        finally:
            self._next()

    @staticmethod
    def _future(waiter: asyncio.Future[GameRow | None]) -> asyncio.Future[Any]:
        return waiter

    async def _flush(self, waiting: _Reads) -> None:
        try:
            keys = list(waiting)
            if len(keys) == 1:
                rows = {keys[0]: await self.repository.game_and_seat_held(*keys[0])}
            else:
                rows = await self.repository.games_and_seats(keys)
                self.batches += 1
                self.shared += len(keys)
            for key, future in waiting.items():
                if not future.done():
                    future.set_result(rows.get(key))
        except Exception as exc:
            for future in waiting.values():
                if not future.done():
                    future.set_exception(exc)
        finally:
            if self._flushing is asyncio.current_task():
                self._next()


def _retrieved(future: asyncio.Future[Any]) -> None:
    """A shared read's outcome marked seen: its waiters' requests may all have gone."""
    if not future.cancelled():
        future.exception()


def _answer(entry: _Entry[Any], shared: bool) -> None:
    if not entry.future.done():  # its request may have gone
        entry.future.set_result(shared)


def repository_for(
    engine: AsyncEngine,
    group_commit: float = 0.0,
    refusals: tuple[type[BaseException], ...] = (),
) -> GameRepository:
    """The games' storage for the engine's database: PostgreSQL's (with actions' shared
    commits when `group_commit`, the seconds an action may wait for others, is above 0, an
    exception of `refusals` being one raised before an action writes), or the portable one."""
    if engine.dialect.name == "postgresql":
        return PostgresGameRepository(engine, group_commit, refusals)
    return GameRepository(notify=False)
