"""The stored-games endpoints (api-contract.md, "Stored games"; STYLE 15, litestar-fullstack's
controllers): one :class:`GameController` at `/v1/games` whose class-level dependencies give
each handler the service (:class:`api.games.service.GameService`, built once per process) and
the caller, resolved once per request (:func:`provide_caller`: a seat token, or an account's
live session; the two operations of a game being played resolve the same two with
:func:`resolved`, without Litestar's dependency machinery). The handlers read the request, call
the service and own the answer's status and headers (`ETag`, `Location`, `Cache-Control`, `Idempotent-Replayed`); the service's domain
errors become problems in :mod:`api.http.problems`."""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.datastructures import ResponseHeader
from litestar.di import NamedDependency, Provide
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Example
from litestar.params import Body, HeaderParameter, Parameter
from litestar.response import Stream
from litestar.response.base import ASGIResponse
from litestar.response.streaming import ASGIStreamingResponse
from litestar.types import ASGIApp, Receive, Scope, Send

from api.accounts.sessions import optional_session, require_session, session_caller
from api.games.answers import encode_answer
from api.games.schemas import (
    AbandonOut,
    ActionOut,
    ClaimedSeat,
    CreateGame,
    EventsOut,
    ExportOut,
    GameCreated,
    GameOut,
    HintOut,
    LeftSeat,
    OpenTables,
    SeatJoined,
    StartGame,
    TicketOut,
)
from api.games.seating import TABLES_MAX, TABLES_PAGE
from api.games.service import (
    ACTING_NEEDS_TOKEN,
    EVENTS_PAGE,
    Credential,
    Expected,
    GameMoved,
    GameService,
    StreamPage,
)
from api.games.tables import Tables
from api.http.body import AN_ACTION_OBJECT, StrictBody, decode_body, unwanted_body
from api.http.conditions import check_anonymous_key, check_key, parse_if_match
from api.http.hygiene import HEAD_REQUEST
from api.http.languages import language_headers, language_of, localized, localized_json
from api.http.problems import ProblemError, field_problem, problem_spec
from api.http.responses import NO_STORE
from api.http.tokens import (
    CREATOR_PREFIX,
    SEAT_PREFIX,
    SEAT_TOKEN,
    SESSION_TOKEN,
    bearer,
    token_hash,
    unauthorized,
)
from api.ops.metrics import metrics_of
from engine.core.actions import Action
from engine.core.errors import MOVE_REASONS, TURN_REASONS
from engine.core.texts import say, text

TAG = "Stored games"

EVENT_SEQ = text(
    "event-seq", "must be an event seq, 0 … {most}", "doit être un seq d’événement, 0 … {most}"
)
TOO_MANY_STREAMS = text(
    "too-many-streams",
    "this server, or your network, holds as many event streams as it may: retry later, or read "
    "GET /v1/games/{{id}}/events?after=N",
    "ce serveur, ou votre réseau, tient déjà autant de flux d’événements que permis\u00a0: "
    "réessayez plus tard, ou lisez GET /v1/games/{{id}}/events?after=N",
)
TOKEN_OR_TICKET = text(
    "token-or-ticket",
    "send either a token or a ticket, not both",
    "envoyez un jeton ou un ticket, pas les deux",
)
TICKET_NOT_WITH_TOKEN = text(
    "ticket-not-with-token",
    "not with an Authorization header",
    "pas avec un en-tête Authorization",
)
#: A seat acts with its token, or with the session of the account that joined it.
SECURITY: list[dict[str, list[str]]] = [{"seatToken": []}, {"sessionToken": []}]
OPTIONAL_SECURITY: list[dict[str, list[str]]] = [{}, {"seatToken": []}, {"sessionToken": []}]
#: Abandoning also takes the creator's token of a game of bots only created without a session.
ABANDON_SECURITY: list[dict[str, list[str]]] = [*SECURITY, {"creatorToken": []}]
#: Seconds between keep-alive comments on an idle event stream.
KEEP_ALIVE_SECONDS = 15.0
#: Seconds between a seat's stream's checks that its credential (or its ticket's holder)
#: still holds the seat (the stream wakes for it when nothing else woke it).
HOLDER_CHECK_SECONDS = 15.0
_SEQ = re.compile(r"[0-9]{1,10}")  # ASCII digits only ("²" is a digit to str.isdigit)
MAX_SEQ = 2**31 - 1


_problem = problem_spec


UNAUTHORIZED = _problem("No seat token, or not a seat token of this game", "unauthorized")
NOT_FOUND = _problem("No such game", "not-found")
QUERY_REFUSED = _problem(
    "A query parameter or header is out of range or malformed", "validation-error"
)


def provide_games(request: Request[Any, Any, Any]) -> GameService:
    """The process's stored-games service (built by the app's lifespan)."""
    games: GameService = request.app.state.games
    return games


#: What the controller's dependencies give a handler (named: nothing of the request's).
Games = NamedDependency[GameService]
SeatOrSession = NamedDependency[Credential | None]


async def provide_caller(request: Request[Any, Any, Any], games: Games) -> Credential | None:
    """The caller, resolved once: None without `Authorization`; a seat token as it is (the
    service finds its seat in the query that reads the game); any other token looked up as an
    account's live session, whose account then acts for the seat it joined. A token that is
    neither stays a credential: the service answers 404 for a game that does not exist before
    401 for a token that is none of its seats'.

    It depends on `games` (whose database it reads) so that Litestar resolves the two one
    after the other: dependencies of one batch are resolved in a task group, whose tasks cost
    an action about a tenth of its CPU time."""
    token = bearer(request, SEAT_TOKEN)
    if token is None:
        return None
    if token.startswith((SEAT_PREFIX, CREATOR_PREFIX)):  # a game's own: no session's
        return Credential(token_hash(token))
    session = await session_caller(games.engine, token)
    return Credential(token_hash(token), None if session is None else session.account_id)


async def resolved(request: Request[Any, Any, Any]) -> tuple[GameService, Credential | None]:
    """The service and the caller, as the controller's dependencies give them, for the two
    operations of a game being played (`GetGame`, `PostGameAction`), which call it first
    thing instead of declaring `games` and `caller`: Litestar's resolution of a dependency
    chain (a signature model parsed per provider, then the handler's own model validating
    the values they returned) was about a twentieth of an action's CPU time, more than the
    two calls it makes. Same resolution, same refusals, in the same order."""
    games = provide_games(request)
    return games, await provide_caller(request, games)


def _etag(version: int) -> dict[str, str]:
    return {"ETag": f'"{version}"'}


ETAG_HEADER = ResponseHeader(
    name="ETag", description='The game\'s version, quoted: `"<version>"`.', documentation_only=True
)

