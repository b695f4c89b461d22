"""Stored games' flow (api-contract.md, "Stored games"; STYLE 14, boardgame.io's `master.ts`):
create, read, act, events, abandon, export, joins and stream tickets, refusing with domain
errors (:mod:`api.http.domain`) and never naming an HTTP status or header; the storage is
:class:`api.games.repository.GameRepository`, the HTTP :mod:`api.games.routes`.

The current match is rebuilt from the log and kept in a per-process cache keyed by game **and
version**: whatever another replica did, a cached match is used only if its version is the
row's, so it always equals the replay of the log. A rebuild starts from the checkpoint the
action that began the current round saved (:class:`MatchCheckpoint`) and applies that
round's actions only; without a usable checkpoint, the whole log is replayed
(:func:`engine.core.match.replay`). Reads take no transaction on PostgreSQL (see `reader`).

One transaction per action: lock the game row (`SELECT … FOR UPDATE`; on SQLite every
transaction is `BEGIN IMMEDIATE`), authenticate the seat, check `Idempotency-Key` and the
expected version, apply the action to the match, append the action and its events, bump the
version, commit. The cached match is taken out of the cache before it is changed and put back
only after the commit, so an error at any point leaves neither a partial game in the database
nor a changed match in the cache.

The caller comes resolved (:class:`Credential`, by the routes' resolver): the hash of its
bearer token and, for an account's live session, the account; the service finds the seat.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import hmac
import logging
import math
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import msgspec
from sqlalchemy import Row
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from api.accounts.sessions import (
    Caller,
    accounts_by_pseudo,
    community_locked,
    is_community,
    lock_account,
)
from api.db.engine import unavailable
from api.games.bots import Limits, Thinker, move_seed, owner_of
from api.games.fanout import Fanout
from api.games.formats import (
    EXPORT_FORMAT,
    decode_event,
    event_document,
    event_out,
    stored_event_out,
)
from api.games.repository import GameRepository, StoredEvent
from api.games.schemas import (
    AbandonOut,
    ActionOut,
    CreateGame,
    EventsOut,
    ExportOut,
    GameCreated,
    GameOut,
    HintOut,
    HintValue,
    SeatJoined,
    SeatOut,
    SeatToken,
    TicketOut,
)
from api.http.body import check_ruleset
from api.http.conditions import IfMatch
from api.http.domain import (
    Conflict,
    Forbidden,
    Invalid,
    NotFound,
    TooManyAttempts,
    Unauthenticated,
    VersionMismatch,
    field_error,
)
from api.http.problems import cut_quotes, shorten
from api.http.tokens import SEAT_PREFIX, check_name, new_id, new_token, token_hash
from engine import registry
from engine.core.actions import Action
from engine.core.errors import TURN_REASONS, EngineError, IllegalMove
from engine.core.events import EventBase
from engine.core.match import Match, MatchCheckpoint, MatchRecord, replay
from engine.core.texts import ACTION_WORDS, BY_RULESET, DEFAULT_LANGUAGE, Message, say, text

#: Who may act and when is a conflict with the game's state, not an illegal move (the contract).
STATUS_REASONS = frozenset(TURN_REASONS)
TICKET_SECONDS = 60
EVENTS_PAGE = 1000
log = logging.getLogger("numrules.games")


class Credential(NamedTuple):
    """A resolved caller: the hash of its bearer token (a seat token's, or a session's) and,
    when the token is an account's live session, that account (it acts for the seat it
    joined)."""

    digest: str
    account_id: str | None = None


def seat_credential(token: str) -> Credential:
    """The credential of a seat token (tests and benchmarks call the service with one)."""
    return Credential(token_hash(token))


class Expected(NamedTuple):
    """The version a write expects (`If-Match`), and how the caller said it (quoted back)."""

    condition: IfMatch
    said: str


class GameMoved(VersionMismatch):
    """The game left the expected version; `version` is where it is now."""

    def __init__(self, detail: Message, version: int) -> None:
        super().__init__(detail)
        self.version = version


class GameStateConflict(Conflict):
    """Who may act and when (`not-your-turn`, `wrong-phase`, `game-over`): the code is the
    reason, also given as the problem's `reason`."""

    def __init__(self, reason: str, detail: Message) -> None:
        super().__init__(detail, code=reason, extra={"reason": reason})

    def render(self, language: str = DEFAULT_LANGUAGE) -> str:
        return cut_quotes(super().render(language))  # as every problem's detail


class KeyReused(Invalid):
    default_code = "idempotency-key-reused"


class IllegalAction(Invalid):
    """An action the rules forbid now: `reason` and the seat's `legal_actions`."""

    default_code = "illegal-move"

    def render(self, language: str = DEFAULT_LANGUAGE) -> str:
        return cut_quotes(super().render(language))  # as every problem's detail


