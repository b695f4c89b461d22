"""Stored games: create, read, act, events, abandon, export (api-contract.md, "Stored games").

A game is its match record: ruleset, options (defaults written out), rules version, seed,
players, and the append-only action log (`game_actions`, one row per action, `seq` = the
version it produced). The events each action made are stored beside it (`game_events`, with
the seats that may see each), so `events?after=N` is one read of the primary key.

Every JSON column (an action, an event, the checkpoint, a keyed answer) is written and read
by :mod:`api.games.formats`, the stored formats with a version, whose readers ignore the
fields a newer replica added (issue 22, STYLE 16).

The current match is rebuilt from the log and kept in a per-process cache keyed by game **and
version**: whatever another replica did, a cached match is used only if its version is the
row's, so it always equals the replay of the log. A rebuild starts from the checkpoint the
action that began the current round saved (`games.checkpoint`, :class:`MatchCheckpoint`) and
applies that round's actions only; without a usable checkpoint, the whole log is replayed
(:func:`engine.core.match.replay`). Reads take no transaction on PostgreSQL (see `reader`).

One transaction per action: lock the game row (`SELECT … FOR UPDATE`; on SQLite every
transaction is `BEGIN IMMEDIATE`), authenticate the seat, check `Idempotency-Key` and
`If-Match`, apply the action to the match, append the action and its events, bump the
version, commit. The cached match is taken out of the cache before it is changed and put
back only after the commit, so an error at any point leaves neither a partial game in the
database nor a changed match in the cache.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import hmac
import logging
import re
import secrets
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
from sqlalchemy import (
    Row,
    Select,
    Text,
    Update,
    bindparam,
    cast,
    func,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from api.accounts.sessions import (
    SESSIONS,
    Caller,
    accounts_by_pseudo,
    community_locked,
    is_community,
    lock_account,
)
from api.db.models import (
    Game,
    GameAction,
    GameEvent,
    GameSeat,
    IdempotencyKey,
    StreamTicket,
    table,
)
from api.games.fanout import CHANNEL, Fanout
from api.games.formats import (
    EXPORT_FORMAT,
    action_document,
    answer_document,
    decode_action,
    decode_answer,
    decode_checkpoint,
    encode_checkpoint,
    event_document,
    event_out,
    export_actions,
)
from api.games.schemas import (
    AbandonOut,
    ActionOut,
    CreateGame,
    EventsOut,
    ExportOut,
    GameCreated,
    GameOut,
    SeatJoined,
    SeatOut,
    SeatToken,
    TicketOut,
)
from api.http.body import check_ruleset
from api.http.problems import (
    FieldProblem,
    Problem,
    ProblemError,
    engine_problem,
    make_problem,
    shorten,
)
from api.http.tokens import SEAT_PREFIX, check_name, new_id, new_token, token_hash, unauthorized
from engine import registry
from engine.core.actions import Action
from engine.core.cards import check_cards
from engine.core.errors import EngineError, IllegalMove, InvalidInput
from engine.core.match import Match, MatchCheckpoint, MatchRecord, replay

GAMES = table(Game)
SEATS = table(GameSeat)
ACTIONS = table(GameAction)
EVENTS = table(GameEvent)
KEYS = table(IdempotencyKey)
TICKETS = table(StreamTicket)


def ruleset_actions(ruleset_id: str) -> tuple[str, ...]:
    """The action types a ruleset has, as its spec declares them (engine/core/actions.py):
    another type can never be legal in that game, so it is a 422 on the body's `type`, not a
    409 `wrong-phase`."""
    return registry.spec(ruleset_id).actions


#: 409 reasons: who may act and when is a status, not an illegal move (the contract).
STATUS_REASONS = {"not-your-turn", "wrong-phase", "game-over"}
TICKET_SECONDS = 60
GAME_ID = re.compile(r"[0-9a-f]{32}")
EVENTS_PAGE = 1000
log = logging.getLogger("numrules.games")

# The statements of the hot paths (reading a game, acting), built once with bound parameters:
# SQLAlchemy then reuses their cache keys and compiled forms, and an action or a read pays for
# none of the statement building (about half of an action's CPU time when built per call).
#: Every column of a game but its checkpoint, which only a cold load reads (`_CHECKPOINT`).
_GAME_COLUMNS = [c for c in GAMES.c if c.name != "checkpoint"]
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
_SEAT_BY_TOKEN = select(SEATS.c.seat, SEATS.c.token_hash).where(
    SEATS.c.game_id == bindparam("b_game"), SEATS.c.token_hash == bindparam("b_digest")
)
_NAMES = select(SEATS.c.name).where(SEATS.c.game_id == bindparam("b_game")).order_by(SEATS.c.seat)
_KEY = select(KEYS.c.request_hash, KEYS.c.response).where(
    KEYS.c.game_id == bindparam("b_game"),
    KEYS.c.seat == bindparam("b_seat"),
    KEYS.c.key == bindparam("b_key"),
)
_ADD_ACTION = insert(ACTIONS)
_ADD_EVENTS = insert(EVENTS)
_ADD_KEY = insert(KEYS)
#: The log from `b_after` (exclusive) to `b_upto` (inclusive), for a replay or a catch-up.
_ACTIONS = (
    select(ACTIONS.c.seat, cast(ACTIONS.c.action, Text).label("action"))
    .where(
        ACTIONS.c.game_id == bindparam("b_game"),
        ACTIONS.c.seq > bindparam("b_after"),
        ACTIONS.c.seq <= bindparam("b_upto"),
    )
    .order_by(ACTIONS.c.seq)
)
_CHECKPOINT = select(GAMES.c.checkpoint).where(GAMES.c.id == bindparam("b_game"))
# A replay reads the log's and the checkpoint's JSON text and decodes it straight into the
# engine's types (api.games.formats): 0.3 µs an action, where `msgspec.convert` of the
# decoded dict took 10 µs.


def _move(checkpoint: bool, notify: bool) -> Update:
    """The game's row after an action; with the new round's checkpoint when the action started
    a round; on PostgreSQL with the game's NOTIFY in the same statement (a round trip fewer)."""
    values: dict[str, Any] = {
        "version": bindparam("b_version"),
        "event_seq": bindparam("b_event_seq"),
        "status": bindparam("b_status"),
        "result": bindparam("b_result", type_=GAMES.c.result.type),
        "updated_at": func.now(),
    }
    if checkpoint:
        values["checkpoint"] = bindparam("b_checkpoint")
    moved = update(GAMES).where(GAMES.c.id == bindparam("b_game")).values(**values)
    return moved.returning(func.pg_notify(CHANNEL, GAMES.c.id)) if notify else moved