CREATE_EXAMPLE = {
    "ruleset": "numking",
    "players": [{"name": "Ada"}, {"name": "Bo"}, {"name": "Cy"}],
}
OPEN_EXAMPLE = {
    "ruleset": "numwars-classic",
    "players": [{"name": "Ada"}, {"open": True}, {"open": True, "name": "Cy"}],
}
START_EXAMPLE = {"fill_with_bots": "basic"}
BOTS_EXAMPLE = {
    "ruleset": "numwars-classic",
    "players": [
        {"name": "Ada"},
        {"name": "Bot 1", "bot": "expert"},
        {"name": "Bot 2", "bot": "basic"},
    ],
}
CLOCK_EXAMPLE = {
    "ruleset": "numwars",
    "players": [{"name": "Ada"}, {"name": "Bo"}, {"name": "Cy"}, {"name": "Di"}],
    "clock": {"turn_seconds": 60, "on_timeout": "auto"},
}


GameId = Annotated[str, Parameter(description="the game's id (32 hex digits)")]


A_START_OBJECT = text(
    "a-start-object",
    'a JSON object: {{"fill_with_bots": level}} or {{}}',
    'un objet JSON\u00a0: {{"fill_with_bots": niveau}} ou {{}}',
)

ACTION_EXAMPLES = {
    "play": {"type": "play", "card": "red-7"},
    "bid": {"type": "bid", "tricks": 1},
    "pass": {"type": "pass", "card": "red-7"},
    "draw": {"type": "draw"},
    "snap": {"type": "snap", "position": 2},
}


After = Annotated[
    int,
    Parameter(ge=0, le=2**31 - 1, description="only events with a greater `seq` (0: all)"),
]


log = logging.getLogger("numrules.games")

#: Where the stream's handler leaves its slot in the request's scope state.
STREAM_SLOT = "numrules.stream_slot"