def commitment(seed: int, salt: str) -> str:
    """The contract's `seed_commitment`: lowercase hex sha256 of ``"<seed>:<salt>"``."""
    return hashlib.sha256(f"{seed}:{salt}".encode()).hexdigest()


def _not_found(game_id: str) -> NotFound:
    return NotFound(say(NO_GAME, game=shorten(game_id)))


def _visible(visibility: Sequence[int] | None, seat: int | None) -> bool:
    return visibility is None or (seat is not None and seat in visibility)


def _page(game: Row[Any], rows: list[Any], seat: int | None, after: int) -> EventsOut:
    """The page `seat` may see of the event rows after `after`."""
    events = [stored_event_out(r.seq, r.payload) for r in rows if _visible(r.visibility, seat)]
    last = rows[-1].seq if rows else after
    return EventsOut(
        events=events,
        version=game.version,
        status=game.status,
        more=last < game.event_seq,
        next_after=last,
    )


def ruleset_actions(ruleset_id: str) -> tuple[str, ...]:
    """The action types a ruleset has, as its spec declares them (engine/core/actions.py):
    another type can never be legal in that game, so it is invalid on the body's `type`, not
    a `wrong-phase` conflict."""
    return registry.spec(ruleset_id).actions


@dataclass
class _Flight:
    """A read of a game's log that streams share (GameService.events_for)."""

    started: float
    task: asyncio.Future[tuple[Row[Any], list[Any]]]


@dataclass
class _Cached:
    version: int
    match: Match


NO_GAME = text("no-game", "no game {game!r}", "aucune partie {game!r}")
NOT_A_SEAT = text(
    "game-not-a-seat",
    "the token is not a seat token of this game, nor the session of an account that joined "
    "one of its seats",
    "le jeton n'est pas un jeton de place de cette partie, ni la session d'un compte qui a "
    "rejoint l'une de ses places",
)
GAME_ACTIVE = text(
    "game-active",
    "the game is still being played: its actions hold hidden cards; the export is available "
    "once it is over or abandoned",
    "la partie est en cours : ses actions contiennent des cartes cachées ; l'export est "
    "disponible une fois la partie terminée ou abandonnée",
)
ACTING_NEEDS_TOKEN = text(
    "acting-needs-token",
    "acting needs the seat's token: Authorization: Bearer <token>",
    "agir demande le jeton de la place : Authorization: Bearer <jeton>",
)
KEY_REUSED = text(
    "idempotency-key-reused-action",
    "this Idempotency-Key was used by this seat for another action: use a new key for a new action",
    "cette Idempotency-Key a servi à cette place pour une autre action : utilisez une "
    "nouvelle clé pour une nouvelle action",
)
GAME_MOVED = text(
    "game-moved",
    "the game is at version {version}, not the one in If-Match ({said}): read it again",
    "la partie est à la version {version}, pas celle de If-Match ({said}) : relisez-la",
)
#: A game's status as a sentence says it (`over`, `abandoned`).
STATUS_WORDS = {
    "over": text("game-status-over", "over", "terminée"),
    "abandoned": text("game-status-abandoned", "abandoned", "abandonnée"),
}
NO_MORE_ACTIONS = text(
    "game-over-actions",
    "the game is {status}: no more actions",
    "la partie est {status} : plus aucune action",
)
ALREADY = text("game-over-already", "the game is already {status}", "la partie est déjà {status}")
NO_SUCH_ACTION = text(
    "no-such-action",
    "{ruleset} has no {kind!r} action: its actions are {kinds}",
    "{ruleset} n'a pas d'action « {kind} » (ses actions : {kinds})",
    {**BY_RULESET, "kind": ACTION_WORDS, "kinds": ACTION_WORDS},
)
ABANDONING_NEEDS_TOKEN = text(
    "abandoning-needs-token",
    "abandoning needs a seat's token: Authorization: Bearer <token>",
    "abandonner demande le jeton d'une place : Authorization: Bearer <jeton>",
)
TICKET_NEEDS_TOKEN = text(
    "ticket-needs-token",
    "a stream ticket needs a seat's token: Authorization: Bearer",
    "un ticket de flux demande le jeton d'une place : Authorization: Bearer",
)
TICKET_UNKNOWN = text(
    "ticket-unknown",
    "the stream ticket is unknown, used or expired: ask for a new one",
    "le ticket de flux est inconnu, utilisé ou expiré : demandez-en un nouveau",
)
NO_SEAT = text(
    "no-seat", "game {game} has no seat {seat}", "la partie {game} n'a pas de place {seat}"
)
NOT_YOUR_SEAT = text(
    "not-your-seat",
    "seat {seat} is not bound to {pseudo!r}: only the account named for a seat at creation may "
    "join it",
    "la place {seat} n'est pas liée à {pseudo!r} : seul le compte nommé pour une place à la "
    "création peut la rejoindre",
)


