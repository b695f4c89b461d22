"""What every request leaves behind (issue 13): its request id, one access line, its metrics.

:class:`Observe` wraps the whole ASGI application, outside `api.http.hygiene.HttpHygiene`, so it
sees every answer (the router's 404s, hygiene's early refusals, the 429s of the rate limiter
included) and times all of it. For each HTTP request it

* takes the client's `X-Request-ID` when it is sane (1 … 128 visible ASCII characters, no
  space, no quote), else makes one (32 hex digits), and sends it back in `X-Request-ID`; it is
  also set in `api.ops.logs.request_id` while the request is served, so that every log line of the
  request (an unexpected error's included) carries it;
* writes one access line (`api.ops.logs.log_access`): request id, method, route template, status,
  duration in milliseconds, client address (behind trusted proxies, the address
  `X-Forwarded-For` names, as the rate limiter reads it);
* counts it in the app's metrics (`api.ops.metrics`).

The route template is what Litestar's router writes into the request's scope
(`path_template`); hygiene hands the app a copy of the scope for HEAD requests, so
:class:`NoteRoute`, just around the app, copies the template into the record this wrapper
shares through the scope.

A fast path outside this wrapper (:class:`api.games.fast.FastGames`, issue 27) does the same
for the answers it sends itself: :func:`request_id_of`, the `X-Request-ID` header last, and
:meth:`Observe.finish`. When it hands a request on after it began it (a refusal for the
pipeline to word), it leaves its id and start in the scope (:data:`BEGUN`), which this
wrapper takes: one id and one duration a request, whichever layer answers it.
"""

from __future__ import annotations

import itertools
import logging
import re
import secrets
import time
from typing import Any

from litestar.types import ASGIApp, Receive, Send

from api.ops.logs import access_log, log_access, request_id
from api.ops.metrics import Metrics
from api.ops.ratelimit import Network, client_address

#: A request id taken from the client: visible ASCII but space and quotes, at most 128 long.
_SANE_ID = re.compile(r"[!#-&(-~]{1,128}")
#: The route label of a request no route matched (a 404 from the router, an early refusal).
UNMATCHED = "unmatched"
_RECORD = "numrules.observe"
#: Generated ids: 64 random bits per process, then a counter (unique without a system call
#: for randomness on every request, which the HTTP profile showed at 1.4 % of a request).
_ID_PREFIX = secrets.token_hex(8)
_ids = itertools.count(1)


#: The scope key of a request a fast path began observing: (its request id, its start).
BEGUN = "numrules.observe.begun"


def request_id_of(headers: list[tuple[bytes, bytes]]) -> str:
    """The request's id: the client's `X-Request-ID` when sane, else a new one."""
    for name, value in headers:
        if len(name) == 12 and name.lower() == b"x-request-id":
            text = value.decode("latin-1")
            if _SANE_ID.fullmatch(text):
                return text
            break
    return f"{_ID_PREFIX}{next(_ids):016x}"


class NoteRoute:
    """Innermost: copies the route template Litestar found into the shared record."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Receive, send: Send) -> None:
        try:
            await self.app(scope, receive, send)
        finally:
            record = scope.get(_RECORD)
            if record is not None:
                record["route"] = scope.get("path_template") or None


class Observe:
    """The ASGI wrapper described in the module docstring."""

    def __init__(self, app: ASGIApp, metrics: Metrics, trusted: tuple[Network, ...]) -> None:
        self.app = app
        self.metrics = metrics
        self.trusted = trusted

    async def __call__(self, scope: Any, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        begun = scope.get(BEGUN)
        if begun is None:
            started = time.perf_counter()
            rid = request_id_of(scope["headers"])
        else:
            rid, started = begun
        record: dict[str, Any] = {"route": None}
        scope[_RECORD] = record
        status = 500  # what the server answers when the app fails before it starts one
        header = (b"x-request-id", rid.encode())

        async def send_wrapper(message: Any) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message = {**message, "headers": [*message.get("headers", ()), header]}
            await send(message)

        token = request_id.set(rid)
        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            request_id.reset(token)
            self.finish(scope, record["route"], status, (rid, started))

    def finish(self, scope: Any, route: str | None, status: int, begun: tuple[str, float]) -> None:
        """The request's metrics and access line, once it was answered with `status`
        (`begun`: its request id and start)."""
        rid, started = begun
        seconds = time.perf_counter() - started
        method = scope["method"]
        self.metrics.observe(method, route or UNMATCHED, status, seconds)
        if access_log.isEnabledFor(logging.INFO):
            log_access(
                {
                    "request_id": rid,
                    "method": method,
                    "route": route,
                    "status": status,
                    "duration_ms": round(seconds * 1000, 2),
                    "client": client_address(scope, self.trusted),
                }
            )
