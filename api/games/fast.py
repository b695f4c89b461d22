"""The fast path of a game being played (issue 27, "every layer paid for").

A game in play is two requests an action: `GET /v1/games/{id}` (the seat's view, what it may
do) and `POST /v1/games/{id}/actions`. Litestar's pipeline around their handlers (hygiene's
wrapper, the CORS middleware, the router, the request hooks, the signature model, the
response object and its headers) cost about as much CPU as the handlers themselves, database
round trip included. :class:`FastGames` is the app's outermost layer, around
:class:`api.ops.observe.Observe`: every request keeps its request id, access line and
metrics, the ones it answers itself from it directly (:meth:`Observe.finish`), without
Observe's wrapper of `send`, and their answers go straight to uvicorn's connection
(:func:`api.http.fastpath.respond`). It calls the same service method the handler calls in
the common case:

* the path is a game's (32 lowercase hex digits) or its actions', the method `GET` or `POST`,
  no query string;
* `Authorization: Bearer <seat token>` (a session token goes down the pipeline, which looks
  it up), at most one `Accept-Language`, no `Origin`, no `If-Match`, no `Idempotency-Key`;
  a `GET` has no body, a `POST` exactly `Content-Type: application/json`;
* a `POST`'s body (at most the configured cap, and no `Content-Length` over it: the pipeline
  refuses that one at once, unread) decodes strictly into an action, no deeper than
  :data:`api.http.body.MAX_DEPTH`.

It answers with the very bytes the handler's answer would have (status, headers, body). When
the service raises (a refusal, a game that does not exist, a storage error) the request goes
down the pipeline with the exception in its scope (:data:`api.http.fastpath.FAILED`), which
the pipeline's first hook raises: the problem, its language and its headers are the
pipeline's own, and the operation is never run twice (an action is applied once or refused
once). Anything else not in the common case goes down the pipeline untouched, which answers it
as before. The rate limiter, when on, counts the request here once (`COUNTED`, as the rules'
fast path does). tests/games/test_fast_games.py holds both paths to the same bytes,
tests/games/test_fast_games_served.py as uvicorn serves them.
"""

from __future__ import annotations

import time
from typing import Any

import msgspec
from litestar.types import ASGIApp, Receive, Send

from api.games.answers import encode_answer
from api.games.service import Credential, GameService
from api.http.body import too_deep
from api.http.fastpath import (
    COUNTED,
    FAILED,
    JSON,
    FastPath,
    count,
    plain_language,
    read_body,
    respond,
)
from api.http.languages import localized_json
from api.http.responses import HEX_ID
from api.http.tokens import SEAT_PREFIX, token_hash, well_formed
from api.ops.logs import request_id
from api.ops.metrics import metrics_of_state
from api.ops.observe import BEGUN, Observe, request_id_of
from engine.core.actions import Action

_PREFIX = "/v1/games/"
_ACTIONS = "/actions"
#: The route templates the access line and the metrics name (Litestar's `path_template`).
GAME_ROUTE = "/v1/games/{game_id}"
ACTIONS_ROUTE = "/v1/games/{game_id}/actions"
#: Headers that take a request off the fast path (the handlers read them).
_CONDITIONS = frozenset({b"if-match", b"idempotency-key"})
_NO_STORE = (b"cache-control", b"no-store")