HINTS_OFF = text(
    "hints-off",
    "hints are off in this game (its option hints: false)",
    "les conseils sont désactivés dans cette partie (son option hints: false)",
)
HINT_IN_FLIGHT = text(
    "hint-in-flight",
    "a hint for this seat is being computed: wait for its answer",
    "un conseil pour cette place est en cours de calcul : attendez sa réponse",
)
NOT_YOUR_TURN_HINT = text(
    "hint-not-your-turn",
    "a hint is for a seat that may act now: seat {seat} may not",
    "un conseil est pour une place qui peut jouer maintenant : la place {seat} ne le peut pas",
)
HINTS_OPTION = text(
    "hints-option",
    "the option hints is true or false",
    "l'option hints vaut true ou false",
)
HINT_RATE_LIMITED = text(
    "hint-rate-limited",
    "this seat asked its {limit} hints of the minute: ask again in {seconds} s",
    "cette place a demandé ses {limit} conseils de la minute : redemandez dans {seconds} s",
)
BOT_QUOTA = text(
    "bot-quota",
    "the bots of the games created by this {owner} spent their think time "
    "({quota} s per {minutes} min): a game with an expert bot may be created again in "
    "{seconds} s (random and basic bots now)",
    "les bots des parties créées par ce {owner} ont dépensé leur temps de réflexion "
    "({quota} s par {minutes} min) : une partie avec un bot expert pourra être créée dans "
    "{seconds} s (des bots random et basic dès maintenant)",
    {
        "owner": {
            "account": text("owner-account", "account", "compte"),
            "network": text("owner-network", "network", "réseau"),
        }
    },
)
HINT_NEEDS_TOKEN = text(
    "hint-needs-token",
    "a hint needs the seat's token: Authorization: Bearer <token>",
    "un conseil demande le jeton de la place : Authorization: Bearer <jeton>",
)


def bot_seat(match: Match, bots: Sequence[str | None]) -> int | None:
    """The first bot among the match's actors that has a legal action (its move is owed)."""
    if match.result() is not None:
        return None
    for seat in match.actors():
        if bots[seat] is not None and match.legal_actions(seat):
            return seat
    return None


def _status(status: str) -> Message:
    words = STATUS_WORDS.get(status)
    return status if words is None else say(words)