def _gives_back_its_slot(app: ASGIApp) -> ASGIApp:
    """The stream route's middleware: the slot its handler reserved (`Fanout.reserve`) is
    given back when the answer ends, however it ends: a refusal (401, 404, 422), a 204, the
    end of the stream, a client gone before the first byte or during the stream, an error.
    The handler's own code cannot see all of these (a stream that never starts never runs
    its generator's `finally`)."""

    async def giving_back(scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await app(scope, receive, send)
        finally:
            slot = scope.get("state", {}).pop(STREAM_SLOT, None)
            if slot is not None:
                slot.release()

    return giving_back


async def _nothing() -> AsyncIterator[bytes]:
    return
    yield b""


class _ClosingStreamingResponse(ASGIStreamingResponse):
    """Litestar's streaming response, closing the stream's generator however the response
    ends (a client gone during a write included), so that its `finally` (the stream's
    unsubscription) runs then, not when the generator is collected."""

    __slots__ = ()

    async def _stream(self, send: Send) -> None:
        iterator = self.iterator
        try:
            await super()._stream(send)
        finally:
            close = getattr(iterator, "aclose", None)
            if close is not None:
                await close()


class _EventStream(Stream):
    """`text/event-stream` written as `_messages` encodes it: the messages of one read of the
    log (its events, then the game) in one chunk, so one write reaches the socket for them
    all. The wire form is Litestar's `ServerSentEvent`'s (fields `id`, `event`, `data` in that
    order, CRLF line ends), without its per-message encoding and write."""

    def __init__(
        self,
        content: AsyncIterator[bytes],
        *,
        headers: dict[str, str],
        status_code: int = 200,
    ) -> None:
        super().__init__(
            content=content,
            media_type="text/event-stream",
            status_code=status_code,
            headers={
                "Cache-Control": "no-cache",
                **headers,
                # no `Connection: keep-alive`: HTTP/1.1's default, and the server's own
                # `Connection: close` (a client's `Connection: close`, HTTP/1.0) stood beside it
                "X-Accel-Buffering": "no",
            },
        )

    def to_asgi_response(self, *args: Any, **kwargs: Any) -> ASGIResponse:
        response = super().to_asgi_response(*args, **kwargs)
        if type(response) is ASGIStreamingResponse:  # the same object, its `_stream` closing
            response.__class__ = _ClosingStreamingResponse
        return response


#: One message of a stream (`data` is one line: JSON never holds a raw line break).
_MESSAGE = b"id: %d\r\nevent: %s\r\ndata: %s\r\n\r\n"
_KEEP_ALIVE = b": keep-alive\r\n\r\n"


def _failed(game_id: str, exc: Exception, status: str, what: str = "read") -> bytes:
    """The `end` of a stream whose read (`what`) failed (the database lost, say), as a
    shutdown ends it: with the game's last status, so that its client opens it again."""
    log.warning(
        "game %s: a stream's %s failed (%s): it ends, its client opens it again",
        game_id,
        what,
        type(exc).__name__,
    )
    return b"event: end\r\ndata: %s\r\n\r\n" % status.encode()


async def _messages(
    games: GameService,
    game_id: str,
    seat: int | None,
    read: StreamPage,
    language: str | None = None,
    holder: str | None = None,
) -> AsyncIterator[bytes]:
    """The stream's messages: the events of each page read, then (with a `language`: the
    stream's `view=true`) the game as `seat` sees it at that page's version, once the stream
    has caught up with it and if that version (and status: an abandoned game keeps its
    version) was not shown yet, unless a later one is already committed; one chunk per read.

    A seat's stream opened while its game waited for players ends, without `end`, when the
    game starts: the seat may have changed hands meanwhile (left, then claimed by another),
    and the stream knows only the seat, not the credential it opened with; the client opens
    it again with its own. A read that fails ends the stream as a shutdown does (`end`, the
    game's last status).

    `holder`: the sha256 of the token the seat's stream was opened with (or its ticket was
    given to). Every :data:`HOLDER_CHECK_SECONDS` (waking for it if nothing else woke it, a
    keep-alive comment then) the stream checks that the token still holds the seat
    (:meth:`GameService.holds`); once it does not (a session logged out or expired, a seat
    token revoked), the stream ends without `end`, as above: what the seat sees from then on
    is for its new credential only."""
    page = read.page
    waited = seat is not None and page.status == "waiting"
    shown: tuple[int, str] | None = None
    encode = msgspec.json.encode
    wake = games.fanout.subscribe(game_id)
    subscribed = checked = time.monotonic()
    wake.set()  # `page` was read before this subscription: read once more before waiting
    if language is not None:
        games.watch(game_id, seat)
    try:
        while True:
            if waited and read.game.event_seq > 0:  # started (a cancelled table has no event)
                return
            chunk = [_MESSAGE % (e.seq, e.kind.encode(), encode(e)) for e in page.events]
            if language is not None and not page.more and (page.version, page.status) != shown:
                try:
                    game = await games.shown(read, seat)
                except Exception as exc:
                    yield b"".join([*chunk, _failed(game_id, exc, page.status)])
                    return
                if game is not None:
                    shown = (page.version, page.status)
                    shown_json = localized_json(game, language, encode_answer)
                    chunk.append(b"event: game\r\ndata: %s\r\n\r\n" % shown_json)
            if chunk:
                yield b"".join(chunk)
            if not page.more:
                if page.status not in ("active", "waiting") or games.fanout.closing:
                    yield b"event: end\r\ndata: %s\r\n\r\n" % page.status.encode()
                    return
                wait = KEEP_ALIVE_SECONDS
                if holder is not None and seat is not None:  # awake for its next check too
                    wait = min(wait, max(0.0, checked + HOLDER_CHECK_SECONDS - time.monotonic()))
                try:
                    await asyncio.wait_for(wake.wait(), wait)
                except TimeoutError:
                    yield _KEEP_ALIVE
            if holder is not None and seat is not None:
                now = time.monotonic()
                if now - checked >= HOLDER_CHECK_SECONDS:
                    checked = now
                    try:
                        held = await games.holds(game_id, seat, holder)
                    except Exception as exc:
                        yield _failed(game_id, exc, page.status, "check of its credential")
                        return
                    if not held:
                        return
            # the last wake-up's time: a shared read begun since sees what it announced
            since = max(games.fanout.published.get(game_id, 0.0), subscribed)
            wake.clear()  # before reading: a wake-up during the read is kept for the next wait
            try:
                read = await games.events_for(game_id, seat, page.next_after, since=since)
            except Exception as exc:
                yield _failed(game_id, exc, page.status)
                return
            page = read.page
    finally:
        games.fanout.unsubscribe(game_id, wake)
        if language is not None:
            games.unwatch(game_id, seat)


class GameController(Controller):
    """The stored games' operations: the service and the caller come as dependencies (the hot
    `get_game` and `post_action` call :func:`resolved`, the same resolution)."""

    path = "/v1/games"
    dependencies = {  # noqa: RUF012 (Litestar reads the class attribute)
        "games": Provide(provide_games, sync_to_thread=False),
        "caller": Provide(provide_caller),
    }

    @post(
        "/",
        operation_id="CreateGame",
        summary="Start a stored game",
        description=(
            "Start a whole match of a ruleset, dealt by the server. Each seat's `token` is "
            "returned **only here** (store it: it is kept only hashed); send it as "
            "`Authorization: Bearer <token>` to see that seat's hand and to act for it. "
            '`seed_commitment` = sha256 of `"<seed>:<salt>"`, published now; `seed` and `salt` '
            "are revealed once the game is over or abandoned, so anyone can check the deal was "
            "fixed in advance and replay the export. Without `seed`, the server draws 63 random "
            "bits.\n\nAlso refused (422, limits across fields that JSON Schema cannot state): a "
            "player name that is blank or holds a control or formatting character (`bad-name`), or "
            "that another player already has, case and spaces aside (`duplicate-name`); a "
            "number of players outside the ruleset's range (`bad-player-count`); an unknown or "
            "ill-typed option of that ruleset (`bad-option`); `4.0` where an integer is expected "
            "(`validation-error`): integers are never coerced; a player's `account` that names no "
            "account (`unknown-account`) or one named twice (`duplicate-account`); a player "
            "without a name who is not an open seat (`bad-name`); an open seat with an `account` "
            "or a `bot`, or a `seed` with an open seat (`bad-open-seat`); a `bot` seat with an "
            "`account`, since the server plays it (`bad-bot-seat`); an `Idempotency-Key` "
            "already used with another body (`idempotency-key-reused`).\n\n"
            "**Community lock**: Num King and Num Win are community games, played by members: a "
            "`numking` or `numwin` game needs an account's session (`Authorization: Bearer "
            "<session token>`, else 401 `community-locked`); Num Wars games work without one. A "
            'player may name an account (`"account": pseudo`): '
            "once that account joins the seat (`POST /v1/games/{id}/seats/{seat}/join`), it may "
            "act for the seat with its session as well as with the seat token, and the finished "
            "game counts in its history and stats.\n\n"
            '**Bots** (issue 25): a player `{"name", "bot": level}` (`random`, `basic`, `expert`: '
            "`GET /v1/rulesets/{id}` lists them under `bots`) is played by the server and gets "
            "no token. Whenever a bot is among `view.actors`, the server plays its move right "
            "after the action (or the creation) that made it owed, each move in its own "
            "transaction, as an ordinary logged action of that seat (same events, stream and "
            'export, where its actions say `"bot": true`), and chains on until a person is to '
            "act or the match is over: a game of bots only runs to its end from its creation. "
            "Created without a session, such a game's answer carries `creator_token` (shown "
            "once, stored hashed): the creator ends the game with it (`POST "
            "/v1/games/{id}/abandon`), as a session ends the games it created. "
            "A move owed by a process that died is played by the next read or action of the "
            "game, or by any replica's periodic sweep, exactly once. The bots draw from their "
            "own seed, never the deal's. The option `hints` (default true; false turns `POST "
            "/v1/games/{id}/hint` off) is the service's, not the ruleset's.\n\n"
            '**Open seats** (issue 26): a player `{"open": true}` (optionally with a `name`; '
            "not with `account` or `bot`) leaves the seat open: no token now; an account claims "
            "it (`POST /v1/games/{id}/seats/{seat}/claim`) and the open tables list it (`GET "
            "/v1/games?status=open`). Opening a seat needs the creator's session (401 "
            "`unauthorized` without one); `seed` is then refused (422: the server draws the "
            "seed of a shared table). A game with open seats has status "
            "`waiting` (listed in `open_seats`): nothing is dealt, played, hinted or played by "
            "bots until it starts, when its last open seat is claimed or its creator starts it "
            "(`POST /v1/games/{id}/start`); its creator may cancel it (`POST "
            "/v1/games/{id}/abandon` with the session). It lapses (abandoned) after "
            "`NUMRULES_WAITING_HOURS` (24). `seeded_by_creator: true` says the creator chose "
            "the seed.\n\n"
            '**Turn clocks** (issue 26): `"clock": {"turn_seconds": 1 … 86400, "on_timeout": '
            '"auto" | "abandon"}` (default `auto`; none without it). Each seat that owes a move '
            "(the seat whose turn it is; in a simultaneous phase, every seat still to act; never "
            "a bot) has `turn_seconds` from the start of its turn: when it comes to owe a move. "
            "Its own further steps of one turn (numwin's draw then discard, an exchange passed "
            "card by card) and the other seats' moves in a simultaneous phase never restart it; "
            "a new round, a new phase, a trick taken, a new numwin turn do. Time is the "
            "database's clock (one for every replica). The answers of a clocked game carry "
            "`clock`, `deadlines` (`[{seat, at}]`, RFC 3339 UTC, one per seat that owes a move) "
            "and, for a seat, its own `deadline` (null when it owes none); an unclocked game's "
            "answers have none of the three. When a deadline passes, `auto` completes the "
            "seat's whole turn with the `basic` bot's choice from the seat's view (seeded by the "
            "game's bot seed and version: a replay gives the same game), logged as the seat's "
            'own actions after a public `timeout` event (the export marks them `"timeout": '
            "true`); `abandon` ends the game as abandoned, with a `timeout` event. Any read or "
            "action of the game applies a passed deadline first, and every replica sweeps the "
            "games whose deadline passed (`NUMRULES_CLOCK_SWEEP_SECONDS`, 1 s by default): a "
            "timeout applies once, at most that late. A move that comes late is 409 "
            "`turn-timed-out` (`POST /v1/games/{id}/actions`).\n\n"
            "**Bot-CPU quota**: the bots' think time is charged to the game's creator (its "
            "account, else its network), per rolling window (`NUMRULES_BOT_CPU_SECONDS` per "
            "`NUMRULES_BOT_CPU_WINDOW_SECONDS`, 600 s per hour by default); past it, that "
            "creator's `expert` bots play as `basic` and a new game with an `expert` seat is "
            "429 `bot-quota` (with `Retry-After`). Hints spend the same quota (the asker's "
            "account, else network), and an owner's expert moves and hints think one at a "
            "time per replica.\n\n"
            "**Retries**: `Idempotency-Key` (1 … 255 visible ASCII characters): a 201 lost on "
            "the way can be retried with the same key and body within 24 hours; the retry "
            "answers the same game and the same seat tokens once more (status 201, with "
            "`Idempotent-Replayed: true`) and creates nothing, concurrent retries included. The "
            "same key with another body is 422 `idempotency-key-reused`. A key belongs to the "
            "session's account, or to anonymous creations (whatever their network: a retry may "
            "come from another address); without a session the key alone gets the tokens back: "
            "it must be at least 16 characters (make it a fresh random UUID), else 422 "
            "`validation-error`. The service keeps the tokens only sealed with the key."
        ),
        status_code=201,
        dto=StrictBody[CreateGame],
        return_dto=None,
        tags=[TAG],
        security=[{}, {"sessionToken": []}],
        response_headers=[
            ResponseHeader(
                name="Location", description="`/v1/games/{id}`", documentation_only=True
            ),
            ETAG_HEADER,
            ResponseHeader(
                name="Idempotent-Replayed",
                description="`true` when the answer is the stored one of an earlier creation "
                "with the same Idempotency-Key (no game was created again)",
                documentation_only=True,
            ),
        ],
        responses={
            401: _problem(
                "A community ruleset's game without a session, or a token that is not a live "
                "session",
                "community-locked",
                "unauthorized",
            ),
            422: _problem(
                "The body breaks the contract (field errors in `errors[]`), a malformed "
                "`Idempotency-Key`, or one used for another body",
                "validation-error",
                "idempotency-key-reused",
                "bad-name",
                "duplicate-name",
                "bad-player-count",
                "bad-option",
                "unknown-account",
                "duplicate-account",
                "bad-open-seat",
                "bad-bot-seat",
            ),
            429: _problem(
                "Too many requests, or an `expert` seat past the creator's bot-CPU quota "
                "(retry after `Retry-After` seconds)",
                "bot-quota",
            ),
        },
    )
    async def create_game(
        self,
        request: Request[Any, Any, Any],
        games: Games,
        data: Annotated[
            CreateGame,
            Body(
                examples=[
                    Example(summary="Three players of Num King", value=CREATE_EXAMPLE),
                    Example(summary="Ada against two bots", value=BOTS_EXAMPLE),
                    Example(summary="Ada and two open seats", value=OPEN_EXAMPLE),
                    Example(summary="A minute per turn", value=CLOCK_EXAMPLE),
                ]
            ),
        ],
        idempotency_key: Annotated[
            str | None,
            HeaderParameter(
                name="Idempotency-Key",
                required=False,
                description="1 … 255 visible ASCII chars (at least 16 without a session): a "
                "retry with the same key and body answers the first game again",
            ),
        ] = None,
    ) -> Response[GameCreated]:
        key = check_key(idempotency_key)
        caller = await optional_session(request)
        if caller is None:
            check_anonymous_key(key)
        network = request.app.state.stream_network(request.scope)
        created, replayed = await games.create_once(data, caller, network, key)
        headers = {"Location": f"/v1/games/{created.id}", **NO_STORE, **_etag(0)}
        if replayed:
            headers["Idempotent-Replayed"] = "true"
        else:
            metrics_of(request).games_created.inc()
        return Response(created, status_code=201, headers=headers)

    @get(
        "/{game_id:str}",
        operation_id="GetGame",
        summary="Read a stored game",
        description=(
            "The game as one viewer sees it. Who may act now is `view.actors` (every seat that "
            "may act: several in a simultaneous phase such as an exchange, where "
            "`view.current_player` is null; numwin's snaps are open to any seat that holds one "
            "in its `legal_actions`). Without a token: the spectator view (no hand, no "
            "legal actions). With `Authorization: Bearer <seat token>`: that seat's view, with its "
            "`hand` and `legal_actions` (each can be posted back as it is). A wrong token is 401, "
            "never a spectator view. Once over: `result`, `seed` and `salt` (and `seed_decimal`, "
            "the seed as the string the commitment hashes: exact in a browser). A `waiting` game "
            "(open seats, `open_seats`) shows everyone the spectator view, nobody acting; "
            "`rematch` is the id of the game's rematch once asked for.\n\n"
            "A clocked game (`clock` at creation) also has `clock`, `deadlines` (one per seat "
            "that owes a move) and `deadline` (the caller's seat's, or null); a deadline that "
            "has passed is applied first (its timeout), so the answer is the game after it."
        ),
        tags=[TAG],
        security=OPTIONAL_SECURITY,
        response_headers=[ETAG_HEADER],
        responses={401: UNAUTHORIZED, 404: NOT_FOUND},
    )
    async def get_game(self, request: Request[Any, Any, Any], game_id: GameId) -> Response[GameOut]:
        games, caller = await resolved(request)  # the hot path: see `resolved`
        game = await games.get(game_id, caller)
        language = language_of(request)
        headers = {**_etag(game.version), **NO_STORE, **language_headers(language)}
        content: Any = localized_json(game, language, encode_answer)  # bytes: sent as they are
        return Response(content, headers=headers)

    @post(
        "/{game_id:str}/actions",
        operation_id="PostGameAction",
        summary="Act for a seat",
        description=(
            "Apply one action for the token's seat (a seat acts only for itself): one of the "
            "`legal_actions` of its view, as it is. Answers the new `version`, the events the "
            "action made that the seat may see, and the seat's view.\n\n"
            '`If-Match: "<version>"`: 412 `version-mismatch` when the game has moved; a header '
            "that is no entity tag (the version unquoted) is 422 `validation-error` on `If-Match`, "
            "naming the quoted form. "
            "`Idempotency-Key` (1 … 255 visible ASCII characters): a retry with the same key "
            "and action returns the first answer (with `Idempotent-Replayed: true`) and applies "
            "nothing twice; the same key with another action is 422 `idempotency-key-reused`. "
            "Only applied actions are remembered: a refused one may be retried.\n\n"
            "Who may act and when is a 409 (`code` and `reason`): `not-your-turn`, `wrong-phase` "
            "(also a numwin snap after another claim won or the window closed), `game-over`. "
            "An action the rules forbid is 422 `illegal-move` with `reason` (`card-not-in-hand`, "
            "`must-follow-color`, `bad-bid` …) and the seat's `legal_actions`.\n\n"
            "**Turn clocks**: in a clocked game the answer has `deadlines` and the seat's "
            "`deadline`. A move is 409 `turn-timed-out` when its seat's deadline had passed when "
            "it came (the timeout is applied, not the move); when its `If-Match` names a version "
            "at or before the one its seat's turn ended at by timeout (checked before 412); "
            "without `If-Match`, when the game refuses it (not its turn, wrong phase, abandoned) "
            "and its seat has not acted since its turn ended by timeout.\n\n"
            "Ruling (numwin): a card a seat has not seen never changes what it may do, so a "
            "swap of an unseen card may carry `call`; when that card turns out to be an action "
            "card with a target, the call is made at the end of the turn, after the action, if "
            "the seat then holds exactly 5 cards (else it lapses).\n\n"
            "Also refused (422, limits across fields that JSON Schema cannot state): an action "
            "the rules forbid now (`illegal-move`); an action `type` the game's ruleset never "
            "has, such as a numwin `play` (`validation-error`); a card code that is no card at all "
            "(`unknown-card`), a card of another deck than the game's (`card-not-in-deck`), a card "
            "named more often than the deck holds it (`duplicate-card`), each with its `field`; "
            "an Idempotency-Key already used for another "
            "action (`idempotency-key-reused`); `4.0` where an integer is expected "
            "(`validation-error`): integers are never coerced."
        ),
        tags=[TAG],
        status_code=200,
        security=SECURITY,
        response_headers=[
            ETAG_HEADER,
            ResponseHeader(
                name="Idempotent-Replayed",
                description="`true` when the answer is the stored one of an earlier request "
                "with the same Idempotency-Key (nothing was applied again)",
                documentation_only=True,
            ),
        ],
        opt={"json_body": True},  # the body is read here (the Action union), 415 unless JSON
        responses={
            401: UNAUTHORIZED,
            404: NOT_FOUND,
            409: _problem(
                "Not this seat's turn, not this phase, the game is over, or it waits for its "
                "open seats; `reason` repeats the code; or the seat's turn ended by timeout (its "
                "clock ran out)",
                *TURN_REASONS,
                "game-waiting",
                "turn-timed-out",
                reasons=(*TURN_REASONS, "game-waiting"),
            ),
            412: _problem("`If-Match` names another version", "version-mismatch"),
            422: _problem(
                "An action the rules forbid (with `reason` and `legal_actions`), an "
                "`Idempotency-Key` used for another action, a card code that is no card, not of "
                "the game's deck or named too often, a value no action takes (a declaration, a "
                "target), or a body that is no action",
                "illegal-move",
                "idempotency-key-reused",
                "unknown-card",
                "card-not-in-deck",
                "duplicate-card",
                "bad-request",
                "validation-error",
                reasons=MOVE_REASONS,
            ),
        },
    )
    async def post_action(
        self,
        request: Request[Any, Any, Any],
        game_id: GameId,
        if_match: Annotated[
            str | None,
            HeaderParameter(name="If-Match", required=False, description='`"<version>"` (ETag)'),
        ] = None,
        idempotency_key: Annotated[
            str | None,
            HeaderParameter(
                name="Idempotency-Key", required=False, description="1 … 255 visible ASCII chars"
            ),
        ] = None,
    ) -> Response[ActionOut]:
        games, caller = await resolved(request)  # the hot path: see `resolved`
        if caller is None:  # before the body is read: without a token nothing else matters
            raise unauthorized(say(ACTING_NEEDS_TOKEN))
        check_key(idempotency_key)
        condition = parse_if_match(if_match)  # an unquoted version is 422, naming the quoted form
        expected = None if condition is None or if_match is None else Expected(condition, if_match)
        try:
            action: Action = decode_body(await request.body(), Action, AN_ACTION_OBJECT)
        except Exception:
            # authentication, then existence, then the body (api-contract.md, "Order of
            # checks"): a refused body answers 401 or 404 first when the token is no seat's
            # or the game none; checked here, off the hot path, where the body failed
            await games.viewer(game_id, caller)
            raise
        try:
            answer, replayed = await games.act(game_id, caller, action, expected, idempotency_key)
        except GameMoved as moved:  # where the game is now, for the client's next If-Match
            moved.headers.update(_etag(moved.version))
            raise
        headers = {**_etag(answer.version), **NO_STORE}
        if replayed:
            headers["Idempotent-Replayed"] = "true"
        else:
            metrics_of(request).actions_applied.inc()
        return Response(answer, headers=headers)

    @get(
        "/{game_id:str}/events",
        operation_id="ListGameEvents",
        summary="Read a game's events",
        description=(
            "The game's events after `after`, in order, as this viewer may see them (a seat's "
            "token adds the events only it may see; without one, the public events). Events have "
            "their own `seq`, 1, 2, … over all the game's events; a viewer's list skips those it "
            "may not see. At most `limit` events are examined per page: with `more`, ask again "
            "with `after=next_after`."
        ),
        tags=[TAG],
        security=OPTIONAL_SECURITY,
        responses={401: UNAUTHORIZED, 404: NOT_FOUND, 422: QUERY_REFUSED},
    )
    async def list_events(
        self,
        games: Games,
        caller: SeatOrSession,
        game_id: GameId,
        after: After = 0,
        limit: Annotated[int, Parameter(ge=1, le=EVENTS_PAGE)] = EVENTS_PAGE,
    ) -> Response[EventsOut]:
        page = await games.events(game_id, caller, after, limit)
        # a seat's page holds its private events (its hand as dealt): never kept by a cache
        return Response(page, headers={**NO_STORE} if caller is not None else {})

    @get(
        "/{game_id:str}/stream",
        operation_id="StreamGameEvents",
        summary="Stream a game's events (Server-Sent Events)",
        description=(
            "The events of `GET /v1/games/{id}/events` as `text/event-stream`: `id:` = the event's "
            "`seq`, `event:` = its `kind`, `data:` = the event as JSON. Resume with the "
            "`Last-Event-ID` header (or `after`). A ticket is single use: when the browser's "
            "EventSource reconnects, it gets 401 and stops; ask a new ticket and open the stream "
            "again with `after` = the last `id` received. A comment line (`: keep-alive`) comes every "
            "15 s of silence. When the game is over or abandoned and every event is sent, an "
            "`event: end` message (`data`: the status) closes the stream; a reconnection after "
            "that is answered 204 (EventSource stops). A server shutting down ends its streams "
            "with `event: end` too, `data: active` (or `waiting`): open the stream again, on "
            "another replica or once the server is back. A seat authenticates with its token, "
            "or, from a browser's EventSource (which sends no headers), with `?ticket=` from "
            "`POST /v1/games/{id}/stream-tickets`. A seat's stream opened while its game waits "
            "for players ends without `end` when the game starts (the seat may have changed "
            "hands meanwhile): open it again with the seat's credential. A seat's stream ends "
            "without `end` too, within 15 s, once the token it was opened with (or its "
            "ticket was asked with) no longer holds the seat: a session logged out or "
            "expired, a seat token revoked.\n\nWith `view=true`, "
            "an `event: game` message, without `id:`, follows the events each time the stream "
            "has caught up with a new version or status (abandoning keeps the version), and "
            "once it has first caught up: `data:` = the game as `GET /v1/games/{id}` answers "
            "this viewer at that version (a seat's own view with its `hand` and "
            "`legal_actions`, never another seat's; the spectator's view without a seat), in "
            "the `Accept-Language` of the request (a browser's EventSource sends the browser's "
            "own). Versions that reach the stream together (one read of the log, or a "
            "catch-up of several pages) are shown once, at the last; a version a later one has "
            "already replaced in this server may be skipped (the later one follows). Unlike a "
            "`GET`, it applies no passed deadline (the clock's sweep does, and its timeout "
            "then comes as events and a game), and a waiting game's claimed and left seats "
            "send none. A seat learns its turn and what it may play from its own stream, "
            "without a `GET` after each action; the last `game` (the result, the seed) comes "
            "before `end`.\n\nLines end with CRLF (`\\r\\n`), as the "
            "Server-Sent Events format allows (a line may end with CRLF, LF or CR): read the "
            "stream with the browser's `EventSource`, or a parser that accepts every one of "
            "them (one that splits on `\\n` alone keeps a `\\r` at the end of each field, and "
            "a blank line is then no longer seen as the end of an event).\n\nAlso refused (422, "
            "limits across fields that JSON Schema cannot state): a `ticket` sent with an "
            "Authorization header, a "
            "`Last-Event-ID` that is no event seq (`validation-error`)."
        ),
        tags=[TAG],
        security=OPTIONAL_SECURITY,
        middleware=[_gives_back_its_slot],
        responses={
            204: ResponseSpec(
                data_container=None,
                description="The game is over or abandoned and every event after `Last-Event-ID` "
                "(or `after`) was sent: nothing more will come (EventSource stops).",
                generate_examples=False,
            ),
            401: UNAUTHORIZED,
            404: NOT_FOUND,
            422: QUERY_REFUSED,
            503: _problem(
                "The server holds `NUMRULES_MAX_STREAMS` streams already, or the client's network "
                "`NUMRULES_MAX_STREAMS_PER_NETWORK`, with `Retry-After`",
                "too-many-streams",
            ),
        },
    )
    async def stream_events(
        self,
        request: Request[Any, Any, Any],
        games: Games,
        caller: SeatOrSession,
        game_id: GameId,
        after: Annotated[
            int | None,
            Parameter(ge=0, le=2**31 - 1, description="only events with a greater `seq`"),
        ] = None,
        ticket: Annotated[
            str | None, Parameter(description="a stream ticket (single use)", max_length=200)
        ] = None,
        last_event_id: Annotated[
            str | None, HeaderParameter(name="Last-Event-ID", required=False, max_length=200)
        ] = None,
        view: Annotated[
            bool,
            Parameter(
                description="also an `event: game` message, the game as `GET /v1/games/{id}` "
                "answers this viewer, at the opening and each time the stream has caught up "
                "with a new version or status"
            ),
        ] = False,
    ) -> Stream:
        if last_event_id is not None and not (
            _SEQ.fullmatch(last_event_id) and int(last_event_id) <= MAX_SEQ
        ):  # checked first: a ticket is not used up by a request refused for its header
            raise field_problem(
                422, "validation-error", "Last-Event-ID", say(EVENT_SEQ, most=MAX_SEQ)
            )
        head = bool(request.scope.get(HEAD_REQUEST))  # the answer's head only: no stream
        state = request.app.state
        slot = games.fanout.reserve(
            state.max_streams, state.stream_network(request.scope), state.max_streams_per_network
        )
        if slot is None:
            raise ProblemError(
                503,
                "too-many-streams",
                say(TOO_MANY_STREAMS),
                headers={"Retry-After": "5"},
            )
        request.scope["state"][STREAM_SLOT] = slot  # given back by `_gives_back_its_slot`
        seat: int | None
        holder: str | None  # the hash of the token holding the seat: checked as it streams
        if ticket is not None:
            if caller is not None:
                raise ProblemError(
                    422,
                    "validation-error",
                    say(TOKEN_OR_TICKET),
                    [("ticket", say(TICKET_NOT_WITH_TOKEN))],
                )
            await games.viewer(game_id, None)  # 404 first
            # a HEAD request (a link's prefetch) checks the ticket, leaving it for the stream
            seat, holder = await games.redeem(game_id, ticket, not head)
        else:
            seat = await games.viewer(game_id, caller)
            holder = None if caller is None else caller.digest
        start: int = after or 0
        if last_event_id is not None:
            start = max(start, int(last_event_id))
        first = await games.events_for(game_id, seat, start)
        page = first.page
        if caller is not None and seat is not None and page.status != "waiting":
            # still the seat's now that it has started: it may have changed hands (left,
            # claimed, started) since it was checked above
            await games.viewer(game_id, caller)
        language = language_of(request)
        if page.status not in ("active", "waiting") and not page.events and not page.more:
            return _EventStream(_nothing(), status_code=204, headers=language_headers(language))
        return _EventStream(
            _nothing()
            if head
            else _messages(games, game_id, seat, first, language if view else None, holder),
            headers={**NO_STORE, **language_headers(language)},
        )

    @post(
        "/{game_id:str}/stream-tickets",
        operation_id="CreateStreamTicket",
        summary="A ticket for a browser's event stream",
        description=(
            "A single-use ticket, valid 60 s, for `GET /v1/games/{id}/stream?ticket=…` as the "
            "token's seat: browsers' EventSource cannot send an Authorization header. It opens "
            "the stream only while the token it was asked with still holds the seat. The "
            "service never logs it."
        ),
        tags=[TAG],
        status_code=201,
        security=SECURITY,
        responses={401: UNAUTHORIZED, 404: NOT_FOUND},
    )
    async def create_ticket(
        self, request: Request[Any, Any, Any], games: Games, caller: SeatOrSession, game_id: GameId
    ) -> Response[TicketOut]:
        ticket = await games.ticket(game_id, caller, await unwanted_body(request))
        return Response(ticket, status_code=201, headers={**NO_STORE})

    @post(
        "/{game_id:str}/abandon",
        operation_id="AbandonGame",
        summary="Abandon a game",
        description=(
            "End a game nobody can finish (any seat, with its token): status `abandoned`, no "
            "result; `seed` and `salt` are revealed. 409 `game-over` when it is already over. "
            "A `waiting` game (open seats) is cancelled so by its creator's session only (403 "
            "`not-the-creator` for its seats); a game of bots only (created so, or a table its "
            "creator filled with bots) is ended by its creator: the session that created it, "
            "or, for one created without a session, the `creator_token` its creation answered "
            "(`Authorization: Bearer <creator_token>`), since none of its seats has a token."
        ),
        tags=[TAG],
        status_code=200,
        security=ABANDON_SECURITY,
        responses={
            401: UNAUTHORIZED,
            403: _problem(
                "A seat of a waiting game, which only its creator cancels", "not-the-creator"
            ),
            404: NOT_FOUND,
            409: _problem("The game is already over or abandoned", "game-over"),
        },
    )
    async def abandon_game(
        self, request: Request[Any, Any, Any], games: Games, caller: SeatOrSession, game_id: GameId
    ) -> AbandonOut:
        return await games.abandon(game_id, caller, await unwanted_body(request))

    @post(
        "/{game_id:str}/hint",
        operation_id="PostGameHint",
        summary="A hint for my seat",
        description=(
            "The `expert` bot's suggestion for the token's seat (or the seat the session's "
            "account joined), on its turn: `action` (postable as it is to `/actions`) and, for "
            "each legal action, `value`, its estimated round score for the seat (its team's "
            "under teams; in numwin that score less the mean of the others' three turns a "
            "seat ahead, a combination short of 5 cards charged its fill-up, the lowest "
            "best), best first, over `samples` worlds "
            "consistent with what the seat can see (never another seat's hidden cards). Thought "
            "off the event loop within the bots' per-move budget; one hint in flight per seat, "
            "across replicas (409 `hint-in-flight`), and `NUMRULES_HINTS_PER_MINUTE` a minute "
            "per seat (10 by default; 429 `hint-rate-limited` with `Retry-After`); its think "
            "time is charged to the bot-CPU quota of the caller's account, else network "
            "(`NUMRULES_BOT_CPU_SECONDS`), past which a hint is 429 `bot-quota`; the export "
            "marks the seat's next action `hint_used`. 409 "
            "`not-your-turn` when the seat may not act now, `game-over` once over, `hints-off` "
            "when the game was created with the option `hints: false`."
        ),
        tags=[TAG],
        status_code=200,
        security=SECURITY,
        responses={
            401: UNAUTHORIZED,
            404: NOT_FOUND,
            409: _problem(
                "Not the seat's turn, the game over or not started, hints off, or a hint "
                "already in flight",
                "not-your-turn",
                "game-over",
                "game-waiting",
                "hints-off",
                "hint-in-flight",
            ),
            429: _problem(
                "Too many requests, the seat's hints of the minute asked, or the bot-CPU quota "
                "of the caller's account (else network) spent by its bots and hints (retry "
                "after `Retry-After` seconds)",
                "hint-rate-limited",
                "bot-quota",
            ),
        },
    )
    async def post_hint(
        self, request: Request[Any, Any, Any], games: Games, caller: SeatOrSession, game_id: GameId
    ) -> Response[HintOut]:
        network = request.app.state.stream_network(request.scope)
        found = await games.hint(game_id, caller, network, await unwanted_body(request))
        return Response(found, headers={**NO_STORE})

    @post(
        "/{game_id:str}/seats/{seat:int}/join",
        operation_id="JoinSeat",
        summary="Join a seat bound to my account",
        description=(
            'The account named for a seat at creation (`"account": pseudo` in `players`) '
            "confirms it with its session: from then on its session acts for the seat as the seat "
            "token does, and the finished game counts in the account's history and stats. Joining "
            "again changes nothing."
        ),
        tags=[TAG],
        status_code=200,
        security=[{"sessionToken": []}],
        responses={
            401: _problem("No session token, or not a live one", "unauthorized"),
            403: _problem("The seat is not bound to this account", "not-your-seat"),
            404: _problem("No such game, or no such seat in it", "not-found"),
        },
    )
    async def join_seat(
        self,
        request: Request[Any, Any, Any],
        games: Games,
        game_id: GameId,
        seat: Annotated[int, Parameter(description="the seat, 0-based (another: 404)")],
    ) -> SeatJoined:
        caller = await require_session(request)
        return await games.join(game_id, seat, caller, await unwanted_body(request))

    @get(
        "/{game_id:str}/export",
        operation_id="ExportGame",
        summary="Export a finished game",
        description=(
            "Once the game is over or abandoned: everything needed to replay it offline with the "
            "engine (`engine.core.match.MatchRecord.from_export`, then `replay`) to the same "
            "result, and to check the deal against `seed_commitment`. An action's `seq` is the "
            "`version` it produced. 409 `game-active` while the game is played (its actions hold "
            "hidden cards)."
        ),
        tags=[TAG],
        security=OPTIONAL_SECURITY,
        responses={
            401: UNAUTHORIZED,
            404: NOT_FOUND,
            409: _problem("The game is still being played", "game-active"),
        },
    )
    async def export_game(
        self, request: Request[Any, Any, Any], games: Games, caller: SeatOrSession, game_id: GameId
    ) -> Response[ExportOut]:
        language = language_of(request)
        exported = await games.export(game_id, caller)
        return Response(localized(exported, language), headers=language_headers(language))

    @get(
        "/",
        operation_id="ListGames",
        summary="List the open tables",
        description=(
            "The games waiting for players (issue 26): status `waiting`, with open seats, "
            "newest first (`created_at`, then `id`), at most `limit` a page (default "
            f"{TABLES_PAGE}, at most {TABLES_MAX}); ask the next page with `cursor=next_cursor` "
            "(null on the last). `status` is `open` (the only list: any other value is 422); "
            "`ruleset` keeps one ruleset's. Each item holds public facts only: the seats' "
            "names, bots and which are open; never a token, hand, seed or account. A game past "
            "`NUMRULES_WAITING_HOURS` is not listed. A cursor is opaque.\n\nAlso refused (422, "
            "limits that JSON Schema does not state): an unknown `ruleset` "
            "(`validation-error`), a `cursor` that is not this list's `next_cursor` "
            "(`bad-cursor`)."
        ),
        tags=[TAG],
        security=[],
        responses={
            422: _problem(
                "`status` other than `open`, an unknown `ruleset`, `limit` out of range, or a "
                "bad `cursor`",
                "validation-error",
                "bad-cursor",
            )
        },
    )
    async def list_games(
        self,
        games: Games,
        status: Annotated[
            Literal["open"], Parameter(description="`open`: the waiting games")
        ] = "open",
        ruleset: Annotated[
            str | None, Parameter(max_length=32, description="only this ruleset's tables")
        ] = None,
        limit: Annotated[int, Parameter(ge=1, le=TABLES_MAX)] = TABLES_PAGE,
        cursor: Annotated[
            str | None, Parameter(max_length=400, description="`next_cursor` of the previous page")
        ] = None,
    ) -> Response[OpenTables]:
        page = await Tables(games).list_open(ruleset, limit, cursor)
        return Response(page, headers={**NO_STORE})

    @post(
        "/{game_id:str}/seats/{seat:int}/claim",
        operation_id="ClaimSeat",
        summary="Claim an open seat",
        description=(
            "Take an open seat of a waiting game with an account's session (every ruleset: "
            "claiming needs an account): 201 `{seat, token}`, the seat's token (secret, stored "
            "only hashed), and the seat is bound to the account (its session acts for it too). "
            "The claim that fills the last open seat starts the game (`status: active`). "
            "Concurrent claims of one seat: exactly one wins, the others get 409 `seat-taken`. "
            "One seat per account and game: 409 `already-seated` for another seat. The same "
            "account claiming its seat again gets 200 and its token: the same token with the "
            "same session (a fresh one once a new password revoked it); with another session "
            "(another device) a fresh token for the same seat, the earlier one revoked "
            "(tokens are stored only hashed: the earlier one is kept sealed for the session "
            "that claimed it, nothing else can open it). 409 "
            "`game-over` when the game was cancelled or lapsed."
        ),
        tags=[TAG],
        status_code=201,
        security=[{"sessionToken": []}],
        responses={
            200: ResponseSpec(
                data_container=ClaimedSeat,
                description="The account's seat already: its token again",
                generate_examples=False,
            ),
            401: _problem("No session token, or not a live one", "unauthorized"),
            404: _problem("No such game, or no such seat in it", "not-found"),
            409: _problem(
                "The seat is taken, the account holds another seat, or the game no longer waits",
                "seat-taken",
                "already-seated",
                "game-started",
                "game-over",
            ),
        },
    )
    async def claim_seat(
        self,
        request: Request[Any, Any, Any],
        games: Games,
        game_id: GameId,
        seat: Annotated[int, Parameter(description="the seat, 0-based (another: 404)")],
    ) -> Response[ClaimedSeat]:
        caller = await require_session(request)
        session_token = bearer(request, SESSION_TOKEN)
        assert session_token is not None
        refusal = await unwanted_body(request)
        claimed, fresh = await Tables(games).claim(game_id, seat, caller, session_token, refusal)
        return Response(claimed, status_code=201 if fresh else 200, headers={**NO_STORE})

    @post(
        "/{game_id:str}/seats/{seat:int}/leave",
        operation_id="LeaveSeat",
        summary="Leave a seat before the start",
        description=(
            "The account holding a seat of a waiting game leaves it (its session): the seat is "
            "open again (with the name it was opened with), its token and its unused stream "
            "tickets revoked. 409 "
            "`game-started` once the game has started (abandon it instead), 403 `not-your-seat` "
            "for a seat the account does not hold."
        ),
        tags=[TAG],
        status_code=200,
        security=[{"sessionToken": []}],
        responses={
            401: _problem("No session token, or not a live one", "unauthorized"),
            403: _problem("The account does not hold this seat", "not-your-seat"),
            404: _problem("No such game, or no such seat in it", "not-found"),
            409: _problem("The game no longer waits", "game-started", "game-over"),
        },
    )
    async def leave_seat(
        self,
        request: Request[Any, Any, Any],
        games: Games,
        game_id: GameId,
        seat: Annotated[int, Parameter(description="the seat, 0-based (another: 404)")],
    ) -> LeftSeat:
        caller = await require_session(request)
        return await Tables(games).leave(game_id, seat, caller, await unwanted_body(request))

    @post(
        "/{game_id:str}/start",
        operation_id="StartGame",
        summary="Start a waiting game now",
        description=(
            "The creator's session starts its waiting game at once: round 1 is dealt, status "
            '`active`. With `{"fill_with_bots": level}` (`random`, `basic`, `expert`) the '
            "seats still open are played by bots of that level (named as they were opened, "
            "else `Bot <n>`); without it, open seats left are 409 `seats-open`. The body may "
            "be empty. Answers the game as `GET /v1/games/{id}` shows it to the caller. 403 "
            "`not-the-creator` for another account, 409 `game-started` when it already runs, "
            "`game-over` when cancelled or lapsed."
        ),
        tags=[TAG],
        status_code=200,
        security=[{"sessionToken": []}],
        opt={"json_body": True},
        responses={
            401: _problem("No session token, or not a live one", "unauthorized"),
            403: _problem("Not the game's creator", "not-the-creator"),
            404: NOT_FOUND,
            409: _problem(
                "Open seats left without `fill_with_bots`, or the game no longer waits",
                "seats-open",
                "game-started",
                "game-over",
            ),
        },
    )
    async def start_game(
        self,
        request: Request[Any, Any, Any],
        games: Games,
        caller: SeatOrSession,
        game_id: GameId,
    ) -> Response[GameOut]:
        session = await require_session(request)
        raw = await request.body()
        body = decode_body(raw, StartGame, A_START_OBJECT) if raw.strip() else StartGame()
        game = await Tables(games).start(game_id, body, session, caller or Credential(""))
        return Response(game, headers={**_etag(game.version), **NO_STORE})

    @post(
        "/{game_id:str}/rematch",
        operation_id="RematchGame",
        summary="Play again: the rematch of a finished game",
        description=(
            "Once the game is over or abandoned (409 `game-active` before), any of its seats "
            "(its token, or its account's session) asks for its rematch: the first call creates "
            "it (201), every later one answers the same game (200). It is answered as `POST "
            "/v1/games` answers a creation: `seats` lists every seat, `token` only on the "
            "caller's own new seat, and only on that seat's first call (later calls: no "
            "token). Seats rotate by one (the player of seat `s` sits at `s - 1`: old seat 1 is "
            "the new seat 0), names, accounts (bound as they were: a joined account's session "
            "acts at once) and bots are kept, and so is every creation option (the creation "
            "request is kept whole); the seed is always a fresh one the server draws. `GET` of "
            "the old game then shows `rematch`, the new game's id."
        ),
        tags=[TAG],
        status_code=201,
        security=SECURITY,
        responses={
            200: ResponseSpec(
                data_container=GameCreated,
                description="The rematch already asked for: the same game (the caller's new "
                "seat's token on its first call only)",
                generate_examples=False,
            ),
            401: UNAUTHORIZED,
            404: NOT_FOUND,
            409: _problem(
                "The game is still waiting or being played, or it is a table that never "
                "started (cancelled or lapsed while waiting)",
                "game-active",
                "never-started",
            ),
        },
    )
    async def rematch_game(
        self, request: Request[Any, Any, Any], games: Games, caller: SeatOrSession, game_id: GameId
    ) -> Response[GameCreated]:
        refusal = await unwanted_body(request)
        created, fresh = await Tables(games).rematch(game_id, caller, refusal)
        headers = {**NO_STORE, **_etag(created.version)}
        if fresh:
            headers["Location"] = f"/v1/games/{created.id}"
        return Response(created, status_code=201 if fresh else 200, headers=headers)


route_handlers = [GameController]