class FastGames(FastPath):
    """The ASGI wrapper described in the module docstring. It sits outside
    :class:`api.ops.observe.Observe` (`observer`, the app it hands requests to): the answers
    it sends itself get their request id, metrics and access line from it directly, without
    Observe's wrapper of `send` (issue 27)."""

    def __init__(self, app: ASGIApp, *, observer: Observe, **config: Any) -> None:
        super().__init__(app, **config)
        self.observer = observer
        self.decode_action = msgspec.json.Decoder(Action, strict=True).decode

    async def __call__(self, scope: Any, receive: Receive, send: Send) -> None:
        method = scope["type"] == "http" and scope["method"]
        path: str = scope["path"] if method in ("GET", "POST") else ""
        if not path.startswith(_PREFIX) or scope["query_string"]:
            await self.app(scope, receive, send)
            return
        game_id = path[len(_PREFIX) :]
        acting = method == "POST"
        if acting:
            game_id = game_id.removesuffix(_ACTIONS)
            if len(game_id) + len(_PREFIX) + len(_ACTIONS) != len(path):
                game_id = ""
        plain = plain_language(scope, JSON if acting else None, _CONDITIONS, self.max_body)
        caller = _seat_token(plain[1]) if plain is not None else None
        if plain is None or caller is None or not HEX_ID.fullmatch(game_id):
            await self.app(scope, receive, send)
            return
        begun = (request_id_of(scope["headers"]), time.perf_counter())
        token = request_id.set(begun[0])
        route = None
        try:
            answer = await self._serve(
                scope, receive, send, game_id, caller, plain[0], acting, begun
            )
            if answer is not None:
                route, content, head, counted = answer
                await respond(
                    send,
                    scope,
                    route,
                    content,
                    head,
                    counted,
                    worded=route == GAME_ROUTE,
                    vary_origin=self.vary_origin,
                    request_id=begun[0],
                )
        finally:
            request_id.reset(token)
            if BEGUN not in scope:  # not handed on: answered here (500: it failed first)
                self.observer.finish(scope, route, 500 if route is None else 200, begun)

    async def _serve(
        self,
        scope: Any,
        receive: Receive,
        send: Send,
        game_id: str,
        caller: Credential,
        language: str,
        acting: bool,
        begun: tuple[str, float],
    ) -> tuple[str, bytes, list[tuple[bytes, bytes]], list[tuple[bytes, bytes]]] | None:
        """The answer to send (its route, content, own headers and the limiter's), or None
        once the request was handed on with its id and start (`BEGUN`)."""
        action = None
        if acting:
            body, receive = await read_body(receive, self.max_body)
            action = self._action(body)
            if action is None:  # the pipeline answers it (and reads the body again)
                await self._hand_on(scope, receive, send, begun)
                return None
        counted = (
            [] if self.limiter is None else await count(self.limiter, self.litestar_app, scope)
        )
        if counted is None:  # the 429: the pipeline answers it
            await self._hand_on(scope, receive, send, begun)
            return None
        state = self.litestar_app.state
        games: GameService = state.games
        try:
            if action is None:
                game = await games.get(game_id, caller)
                content = localized_json(game, language, encode_answer)
                head = [_etag(game.version), _NO_STORE, (b"content-language", language.encode())]
            else:
                answer, _ = await games.act(game_id, caller, action, None, None)
                content = encode_answer(answer)
                head = [_etag(answer.version), _NO_STORE]
        except Exception as exc:  # the pipeline answers it, as the handler's own exception
            scope[COUNTED] = counted
            scope[FAILED] = exc
            await self._hand_on(scope, receive, send, begun)
            return None
        if action is not None:
            metrics_of_state(state).actions_applied.inc()
        return GAME_ROUTE if action is None else ACTIONS_ROUTE, content, head, counted

    async def _hand_on(
        self, scope: Any, receive: Receive, send: Send, begun: tuple[str, float]
    ) -> None:
        scope[BEGUN] = begun
        await self.app(scope, receive, send)

    def _action(self, body: bytes | None) -> Any:
        """The body's action, or None for anything the pipeline should refuse."""
        if not body or too_deep(body):
            return None
        try:
            return self.decode_action(body)
        except Exception:
            return None


def _etag(version: int) -> tuple[bytes, bytes]:
    return b"etag", f'"{version}"'.encode()


#: Seat headers already checked and hashed (:func:`_seat_token`), at most :data:`_SEATS_KEPT`.
_SEATS: dict[bytes, Credential] = {}
_SEATS_KEPT = 4096


def _seat_token(authorization: bytes | None) -> Credential | None:
    """The caller of `Authorization: Bearer <seat token>` as the handlers resolve it
    (:func:`api.games.routes.provide_caller`); None for any other header or none.

    A game's seats send the same header on every request, and its check and hash cost a
    request about 3 µs (issue 27): a header that is a seat token's (at most 200 characters:
    `well_formed`) is kept, once checked, with its caller; when :data:`_SEATS_KEPT` are
    kept, they are let go together. Any other header is checked every time and never kept,
    so junk costs no memory (an attacker's finding)."""
    if authorization is None:
        return None
    caller = _SEATS.get(authorization)
    if caller is None:
        caller = _bearer_seat(authorization)
        if caller is not None:
            if len(_SEATS) >= _SEATS_KEPT:
                _SEATS.clear()
            _SEATS[authorization] = caller
    return caller


def _bearer_seat(authorization: bytes) -> Credential | None:
    scheme, _, token = authorization.decode("latin-1").strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token.startswith(SEAT_PREFIX) or not well_formed(token):
        return None
    return Credential(token_hash(token))