#: `_MOVES[checkpoint, notify]`.
_MOVES = {(c, n): _move(c, n) for c in (False, True) for n in (False, True)}


def commitment(seed: int, salt: str) -> str:
    """The contract's `seed_commitment`: lowercase hex sha256 of ``"<seed>:<salt>"``."""
    return hashlib.sha256(f"{seed}:{salt}".encode()).hexdigest()


def _not_found(game_id: str) -> ProblemError:
    return ProblemError(404, "not-found", f"no game {shorten(game_id)!r}")


def _visible(visibility: Sequence[int] | None, seat: int | None) -> bool:
    return visibility is None or (seat is not None and seat in visibility)


def _page(game: Row[Any], rows: list[Any], seat: int | None, after: int) -> EventsOut:
    """The page `seat` may see of the event rows after `after`."""
    events = [event_out(r.seq, r.payload) for r in rows if _visible(r.visibility, seat)]
    last = rows[-1].seq if rows else after
    return EventsOut(
        events=events,
        version=game.version,
        status=game.status,
        more=last < game.event_seq,
        next_after=last,
    )


@dataclass
class _Flight:
    """A read of a game's log that streams share (GameStore.events_for)."""

    started: float
    task: asyncio.Future[tuple[Row[Any], list[Any]]]


@dataclass
class _Cached:
    version: int
    match: Match