class GameService:
    """The stored games of one database; `fanout` wakes their event streams."""

    def __init__(
        self,
        engine: AsyncEngine,
        fanout: Fanout,
        cache_size: int = 2048,
        thinker: Thinker | None = None,
        hold: bool = False,
        limits: Limits | None = None,
    ) -> None:
        self.engine = engine
        #: Where bots and hints think (api.games.bots); `hold`: this process never plays a
        #: bot move itself (the two-process test's first process).
        self.thinker = thinker or Thinker(workers=0, samples=4, seconds=0.2)
        self.hold = hold
        #: Hints a minute per seat and the bots' CPU quota per owner (api.games.bots.Limits).
        self.limits = limits or Limits()
        self._driving: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        self.fanout = fanout
        self.notify = engine.dialect.name == "postgresql"
        self.repository = GameRepository(self.notify)
        #: Reads run without a transaction on PostgreSQL (no BEGIN and ROLLBACK round trips):
        #: each reads the game row first, then only what that row says is committed (the log
        #: up to its version, the events up to its `event_seq`), which never changes after.
        #: SQLite keeps transactions: its every transaction is `BEGIN IMMEDIATE` (api.db.engine).
        self.reader = (
            engine.execution_options(isolation_level="AUTOCOMMIT") if self.notify else engine
        )
        self.cache_size = cache_size
        self._cache: OrderedDict[str, _Cached] = OrderedDict()
        self._names_cache: OrderedDict[str, list[tuple[str, str | None]]] = OrderedDict()
        self._flights: dict[tuple[str, int, int], _Flight] = {}
        #: How many reads of the log streams made (shared ones count once).
        self.shared_reads = 0
        #: Called after an action's rows are written, before the commit (tests inject faults).
        self.before_commit: Callable[[], None] | None = None

    # -- creating -------------------------------------------------------------------------

    async def create(
        self, body: CreateGame, caller: Caller | None = None, network: str | None = None
    ) -> GameCreated:
        """Community lock (rules/app.md, Ruling): a community game (its spec says so) needs a
        session. Its bots spend the quota of the caller's account, else of `network` (the
        caller's): a game with an `expert` seat is refused past it (`bot-quota`)."""
        check_ruleset(body.ruleset)
        if is_community(body.ruleset) and caller is None:
            raise community_locked(body.ruleset)
        for i, player in enumerate(body.players):
            check_name(player.name, f"players[{i}].name")
        options_in = dict(body.options)
        hints = options_in.pop("hints", True)  # the service's option, not the rules'
        if not isinstance(hints, bool):
            raise field_error(Invalid, "bad-option", "options.hints", say(HINTS_OPTION))
        # the engine's refusals (options, players, seed) pass through: the problem map words them
        rules = registry.make(body.ruleset, options_in)
        seed = secrets.randbits(63) if body.seed is None else body.seed
        match = Match(rules, len(body.players), seed)
        game_id = new_id()
        salt = secrets.token_hex(16)
        tokens = [new_token(SEAT_PREFIX) for _ in body.players]  # a bot's is never given
        bots = [p.bot for p in body.players]
        owed = bot_seat(match, bots) is not None
        options: dict[str, Any] = msgspec.to_builtins(rules.options)
        opening = match.round_start_events()  # round 1's start and each seat's hand
        stored = [StoredEvent(i + 1, event_document(e), e.to) for i, e in enumerate(opening)]
        owner = owner_of(None if caller is None else caller.account_id, network)
        async with self.engine.begin() as conn:
            if owner is not None and "expert" in bots:
                await self._check_bot_quota(conn, owner)
            if caller is not None:  # its deletion waits for the game (else refused, never a fault)
                await lock_account(conn, caller.account_id)
            accounts = await accounts_by_pseudo(conn, [p.account for p in body.players], "players")
            await self.repository.add_game(
                conn,
                {
                    "id": game_id,
                    "ruleset": rules.id,
                    "options": options,
                    "rules_version": match.rules_version,
                    "seed": seed,
                    "salt": salt,
                    "seed_commitment": commitment(seed, salt),
                    "players": len(body.players),
                    "status": "active",
                    "version": 0,
                    "event_seq": len(stored),
                    "result": None,
                    "creator_id": None if caller is None else caller.account_id,
                    "bot_seed": secrets.randbits(63),
                    "bot_pending": owed,
                    "hints": hints,
                    "bot_owner": owner if any(b is not None for b in bots) else None,
                },
                [
                    {
                        "game_id": game_id,
                        "seat": i,
                        "name": p.name,
                        "token_hash": token_hash(t),
                        "account_id": accounts[i],
                        "joined": False,
                        "bot": p.bot,
                    }
                    for i, (p, t) in enumerate(zip(body.players, tokens, strict=True))
                ],
                stored,
            )
        self._put(game_id, 0, match)
        if owed:
            self.kick(game_id)
        created = GameCreated(
            id=game_id,
            ruleset=rules.id,
            options=options,
            rules_version=match.rules_version,
            version=0,
            status="active",
            seed_commitment=commitment(seed, salt),
            seats=[
                SeatToken(
                    seat=i,
                    name=p.name,
                    token=None if p.bot is not None else t,
                    account=p.account,
                    bot=p.bot,
                )
                for i, (p, t) in enumerate(zip(body.players, tokens, strict=True))
            ],
            view=match.view(None),
        )
        return created

    # -- reading --------------------------------------------------------------------------

    async def get(self, game_id: str, caller: Credential | None) -> GameOut:
        async with self.reader.connect() as conn:
            game, seat = await self._game_and_seat(conn, game_id, caller)
            if game.bot_pending and game.status == "active":
                self.kick(game_id)  # owed and perhaps orphaned (its replica died): play it
            names = await self._names(conn, game_id)
            match = await self._match(conn, game)
            # Render now: the cached match is the object an action takes and changes (`_take`);
            # with no await between reading it and its view, no action can change it between.
            return self._game_out(game, seat, names, match)

    async def events(
        self, game_id: str, caller: Credential | None, after: int, limit: int = EVENTS_PAGE
    ) -> EventsOut:
        async with self.reader.connect() as conn:
            game, seat = await self._game_and_seat(conn, game_id, caller)
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
            return game, await self.repository.event_rows(conn, game, after, limit)

    async def _events_page(
        self, conn: AsyncConnection, game: Row[Any], seat: int | None, after: int, limit: int
    ) -> EventsOut:
        return _page(game, await self.repository.event_rows(conn, game, after, limit), seat, after)

    async def export(self, game_id: str, caller: Credential | None = None) -> ExportOut:
        """The record of a game over or abandoned (public then); a token, if sent, must be one
        of its seats' (`Unauthenticated` else, as everywhere)."""
        async with self.reader.connect() as conn:
            game = await self._game(conn, game_id)
            await self._seat(conn, game_id, caller)
            if game.status == "active":
                raise Conflict(say(GAME_ACTIVE), code="game-active")
            names = await self._names(conn, game_id)
            actions = await self.repository.export_actions(conn, game)
        return ExportOut(
            id=game.id,
            ruleset=game.ruleset,
            options=game.options,
            rules_version=game.rules_version,
            status=game.status,
            players=[SeatOut(seat=i, name=n, bot=b) for i, (n, b) in enumerate(names)],
            seed_commitment=game.seed_commitment,
            seed=game.seed,
            salt=game.salt,
            actions=actions,
            result=game.result,
            v=EXPORT_FORMAT,
        )

    # -- acting ---------------------------------------------------------------------------

    async def act(
        self,
        game_id: str,
        caller: Credential | None,
        action: Action,
        expected: Expected | None,
        idempotency_key: str | None,
    ) -> tuple[ActionOut, bool]:
        """Apply `action` for the caller's seat; returns the answer and whether it is the
        kept answer of an earlier request with the same `idempotency_key`."""
        if caller is None:
            raise Unauthenticated(say(ACTING_NEEDS_TOKEN))
        request_hash = hashlib.sha256(msgspec.json.encode(action)).hexdigest()
        repository = self.repository
        async with self.engine.begin() as conn:
            game, seat = await self._game_and_seat(conn, game_id, caller, lock=True)
            assert seat is not None
            if game.bot_pending and game.status == "active":
                self.kick(game_id)  # runs once this transaction lets the row go
            if idempotency_key is not None:
                kept = await repository.kept_answer(conn, game_id, seat, idempotency_key)
                if kept is not None:
                    if not hmac.compare_digest(kept[0], request_hash):
                        raise KeyReused(say(KEY_REUSED))
                    return kept[1], True
            if expected is not None and not expected.condition.matches(game.version):
                raise GameMoved(
                    say(GAME_MOVED, version=game.version, said=shorten(expected.said)),
                    game.version,
                )
            if game.status != "active":
                raise GameStateConflict(
                    "game-over", say(NO_MORE_ACTIONS, status=_status(game.status))
                )
            kinds = ruleset_actions(game.ruleset)
            kind = type(action).__struct_config__.tag
            if kind not in kinds:
                message = say(NO_SUCH_ACTION, ruleset=game.ruleset, kind=kind, kinds=tuple(kinds))
                raise field_error(Invalid, "validation-error", "type", message)
            match = await self._take(conn, game)
            index = match.index
            try:
                match.check_cards(action)  # the engine refuses a card outside the game's deck
                events = match.apply(seat, action)
            except EngineError as exc:
                self._put(game_id, game.version, match)  # a refused action changes nothing
                if isinstance(exc, IllegalMove):
                    raise self._refusal(exc, match, seat) from None
                raise
            first = game.event_seq + 1
            seen = [event_out(first + i, e) for i, e in enumerate(events) if e.visible(seat)]
            owed = await self._write(conn, game, seat, action, match, index, events)
            version = game.version + 1
            answer = ActionOut(
                version=version,
                events=seen,
                view=match.view(seat),
            )
            if idempotency_key is not None:
                await repository.keep_answer(
                    conn, game_id, seat, idempotency_key, request_hash, answer
                )
            if self.before_commit is not None:
                self.before_commit()
        self._put(game_id, version, match)
        if not self.notify:
            self.fanout.publish(game_id)
        if owed:
            self.kick(game_id)
        return answer, False

    async def _write(
        self,
        conn: AsyncConnection,
        game: Row[Any],
        seat: int,
        action: Action,
        match: Match,
        index: int,
        events: list[EventBase],
    ) -> bool:
        """Append an applied action, its events and the game's new row; whether a bot's move
        is now owed."""
        first = game.event_seq + 1
        stored = [StoredEvent(first + i, event_document(e), e.to) for i, e in enumerate(events)]
        result = match.result()
        started = result is None and match.index != index  # a new round: its checkpoint
        bots = [b for _, b in await self._names(conn, game.id)]
        owed = bot_seat(match, bots) is not None
        await self.repository.append(
            conn,
            game,
            seat,
            action,
            stored,
            "over" if result is not None else "active",
            None if result is None else msgspec.to_builtins(result),
            match.checkpoint() if started else None,
            owed,
        )
        return owed

    # -- bots -----------------------------------------------------------------------------

    def kick(self, game_id: str) -> None:
        """Play the game's owed bot moves in the background (one driver per game and
        process; a kick while it runs makes it look again once done)."""
        if self.hold:
            return
        running = self._driving.get(game_id)
        if running is not None and not running.done():
            self._again.add(game_id)
            return
        task = asyncio.get_running_loop().create_task(self._drive(game_id))
        self._driving[game_id] = task

        def done(finished: asyncio.Task[None]) -> None:
            if self._driving.get(game_id) is finished:
                del self._driving[game_id]
            if game_id in self._again:
                self._again.discard(game_id)
                self.kick(game_id)

        task.add_done_callback(done)

    async def idle(self) -> None:
        """Wait until no bot move is being played by this process (tests)."""
        while self._driving:
            await asyncio.gather(*list(self._driving.values()), return_exceptions=True)
            await asyncio.sleep(0)

    async def _drive(self, game_id: str) -> None:
        """Play owed bot moves, each in its own transaction, until a person is to act or the
        game is over. Each move is thought at a version (off the event loop) and applied only
        if the locked row is still at that version: a move owed once is played once, by
        whichever process or replica gets there first; the others think again or stop."""
        try:
            while await self._bot_move(game_id):
                pass
        except Exception:  # the sweep tries again later; never an unhandled task error
            log.exception("game %s: a bot move failed", game_id)

    async def _bot_move(self, game_id: str) -> bool:
        """One owed bot move; whether to look again."""
        async with self.reader.connect() as conn:
            game = await self.repository.game(conn, game_id)
            if game is None or game.status != "active" or not game.bot_pending:
                return False
            bots = [b for _, b in await self._names(conn, game_id)]
            match = await self._match(conn, game)
            seat = bot_seat(match, bots)
            if seat is None:
                return False
            view = copy.deepcopy(match.view(seat))  # its own: the cached match moves on
            payloads = await self.repository.round_events(conn, game, seat)
            level = bots[seat]
            assert level is not None
            if level == "expert" and game.bot_owner is not None and self.limits.cpu_seconds > 0:
                since = self.limits.since(time.time())
                if self.limits.over(await self.repository.bot_cpu(conn, game.bot_owner, since)):
                    level = "basic"  # past the owner's quota: cheap moves, never a stall
        shown = [e for e in map(decode_event, payloads) if isinstance(e, EventBase)]
        action, cpu = await self.thinker.think(
            game.ruleset,
            game.options,
            view,
            shown,
            level,
            move_seed(game.bot_seed or 0, game.version, seat),
        )
        async with self.engine.begin() as conn:
            locked = await self._game(conn, game_id, lock=True)
            if game.bot_owner is not None:  # spent, whether or not the move is still owed
                minute = int(time.time() // 60)
                await self.repository.charge_bot_cpu(conn, game.bot_owner, minute, cpu)
            if locked.version != game.version or locked.status != "active":
                return True  # moved meanwhile (a person, another replica): think again
            match = await self._take(conn, locked)
            index = match.index
            try:
                events = match.apply(seat, action)
            except EngineError:
                self._put(game_id, locked.version, match)
                raise
            owed = await self._write(conn, locked, seat, action, match, index, events)
        self._put(game_id, locked.version + 1, match)
        if not self.notify:
            self.fanout.publish(game_id)
        return owed

    async def sweep(
        self, interval: float, batch: int = 20, engine: AsyncEngine | None = None
    ) -> None:
        """Forever: every `interval`, the games owing a bot move for longer than `interval`
        (their replica died before playing it) are played here (`FOR UPDATE SKIP LOCKED`:
        every replica sweeps, none waits on another's locks; the version check makes each
        move once). `engine`: the sweep's own (one connection), so a database gone silent
        holds none of the requests' pooled connections; an unavailable database is one log
        line per sweep, no traceback."""
        while True:
            await asyncio.sleep(interval)
            if self.hold:
                continue
            try:
                async with (engine or self.engine).begin() as conn:
                    owing = await self.repository.owing_bots(conn, interval, batch)
            except Exception as exc:  # the database down or not migrated: one line, no traceback
                reason = unavailable(exc)
                if reason is None and isinstance(exc, DBAPIError):
                    reason = str(exc.orig).strip().splitlines()[0][:200]
                if reason is None:
                    log.exception("the bot sweep could not read the games owing a move")
                else:
                    log.warning("the bot sweep could not read the games owing a move: %s", reason)
                continue
            for game_id in owing:
                self.kick(game_id)

    # -- hints ----------------------------------------------------------------------------

    async def hint(self, game_id: str, caller: Credential | None) -> HintOut:
        """The expert's suggestion for the caller's seat, on its turn (one in flight per
        seat); the export then marks the seat's next action `hint_used`."""
        if caller is None:
            raise Unauthenticated(say(HINT_NEEDS_TOKEN))
        async with self.reader.connect() as conn:
            game, seat = await self._game_and_seat(conn, game_id, caller)
            assert seat is not None
            if game.status != "active":
                raise GameStateConflict(
                    "game-over", say(NO_MORE_ACTIONS, status=_status(game.status))
                )
            if not game.hints:
                raise Conflict(say(HINTS_OFF), code="hints-off")
            match = await self._match(conn, game)
            if seat not in match.actors() or not match.legal_actions(seat):
                raise GameStateConflict("not-your-turn", say(NOT_YOUR_TURN_HINT, seat=seat))
            view = copy.deepcopy(match.view(seat))
            payloads = await self.repository.round_events(conn, game, seat)
        claimed = await self._claim_hint(game_id, seat)
        try:
            shown = [e for e in map(decode_event, payloads) if isinstance(e, EventBase)]
            found = await self.thinker.hint(
                game.ruleset,
                game.options,
                view,
                shown,
                move_seed(game.bot_seed or game.seed, game.version, seat),
            )
        finally:
            async with self.engine.begin() as conn:
                await self.repository.release_hint(conn, game_id, seat, claimed)
        async with self.engine.begin() as conn:
            await self.repository.add_hint(conn, game_id, seat, game.version)
        return HintOut(
            action=msgspec.to_builtins(found.action),
            values=[
                HintValue(action=msgspec.to_builtins(v.action), value=v.value) for v in found.values
            ],
            level=found.level,
            samples=found.samples,
        )

    async def _claim_hint(self, game_id: str, seat: int) -> float:
        """Mark the seat's hint in flight, counted in its minute, in the database (every
        replica sees it): `hint-in-flight` while one is, `hint-rate-limited` (429, with
        `Retry-After`) past the minute's limit. A claim left by a process that died lapses
        after a few budgets. The claim's time, which releases it."""
        now = time.time()
        stale = 10.0 + 4 * self.thinker.seconds
        limit = self.limits.hints_per_minute
        async with self.engine.begin() as conn:
            if await self.repository.claim_hint(conn, game_id, seat, now, stale, limit):
                return now
            started, window = await self.repository.hint_state(conn, game_id, seat)
        if started is not None and started >= now - stale:
            raise Conflict(say(HINT_IN_FLIGHT), code="hint-in-flight")
        seconds = max(1, math.ceil((window or now) + 60 - now))
        raise TooManyAttempts(
            say(HINT_RATE_LIMITED, limit=limit, seconds=seconds),
            retry_after=seconds,
            code="hint-rate-limited",
        )

    async def _check_bot_quota(self, conn: AsyncConnection, owner: str) -> None:
        """Refuse a new game with an expert bot once its owner's bots spent their quota."""
        if self.limits.cpu_seconds <= 0:
            return
        now = time.time()
        used = await self.repository.bot_cpu(conn, owner, self.limits.since(now))
        if not self.limits.over(used):
            return
        seconds = self.limits.retry_after(used, now)
        raise TooManyAttempts(
            say(
                BOT_QUOTA,
                owner=owner.partition(":")[0],
                quota=f"{self.limits.cpu_seconds:g}",
                minutes=self.limits.window_minutes,
                seconds=seconds,
            ),
            retry_after=seconds,
            code="bot-quota",
        )

    async def abandon(self, game_id: str, caller: Credential | None) -> AbandonOut:
        if caller is None:
            raise Unauthenticated(say(ABANDONING_NEEDS_TOKEN))
        async with self.engine.begin() as conn:
            game = await self._game(conn, game_id, lock=True)
            await self._seat(conn, game_id, caller)
            if game.status != "active":
                raise GameStateConflict("game-over", say(ALREADY, status=_status(game.status)))
            await self.repository.abandon(conn, game_id)
        self.fanout.publish(game_id)
        return AbandonOut(
            id=game_id, status="abandoned", version=game.version, seed=game.seed, salt=game.salt
        )

    # -- stream tickets -------------------------------------------------------------------

    async def ticket(self, game_id: str, caller: Credential | None) -> TicketOut:
        if caller is None:
            raise Unauthenticated(say(TICKET_NEEDS_TOKEN))
        ticket = new_token()
        async with self.engine.begin() as conn:
            await self._game(conn, game_id)
            seat = await self._seat(conn, game_id, caller)
            await self.repository.add_ticket(
                conn, token_hash(ticket), game_id, seat, TICKET_SECONDS
            )
        return TicketOut(ticket=ticket, expires_in=TICKET_SECONDS)

    async def redeem(self, game_id: str, ticket: str) -> int:
        """The seat of a valid, unused, unexpired ticket of this game; it is used up."""
        async with self.engine.begin() as conn:
            seat = await self.repository.use_ticket(conn, game_id, token_hash(ticket))
        if seat is None:
            raise Unauthenticated(say(TICKET_UNKNOWN))
        return seat

    async def viewer(self, game_id: str, caller: Credential | None) -> int | None:
        """Check the game exists and the caller (if any) is one of its seats."""
        async with self.reader.connect() as conn:
            await self._game(conn, game_id)
            return await self._seat(conn, game_id, caller)

    # -- helpers --------------------------------------------------------------------------

    async def _game(self, conn: AsyncConnection, game_id: str, lock: bool = False) -> Row[Any]:
        game = await self.repository.game(conn, game_id, lock)
        if game is None:
            raise _not_found(game_id)
        return game

    async def _game_and_seat(
        self, conn: AsyncConnection, game_id: str, caller: Credential | None, lock: bool = False
    ) -> tuple[Row[Any], int | None]:
        """The game (locked for an action) and the caller's seat, in one query when it is a
        seat token (the hot path of every action); else as :meth:`_seat` finds it."""
        if caller is None:
            return await self._game(conn, game_id, lock), None
        game = await self.repository.game_and_seat(conn, game_id, caller.digest, lock)
        if game is None:
            raise _not_found(game_id)
        if game.token_seat is not None:
            return game, int(game.token_seat)
        return game, await self._seat(conn, game_id, caller)

    async def _seat(
        self, conn: AsyncConnection, game_id: str, caller: Credential | None
    ) -> int | None:
        """The seat whose token this is (None without a caller), or the seat the caller's
        account joined; `Unauthenticated` for anyone else."""
        if caller is None:
            return None
        seat = await self.repository.seat_by_token(conn, game_id, caller.digest)
        if seat is None and caller.account_id is not None:
            seat = await self.repository.seat_by_account(conn, game_id, caller.account_id)
        if seat is None:
            raise Unauthenticated(say(NOT_A_SEAT))
        return seat

    async def join(self, game_id: str, seat: int, caller: Caller) -> SeatJoined:
        """Bind a seat to the account it was created for: that account's session confirms."""
        async with self.engine.begin() as conn:
            await self._game(conn, game_id)
            row = await self.repository.seat_binding(conn, game_id, seat)
            if row is None:
                raise NotFound(say(NO_SEAT, game=game_id, seat=seat))
            if row.account_id != caller.account_id:
                raise Forbidden(
                    say(NOT_YOUR_SEAT, seat=seat, pseudo=caller.pseudo), code="not-your-seat"
                )
            await self.repository.join(conn, game_id, seat)
        return SeatJoined(
            game_id=game_id, seat=seat, name=row.name, account=caller.pseudo, joined=True
        )

    async def _names(self, conn: AsyncConnection, game_id: str) -> list[tuple[str, str | None]]:
        """The seats' names, read once per process: they never change after creation (a
        query fewer on every read of a game)."""
        names = self._names_cache.get(game_id)
        if names is None:
            names = self._names_cache[game_id] = await self.repository.names(conn, game_id)
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
            match = cached.match
            for seat, action in await self.repository.actions(
                conn, game.id, cached.version, game.version
            ):
                match.apply(seat, action)
            return match
        return await self._replay(conn, game)

    async def _replay(self, conn: AsyncConnection, game: Row[Any]) -> Match:
        """The match at the row's version: resumed from the checkpoint of its round's start
        when the game has one at or before that version (then only that round's actions are
        read and applied: a cold load costs the same at any length of log), else the whole
        log replayed, which is also what happens when resuming fails in any way (a checkpoint
        that does not fit the log is never trusted over it)."""
        checkpoint = await self.repository.checkpoint(conn, game)
        if checkpoint is not None:
            rows = await self.repository.actions(conn, game.id, checkpoint.actions, game.version)
            resumed = self._resumed(game, checkpoint, rows)
            if resumed is not None:
                return resumed
        actions = await self.repository.actions(conn, game.id, 0, game.version)
        record = MatchRecord(
            ruleset=game.ruleset,
            options=game.options,
            rules_version=game.rules_version,
            seed=game.seed,
            players=game.players,
            actions=actions,
        )
        return replay(record)

    @staticmethod
    def _resumed(
        game: Row[Any], checkpoint: MatchCheckpoint, rows: Sequence[tuple[int, Action]]
    ) -> Match | None:
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
            for seat, action in rows:
                match.apply(seat, action)
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
        self, game: Row[Any], seat: int | None, names: list[tuple[str, str | None]], match: Match
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
            players=[SeatOut(seat=i, name=n, bot=b) for i, (n, b) in enumerate(names)],
            seed_commitment=game.seed_commitment,
            view=view,
            result=game.result,
            seed=game.seed if revealed else None,
            salt=game.salt if revealed else None,
            seed_decimal=str(game.seed) if revealed else None,
        )

    @staticmethod
    def _refusal(exc: IllegalMove, match: Match, seat: int) -> Conflict | Invalid:
        """Who may act and when is a conflict; any other illegal move names its `reason` and
        the seat's legal actions (never the stateless `legal` codes)."""
        if exc.reason in STATUS_REASONS:
            return GameStateConflict(exc.reason, exc.said)
        return IllegalAction(
            exc.said,
            code=exc.code,
            extra={
                "reason": exc.reason,
                "legal_actions": msgspec.to_builtins(match.legal_actions(seat)),
            },
        )


__all__ = ["Credential", "Expected", "GameService", "commitment", "seat_credential"]
