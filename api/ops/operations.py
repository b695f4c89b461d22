"""Production operations (issue 13), wired into the app by `api.app.create_app`: structured
logs (`api.ops.logs`), metrics (`api.ops.metrics`, `GET /metrics`), the access line and request id of
every request (`api.ops.observe`), rate limiting (`api.ops.ratelimit`) and a graceful shutdown.

**Graceful shutdown.** On SIGTERM (or SIGINT) uvicorn stops accepting connections, lets the
requests under way finish for up to `NUMRULES_GRACEFUL_SHUTDOWN_SECONDS`, and only then runs
the app's lifespan shutdown, where the stored games' fan-out is closed. An event stream is a
request that never finishes by itself: it would hold the server for the whole timeout, then
be cut without its `end` message. So this module's lifespan chains a handler in front of
uvicorn's own for those signals: it closes the fan-out at once, every open stream sends
`event: end` and returns, and the server finishes as soon as the ordinary requests have
(a stream opened after the signal ends at once too). Signal handlers exist only in the main
thread: a server run in another thread (the in-process tests) keeps uvicorn's behaviour.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from types import FrameType
from typing import Any

import msgspec
from litestar import Litestar
from litestar.openapi.spec import (
    Example,
    OpenAPIHeader,
    OpenAPIMediaType,
    OpenAPIResponse,
    Reference,
    Schema,
)
from litestar.openapi.spec.enums import OpenAPIType
from litestar.routes import HTTPRoute

from api.http.problems import (
    DATABASE_RETRY_AFTER,
    DATABASE_UNAVAILABLE,
    MEDIA_TYPE,
    database_unavailable,
)
from api.ops.logs import configure_logging
from api.ops.metrics import Metrics
from api.ops.observe import NoteRoute, Observe
from api.ops.ratelimit import EXEMPT, EXEMPT_PREFIX, trusted_networks
from api.ops.settings import Settings

SIGNALS = (signal.SIGTERM, signal.SIGINT)
_Handler = Callable[[int, FrameType | None], Any] | int | signal.Handlers | None


def observe(application: Litestar, settings: Settings) -> Observe:
    """Logs configured, metrics kept in `app.state.metrics`, and the whole app (hygiene
    included) wrapped in :class:`api.ops.observe.Observe` (returned). Call it in `create_app`
    after `HttpHygiene` wrapped `note_route(application.asgi_handler)`; only a fast path that
    observes its own answers goes outside it."""
    configure_logging(settings)
    metrics = Metrics()
    metrics.bind(application.state)
    application.state.metrics = metrics
    observer = Observe(
        application.asgi_handler, metrics, trusted_networks(settings.trusted_proxies)
    )
    application.asgi_handler = observer
    return observer


note_route = NoteRoute


def operations_lifespan(
    settings: Settings,
) -> Callable[[Litestar], AbstractAsyncContextManager[None]]:
    """Logging configured again (uvicorn configures its loggers once more when it is given
    an app object rather than an import string), and the shutdown signal handlers."""

    @asynccontextmanager
    async def lifespan(application: Litestar) -> AsyncIterator[None]:
        configure_logging(settings)
        games = getattr(application.state, "games", None)
        restore = _end_streams_on_signal(games.fanout) if games is not None else None
        try:
            yield
        finally:
            if restore is not None:
                restore()

    return lifespan


def _end_streams_on_signal(fanout: Any) -> Callable[[], None] | None:
    """Chain a handler that closes `fanout` in front of the current SIGTERM and SIGINT
    handlers (uvicorn's); returns what puts them back. None outside the main thread."""
    if threading.current_thread() is not threading.main_thread():
        return None
    loop = asyncio.get_running_loop()
    closing: list[asyncio.Task[None]] = []  # a reference, so the task is not collected

    def close() -> None:
        if not closing:
            closing.append(loop.create_task(fanout.close()))

    previous: dict[int, _Handler] = {}

    def handler(sig: int, frame: FrameType | None) -> None:
        loop.call_soon_threadsafe(close)
        chained = previous.get(sig)
        if callable(chained):
            chained(sig, frame)

    for sig in SIGNALS:
        previous[sig] = signal.signal(sig, handler)

    def restore() -> None:
        for sig, old in previous.items():
            if signal.getsignal(sig) is handler:
                signal.signal(sig, old)

    return restore


RETRY_AFTER = OpenAPIHeader(
    schema=Schema(type=OpenAPIType.INTEGER, minimum=1),
    description="seconds until the client's window ends",
)
#: On every counted answer, the 429 included (IETF draft "RateLimit header fields for HTTP").
RATE_LIMIT_HEADERS = {
    "RateLimit-Limit": OpenAPIHeader(
        schema=Schema(type=OpenAPIType.INTEGER, minimum=1),
        description="requests a minute the request's bucket allows",
    ),
    "RateLimit-Remaining": OpenAPIHeader(
        schema=Schema(type=OpenAPIType.INTEGER, minimum=0),
        description="requests left in the bucket's current window",
    ),
    "RateLimit-Reset": OpenAPIHeader(
        schema=Schema(type=OpenAPIType.INTEGER, minimum=1),
        description="seconds until the window ends",
    ),
}
#: The stateless rules endpoints: where an integrator's back end sends its API key.
RULES_PREFIX = "/v1/rulesets"


def document_rate_limit(application: Litestar) -> None:
    """Every operation but the exempt ones may answer 429 `rate-limited`, with `Retry-After`
    and the `RateLimit-*` headers (documented whatever the settings: the spec is the same for
    every deployment); the stateless rules endpoints list the API key as an optional scheme
    (a key may go beside any other token, which OpenAPI's alternatives cannot say)."""
    problem = Reference(ref="#/components/schemas/Problem")
    components = application.openapi_schema.components
    components.headers = {**(components.headers or {}), **RATE_LIMIT_HEADERS}
    headers: dict[str, OpenAPIHeader | Reference] = {"Retry-After": RETRY_AFTER}
    headers |= {name: Reference(ref=f"#/components/headers/{name}") for name in RATE_LIMIT_HEADERS}
    for path, path_item in (application.openapi_schema.paths or {}).items():
        if path in EXEMPT or path.startswith(EXEMPT_PREFIX):
            continue
        for method in ("get", "post", "put", "patch", "delete"):
            operation = getattr(path_item, method)
            if operation is None:
                continue
            if path.startswith(RULES_PREFIX) and operation.security is None:
                operation.security = [{}, {"apiKey": []}]
            responses = operation.responses
            if responses is None:
                responses = operation.responses = {}
            responses.setdefault(
                "429",
                OpenAPIResponse(
                    description="Too many requests in this request's bucket (`rate-limited`): "
                    "its API key's, its account's sessions', its seat or sheet token's, else "
                    "its network's; retry after `Retry-After` seconds.",
                    headers=headers,
                    content={MEDIA_TYPE: OpenAPIMediaType(schema=problem)},
                ),
            )


#: The tags of the operations on stored data: each may answer 503 `database-unavailable`. A
#: handler says otherwise with `opt={"database": False}` (the terms, a constant), and an
#: operation under another tag that uses the database says so with `opt={"database": True}`.
DATABASE_TAGS = {"Stored games", "Accounts", "Score sheets"}
DATABASE_UNAVAILABLE_DESCRIPTION = (
    "The database cannot serve now (`database-unavailable`: unreachable, not answering within "
    "the configured timeouts, every connection busy, shutting down): retry after "
    "`Retry-After` seconds."
)


def _uses_database(handler: Any) -> bool:
    choice = handler.opt.get("database")
    if choice is not None:
        return bool(choice)
    return bool(DATABASE_TAGS & set(handler.tags or ()))


def database_operations(application: Litestar) -> set[str]:
    """The ids of the operations that use the database (each may answer 503
    `database-unavailable`)."""
    return {
        handler.operation_id
        for route in application.routes
        if isinstance(route, HTTPRoute)
        for handler in route.route_handlers
        if _uses_database(handler) and isinstance(handler.operation_id, str)
    }


def document_database_unavailable(application: Litestar) -> None:
    """Every operation that uses the database documents 503 `database-unavailable` with
    `Retry-After` and an example (issue 21); an operation that already has a 503 of its own
    (the event stream's `too-many-streams`) lists both."""
    operations = database_operations(application)
    problem = Reference(ref="#/components/schemas/Problem")
    example = Example(
        summary="The database cannot serve",
        value=msgspec.to_builtins(database_unavailable().problem),
    )
    retry = OpenAPIHeader(
        schema=Schema(type=OpenAPIType.INTEGER, minimum=1),
        description=f"seconds before trying again ({DATABASE_RETRY_AFTER})",
    )
    for path_item in (application.openapi_schema.paths or {}).values():
        for method in ("get", "post", "put", "patch", "delete"):
            operation = getattr(path_item, method)
            if operation is None or operation.operation_id not in operations:
                continue
            responses = operation.responses
            if responses is None:
                responses = operation.responses = {}
            found = responses.get("503")
            if isinstance(found, OpenAPIResponse):
                found.description = f"{found.description} Or: {DATABASE_UNAVAILABLE_DESCRIPTION}"
                found.headers = {**(found.headers or {}), "Retry-After": retry}
                for media in (found.content or {}).values():
                    media.examples = {**(media.examples or {}), DATABASE_UNAVAILABLE: example}
                continue
            responses["503"] = OpenAPIResponse(
                description=DATABASE_UNAVAILABLE_DESCRIPTION,
                headers={"Retry-After": retry},
                content={
                    MEDIA_TYPE: OpenAPIMediaType(
                        schema=problem, examples={DATABASE_UNAVAILABLE: example}
                    )
                },
            )