class GameStore:
    """The stored games of one database; `fanout` wakes their event streams."""

    def __init__(self, engine: AsyncEngine, fanout: Fanout, cache_size: int = 2048) -> None:
        self.engine = engine
        self.fanout = fanout
        self.notify = engine.dialect.name == "postgresql"
        #: Reads run without a transaction on PostgreSQL (no BEGIN and ROLLBACK round trips):
        #: each reads the game row first, then only what that row says is committed (the log
        #: up to its version, the events up to its `event_seq`), which never changes after.
        #: SQLite keeps transactions: its every transaction is `BEGIN IMMEDIATE` (api.db.engine).
        self.reader = (
            engine.execution_options(isolation_level="AUTOCOMMIT") if self.notify else engine
        )
        self.cache_size = cache_size
        self._cache: OrderedDict[str, _Cached] = OrderedDict()
        self._names_cache: OrderedDict[str, list[str]] = OrderedDict()
        self._flights: dict[tuple[str, int, int], _Flight] = {}
        #: How many reads of the log streams made (shared ones count once).
        self.shared_reads = 0
        #: Called after an action's rows are written, before the commit (tests inject faults).
        self.before_commit: Callable[[], None] | None = None

    # -- creating -------------------------------------------------------------------------

    async def create(self, body: CreateGame, caller: Caller | None = None) -> GameCreated:
        """Community lock (rules/app.md, Ruling): a community game (its spec says so) needs a
        session."""
        check_ruleset(body.ruleset)
        if is_community(body.ruleset) and caller is None:
            raise community_locked(body.ruleset)
        for i, player in enumerate(body.players):
            check_name(player.name, f"players[{i}].name")
        try:
            rules = registry.make(body.ruleset, body.options)
            seed = secrets.randbits(63) if body.seed is None else body.seed
            match = Match(rules, len(body.players), seed)
        except EngineError as exc:
            raise ProblemError.of(engine_problem(exc)) from None
        game_id = new_id()
        salt = secrets.token_hex(16)
        tokens = [new_token(SEAT_PREFIX) for _ in body.players]
        options: dict[str, Any] = msgspec.to_builtins(rules.options)
        async with self.engine.begin() as conn:
            if caller is not None:  # its deletion waits for the game (else 401, never a 500)
                await lock_account(conn, caller.account_id)
            accounts = await accounts_by_pseudo(conn, [p.account for p in body.players], "players")
            await conn.execute(
                insert(GAMES).values(
                    id=game_id,
                    ruleset=rules.id,
                    options=options,
                    rules_version=match.rules_version,
                    seed=seed,
                    salt=salt,
                    seed_commitment=commitment(seed, salt),
                    players=len(body.players),
                    status="active",
                    version=0,
                    event_seq=0,
                    result=None,
                    creator_id=None if caller is None else caller.account_id,
                )
            )
            await conn.execute(
                insert(SEATS),
                [
                    {
                        "game_id": game_id,
                        "seat": i,
                        "name": p.name,
                        "token_hash": token_hash(t),
                        "account_id": accounts[i],
                        "joined": False,
                    }
                    for i, (p, t) in enumerate(zip(body.players, tokens, strict=True))
                ],
            )
        self._put(game_id, 0, match)
        created = GameCreated(
            id=game_id,
            ruleset=rules.id,
            options=options,
            rules_version=match.rules_version,
            version=0,
            status="active",
            seed_commitment=commitment(seed, salt),
            seats=[
                SeatToken(seat=i, name=p.name, token=t, account=p.account)
                for i, (p, t) in enumerate(zip(body.players, tokens, strict=True))
            ],
            view=match.view(None),
        )
        return created

    # -- reading --------------------------------------------------------------------------

    async def get(self, game_id: str, token: str | None) -> GameOut:
        async with self.reader.connect() as conn:
            game, seat = await self._game_and_seat(conn, game_id, token)
            names = await self._names(conn, game_id)
            match = await self._match(conn, game)
            # Render now: the cached match is the object an action takes and changes (`_take`);
            # with no await between reading it and its view, no action can change it between.
            return self._game_out(game, seat, names, match)

    async def events(
        self, game_id: str, token: str | None, after: int, limit: int = EVENTS_PAGE
    ) -> EventsOut:
        async with self.reader.connect() as conn:
            game, seat = await self._game_and_seat(conn, game_id, token)
            return await self._events_page(conn, game, seat, after, limit)

    async def events_for(
        self,
        game_id: str,
        seat: int | None,
        after: int,
        limit: int = EVENTS_PAGE,
        since: float | None = None,
    ) -> EventsOut:
        """The events page of an already authenticated viewer (the event stream).

        With `since` (when the game was last published, `Fanout.published`: every action it
        announced was committed by then), the read is shared: streams of one game woken by
        one action join one read of the log, provided it started after `since`, so that it
        sees every action they were woken for (a read begun earlier might not). Each stream
        filters the shared rows by what its viewer may see.
        """
        if since is None:
            async with self.reader.connect() as conn:
                game = await self._game(conn, game_id)
                return await self._events_page(conn, game, seat, after, limit)
        key = (game_id, after, limit)
        flight = self._flights.get(key)
        if flight is None or flight.started < since:
            flight = _Flight(time.monotonic(), asyncio.ensure_future(self._read(key)))
            self._flights[key] = flight
            flight.task.add_done_callback(lambda _: self._land(key, flight))
        game, rows = await asyncio.shield(flight.task)
        return _page(game, rows, seat, after)

    def _land(self, key: tuple[str, int, int], flight: _Flight) -> None:
        if self._flights.get(key) is flight:
            del self._flights[key]

    async def _read(self, key: tuple[str, int, int]) -> tuple[Row[Any], list[Any]]:
        game_id, after, limit = key
        self.shared_reads += 1
        async with self.reader.connect() as conn:
            game = await self._game(conn, game_id)
            return game, await self._event_rows(conn, game, after, limit)

    async def _event_rows(
        self, conn: AsyncConnection, game: Row[Any], after: int, limit: int
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

    async def _events_page(
        self, conn: AsyncConnection, game: Row[Any], seat: int | None, after: int, limit: int
    ) -> EventsOut:
        return _page(game, await self._event_rows(conn, game, after, limit), seat, after)

    async def export(self, game_id: str, token: str | None = None) -> ExportOut:
        """The record of a game over or abandoned (public then); a token, if sent, must be one
        of its seats' (401 else, as everywhere)."""
        async with self.reader.connect() as conn:
            game = await self._game(conn, game_id)
            await self._seat(conn, game_id, token)
            if game.status == "active":
                raise ProblemError(
                    409,
                    "game-active",
                    "the game is still being played: its actions hold hidden cards; "
                    "the export is available once it is over or abandoned",
                )
            names = await self._names(conn, game_id)
            rows = (
                await conn.execute(
                    select(ACTIONS.c.seq, ACTIONS.c.seat, ACTIONS.c.action)
                    .where(ACTIONS.c.game_id == game_id, ACTIONS.c.seq <= game.version)
                    .order_by(ACTIONS.c.seq)
                )
            ).all()
        return ExportOut(
            id=game.id,
            ruleset=game.ruleset,
            options=game.options,
            rules_version=game.rules_version,
            status=game.status,
            players=[SeatOut(seat=i, name=n) for i, n in enumerate(names)],
            seed_commitment=game.seed_commitment,
            seed=game.seed,
            salt=game.salt,
            actions=export_actions(rows),
            result=game.result,
            v=EXPORT_FORMAT,
        )

    # -- acting ---------------------------------------------------------------------------

    async def act(
        self,
        game_id: str,
        token: str | None,
        action: Action,
        if_match: str | None,
        idempotency_key: str | None,
    ) -> tuple[ActionOut, bool]:
        """Apply `action` for the token's seat; returns the answer and whether it is the
        stored answer of an earlier request with the same `Idempotency-Key`."""
        if token is None:
            raise unauthorized("acting needs the seat's token: Authorization: Bearer <token>")
        request_hash = hashlib.sha256(msgspec.json.encode(action)).hexdigest()
        published = False
        async with self.engine.begin() as conn:
            game, seat = await self._game_and_seat(conn, game_id, token, lock=True)
            assert seat is not None
            if idempotency_key is not None:
                stored = (
                    await conn.execute(
                        _KEY, {"b_game": game_id, "b_seat": seat, "b_key": idempotency_key}
                    )
                ).first()
                if stored is not None:
                    if not hmac.compare_digest(stored.request_hash, request_hash):
                        raise ProblemError(
                            422,
                            "idempotency-key-reused",
                            "this Idempotency-Key was used by this seat for another action: "
                            "use a new key for a new action",
                        )
                    return decode_answer(stored.response), True
            if if_match is not None and not _etag_matches(if_match, game.version):
                raise ProblemError(
                    412,
                    "version-mismatch",
                    f"the game is at version {game.version}, not the one in If-Match "
                    f"({shorten(if_match)}): read it again",
                    headers={"ETag": f'"{game.version}"'},
                )
            if game.status != "active":
                raise ProblemError.of(
                    _status_problem("game-over", f"the game is {game.status}: no more actions")
                )
            kinds = ruleset_actions(game.ruleset)
            kind = type(action).__struct_config__.tag
            if kind not in kinds:
                message = f"{game.ruleset} has no {kind!r} action: its actions are " + ", ".join(
                    kinds
                )
                raise ProblemError(
                    422, "validation-error", f"type: {message}", [FieldProblem("type", message)]
                )
            _check_card_codes(game, action)
            match = await self._take(conn, game)
            index = match.index
            try:
                events = match.apply(seat, action)
            except EngineError as exc:
                self._put(game_id, game.version, match)  # a refused action changes nothing
                raise self._refusal(exc, match, seat) from None
            version = game.version + 1
            first = game.event_seq + 1
            stored_events = [(first + i, event_document(e), e.to) for i, e in enumerate(events)]
            result = match.result()
            await conn.execute(
                _ADD_ACTION,
                {
                    "game_id": game_id,
                    "seq": version,
                    "seat": seat,
                    "action": action_document(action),
                },
            )
            if stored_events:
                await conn.execute(
                    _ADD_EVENTS,
                    [
                        {
                            "game_id": game_id,
                            "seq": seq,
                            "kind": payload["kind"],
                            "visibility": to,
                            "payload": payload,
                        }
                        for seq, payload, to in stored_events
                    ],
                )
            moved = {
                "b_game": game_id,
                "b_version": version,
                "b_event_seq": game.event_seq + len(stored_events),
                "b_status": "over" if result is not None else "active",
                "b_result": None if result is None else msgspec.to_builtins(result),
            }
            started = result is None and match.index != index  # a new round: its checkpoint
            if started:
                moved["b_checkpoint"] = encode_checkpoint(match.checkpoint())
            await conn.execute(_MOVES[started, self.notify], moved)
            published = self.notify
            answer = ActionOut(
                version=version,
                events=[
                    event_out(seq, payload)
                    for seq, payload, to in stored_events
                    if _visible(to, seat)
                ],
                view=match.view(seat),
            )
            if idempotency_key is not None:
                await conn.execute(
                    _ADD_KEY,
                    {
                        "game_id": game_id,
                        "seat": seat,
                        "key": idempotency_key,
                        "request_hash": request_hash,
                        "status": 200,
                        "response": answer_document(answer),
                    },
                )
            if self.before_commit is not None:
                self.before_commit()
        self._put(game_id, version, match)
        if not published:
            self.fanout.publish(game_id)
        return answer, False

    async def abandon(self, game_id: str, token: str | None) -> AbandonOut:
        if token is None:
            raise unauthorized("abandoning needs a seat's token: Authorization: Bearer <token>")
        async with self.engine.begin() as conn:
            game = await self._game(conn, game_id, lock=True)
            await self._seat(conn, game_id, token)
            if game.status != "active":
                raise ProblemError.of(
                    _status_problem("game-over", f"the game is already {game.status}")
                )
            await conn.execute(
                update(GAMES)
                .where(GAMES.c.id == game_id)
                .values(status="abandoned", updated_at=func.now())
            )
            if self.notify:
                await conn.execute(
                    text("SELECT pg_notify(:channel, :game)"), {"channel": CHANNEL, "game": game_id}
                )
        self.fanout.publish(game_id)
        return AbandonOut(
            id=game_id, status="abandoned", version=game.version, seed=game.seed, salt=game.salt
        )

    # -- stream tickets -------------------------------------------------------------------

    async def ticket(self, game_id: str, token: str | None) -> TicketOut:
        if token is None:
            raise unauthorized("a stream ticket needs a seat's token: Authorization: Bearer")
        ticket = new_token()
        async with self.engine.begin() as conn:
            await self._game(conn, game_id)
            seat = await self._seat(conn, game_id, token)
            now = datetime.now(UTC)
            await conn.execute(TICKETS.delete().where(TICKETS.c.expires_at < now))
            await conn.execute(
                insert(TICKETS).values(
                    ticket_hash=token_hash(ticket),
                    game_id=game_id,
                    seat=seat,
                    expires_at=now + timedelta(seconds=TICKET_SECONDS),
                    used=False,
                )
            )
        return TicketOut(ticket=ticket, expires_in=TICKET_SECONDS)

    async def redeem(self, game_id: str, ticket: str) -> int:
        """The seat of a valid, unused, unexpired ticket of this game; it is used up."""
        async with self.engine.begin() as conn:
            row = (
                await conn.execute(
                    update(TICKETS)
                    .where(
                        TICKETS.c.ticket_hash == token_hash(ticket),
                        TICKETS.c.game_id == game_id,
                        TICKETS.c.used.is_(False),
                        TICKETS.c.expires_at > datetime.now(UTC),
                    )
                    .values(used=True)
                    .returning(TICKETS.c.seat)
                )
            ).first()
        if row is None:
            raise unauthorized("the stream ticket is unknown, used or expired: ask for a new one")
        return int(row.seat)

    async def viewer(self, game_id: str, token: str | None) -> int | None:
        """Check the game exists and the token (if any) is one of its seats'."""
        async with self.reader.connect() as conn:
            await self._game(conn, game_id)
            return await self._seat(conn, game_id, token)

    # -- helpers --------------------------------------------------------------------------

    async def _game(self, conn: AsyncConnection, game_id: str, lock: bool = False) -> Row[Any]:
        if not GAME_ID.fullmatch(game_id):
            raise _not_found(game_id)
        game = (await conn.execute(_GAME_LOCKED if lock else _GAME, {"b_game": game_id})).first()
        if game is None:
            raise _not_found(game_id)
        return game

    async def _game_and_seat(
        self, conn: AsyncConnection, game_id: str, token: str | None, lock: bool = False
    ) -> tuple[Row[Any], int | None]:
        """The game (locked for an action) and the token's seat, in one query when it is a
        seat token (the hot path of every action); else as :meth:`_seat` finds it."""
        if token is None:
            return await self._game(conn, game_id, lock), None
        if not GAME_ID.fullmatch(game_id):
            raise _not_found(game_id)
        query = _GAME_AND_SEAT_LOCKED if lock else _GAME_AND_SEAT
        game = (
            await conn.execute(query, {"b_game": game_id, "b_digest": token_hash(token)})
        ).first()
        if game is None:
            raise _not_found(game_id)
        if game.token_seat is not None:
            return game, int(game.token_seat)
        return game, await self._seat(conn, game_id, token)

    async def _seat(self, conn: AsyncConnection, game_id: str, token: str | None) -> int | None:
        """The seat whose token this is (None without a token), or the seat bound to the
        account whose live session it is (once joined); 401 for any other token."""
        if token is None:
            return None
        digest = token_hash(token)
        row = (await conn.execute(_SEAT_BY_TOKEN, {"b_game": game_id, "b_digest": digest})).first()
        if row is not None and hmac.compare_digest(row.token_hash, digest):
            return int(row.seat)
        bound = (
            await conn.execute(
                select(SEATS.c.seat)
                .select_from(SEATS.join(SESSIONS, SESSIONS.c.account_id == SEATS.c.account_id))
                .where(
                    SEATS.c.game_id == game_id,
                    SEATS.c.joined,
                    SESSIONS.c.token_hash == digest,
                    SESSIONS.c.expires_at > datetime.now(UTC),
                )
            )
        ).first()
        if bound is None:
            raise unauthorized(
                "the token is not a seat token of this game, nor the session of an account "
                "that joined one of its seats"
            )
        return int(bound.seat)

    async def join(self, game_id: str, seat: int, caller: Caller) -> SeatJoined:
        """Bind a seat to the account it was created for: that account's session confirms."""
        async with self.engine.begin() as conn:
            await self._game(conn, game_id)
            row = (
                await conn.execute(
                    select(SEATS.c.name, SEATS.c.account_id).where(
                        SEATS.c.game_id == game_id, SEATS.c.seat == seat
                    )
                )
            ).first()
            if row is None:
                raise ProblemError(404, "not-found", f"game {game_id} has no seat {seat}")
            if row.account_id != caller.account_id:
                raise ProblemError(
                    403,
                    "not-your-seat",
                    f"seat {seat} is not bound to {caller.pseudo!r}: only the account named for "
                    "a seat at creation may join it",
                )
            await conn.execute(
                update(SEATS)
                .where(SEATS.c.game_id == game_id, SEATS.c.seat == seat)
                .values(joined=True)
            )
        return SeatJoined(
            game_id=game_id, seat=seat, name=row.name, account=caller.pseudo, joined=True
        )

    async def _names(self, conn: AsyncConnection, game_id: str) -> list[str]:
        """The seats' names, read once per process: they never change after creation (a
        query fewer on every read of a game)."""
        names = self._names_cache.get(game_id)
        if names is None:
            rows = await conn.execute(_NAMES, {"b_game": game_id})
            names = self._names_cache[game_id] = [r.name for r in rows]
            while len(self._names_cache) > self.cache_size:
                self._names_cache.popitem(last=False)
        return names

    def _put(self, game_id: str, version: int, match: Match) -> None:
        self._cache[game_id] = _Cached(version, match)
        self._cache.move_to_end(game_id)
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)

    async def _match(self, conn: AsyncConnection, game: Row[Any]) -> Match:
        """The game's match at its row's version, for reading (it stays in the cache)."""
        cached = self._cache.get(game.id)
        if cached is not None and cached.version == game.version:
            return cached.match
        match = await self._take(conn, game)
        current = self._cache.get(game.id)  # an action may have moved on meanwhile
        if current is None or current.version < game.version:
            self._put(game.id, game.version, match)
        return match

    async def _take(self, conn: AsyncConnection, game: Row[Any]) -> Match:
        """The game's match at its row's version, out of the cache, to be changed.

        A cached match behind the row (another process applied the last actions) catches up
        by applying only the actions it lacks; without one, the log is replayed whole (once
        per process and game: after a restart, or when the cache let it go)."""
        cached = self._cache.pop(game.id, None)  # ours now: nobody else changes it
        if cached is not None and cached.version == game.version:
            return cached.match
        if cached is not None and cached.version > game.version:  # a reader's older row
            self._cache[game.id] = cached
            return await self._replay(conn, game)
        if cached is not None and cached.version < game.version:
            rows = await conn.execute(
                _ACTIONS, {"b_game": game.id, "b_after": cached.version, "b_upto": game.version}
            )
            match = cached.match
            for row in rows:
                match.apply(row.seat, decode_action(row.action))
            return match
        return await self._replay(conn, game)

    async def _replay(self, conn: AsyncConnection, game: Row[Any]) -> Match:
        """The match at the row's version: resumed from the checkpoint of its round's start
        when the game has one at or before that version (then only that round's actions are
        read and applied: a cold load costs the same at any length of log), else the whole
        log replayed, which is also what happens when resuming fails in any way (a checkpoint
        that does not fit the log is never trusted over it)."""
        saved = (await conn.execute(_CHECKPOINT, {"b_game": game.id})).scalar()
        checkpoint = None if saved is None else self._checkpoint(game, saved)
        if checkpoint is not None:
            rows = await conn.execute(
                _ACTIONS, {"b_game": game.id, "b_after": checkpoint.actions, "b_upto": game.version}
            )
            resumed = self._resumed(game, checkpoint, rows.all())
            if resumed is not None:
                return resumed
        rows = await conn.execute(
            _ACTIONS, {"b_game": game.id, "b_after": 0, "b_upto": game.version}
        )
        record = MatchRecord(
            ruleset=game.ruleset,
            options=game.options,
            rules_version=game.rules_version,
            seed=game.seed,
            players=game.players,
            actions=[(r.seat, decode_action(r.action)) for r in rows],
        )
        return replay(record)

    @staticmethod
    def _checkpoint(game: Row[Any], saved: str) -> MatchCheckpoint | None:
        """The saved checkpoint if this engine reads it and it is at or before the row's
        version (a reader's older row may come after a newer checkpoint), else None."""
        try:
            checkpoint = decode_checkpoint(saved)
        except (msgspec.DecodeError, RecursionError):
            log.warning("game %s: its checkpoint is unreadable, replaying its whole log", game.id)
            return None
        return checkpoint if checkpoint.actions <= game.version else None

    @staticmethod
    def _resumed(game: Row[Any], checkpoint: MatchCheckpoint, rows: Sequence[Any]) -> Match | None:
        """The match resumed at `checkpoint` with the round's actions since applied; None (the
        whole log then) if anything refuses: the engine refusing the checkpoint
        (`bad-checkpoint`) or one of the logged actions after it. Nothing of that reaches a
        client: a refusal here would carry the cards of the round's start."""
        try:
            match = Match.resume(
                registry.make(game.ruleset, game.options),
                game.players,
                game.seed,
                checkpoint,
                game.rules_version,
            )
            for row in rows:
                match.apply(row.seat, decode_action(row.action))
        except Exception as exc:  # the whole log decides; this was only a shortcut
            log.warning(
                "game %s: its checkpoint does not fit its log (%s), replaying the whole log",
                game.id,
                type(exc).__name__,
            )
            return None
        log.debug(
            "game %s: resumed at round %d, %d actions replayed",
            game.id,
            checkpoint.index + 1,
            len(rows),
        )
        return match

    def _game_out(
        self, game: Row[Any], seat: int | None, names: list[str], match: Match
    ) -> GameOut:
        revealed = game.status != "active"
        view = match.view(seat)
        if game.status == "abandoned":  # nobody may act any more
            view = msgspec.structs.replace(
                view,
                current_player=None,
                actors=[],
                legal_actions=None if seat is None else [],
            )
        return GameOut(
            id=game.id,
            ruleset=game.ruleset,
            options=game.options,
            rules_version=game.rules_version,
            version=game.version,
            status=game.status,
            seat=seat,
            players=[SeatOut(seat=i, name=n) for i, n in enumerate(names)],
            seed_commitment=game.seed_commitment,
            view=view,
            result=game.result,
            seed=game.seed if revealed else None,
            salt=game.salt if revealed else None,
        )

    @staticmethod
    def _refusal(exc: EngineError, match: Match, seat: int) -> ProblemError:
        problem = engine_problem(exc)
        if isinstance(exc, IllegalMove):
            if exc.reason in STATUS_REASONS:
                return ProblemError.of(_status_problem(exc.reason, problem.detail))
            problem = msgspec.structs.replace(  # the actions, not the stateless `legal` codes
                problem, legal=[], legal_actions=msgspec.to_builtins(match.legal_actions(seat))
            )
        return ProblemError.of(problem)


@functools.lru_cache(maxsize=256)
def _deck(ruleset: str, options: bytes, players: int) -> dict[str, int]:
    """The game's deck, card → copies (its rules' `deck`)."""
    rules = registry.make(ruleset, msgspec.json.decode(options))
    return dict(Counter(rules.deck(players).cards))


def _check_card_codes(game: Row[Any], action: Action) -> None:
    """The card codes an action names must be cards of the game's deck, as everywhere in the
    API: 422 `unknown-card` for no card at all, `card-not-in-deck` for a card of another
    deck (the rounds would only say the seat does not hold it: `card-not-in-hand`)."""
    groups: list[tuple[str, Sequence[object]]] = []
    card = getattr(action, "card", None)
    if card is not None:
        groups.append(("card", [card]))
    cards = getattr(action, "cards", None)
    if cards is not None:
        groups.append(("cards", cards))
    if not groups:
        return
    deck = _deck(game.ruleset, msgspec.json.encode(game.options), game.players)
    try:
        check_cards(deck, groups, deck_name=f"the {game.players}-player {game.ruleset} deck")
    except InvalidInput as exc:
        if [e.field for e in exc.errors] == ["card[0]"]:  # one card: its field is `card`
            exc = InvalidInput(exc.message, code=exc.code, field="card")
        raise ProblemError.of(engine_problem(exc)) from None


def _status_problem(reason: str, detail: str) -> Problem:
    problem = make_problem(409, reason, detail)
    return msgspec.structs.replace(problem, reason=reason)


_ETAG = re.compile(r'\s*"([^"]*)"\s*')


def _etag_matches(if_match: str, version: int) -> bool:
    """RFC 9110 If-Match: `*`, or a list of entity tags one of which is `"<version>"`,
    compared strongly (§13.1.1: a weak `W/"…"` tag never matches)."""
    if if_match.strip() == "*":
        return True
    return any(
        (m := _ETAG.fullmatch(part)) is not None and m.group(1) == str(version)
        for part in if_match.split(",")
    )


__all__ = ["GameStore", "commitment", "token_hash", "unauthorized"]
