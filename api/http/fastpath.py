"""What the fast paths share (:mod:`api.rules.fast`, :mod:`api.games.fast`): ASGI wrappers that
answer the common case of a few hot operations themselves, with the bytes the pipeline would
send, and hand anything else to the pipeline as if they were not there.

* :func:`read_body` reads a body up to a cap; :func:`replay` gives the pipeline what was read.
* :func:`plain_language` checks the headers the fast paths take and picks the answer's language.
* :data:`FAILED`: the scope key through which a fast path hands the pipeline the exception an
  operation raised (a refusal, a storage error): the pipeline's first request hook
  (:func:`api.http.hygiene.before_request`) raises it, so its exception handlers, the rate
  limiter's headers and the access line answer it exactly as they answer the operation's own
  exceptions, without calling the operation a second time.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar.types import ASGIApp, Receive, Send
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, RequestResponseCycle

from api.http.hygiene import COUNTED, FAST_FAILED, NOSNIFF, _refuse_early
from api.http.problems import ProblemError
from engine.core.texts import pick_language

#: The scope key of an exception a fast path hands the pipeline (module docstring).
FAILED = FAST_FAILED
__all__ = [
    "COUNTED",
    "FAILED",
    "JSON",
    "FastPath",
    "count",
    "plain_language",
    "read_body",
    "respond",
    "unwrap",
]

JSON = b"application/json"
_RECORD = "numrules.observe"  # api.ops.observe's record of the request (its route)
_REFUSED = frozenset({b"origin", b"transfer-encoding", b"content-encoding"})
END: Any = {"type": "http.request", "body": b"", "more_body": False}


class FastPath:
    """What a fast path holds: the pipeline it hands requests to (`app`), the body cap, whether
    CORS names its origins (every answer then varies by `Origin`), the rate limiter (None: off)
    and the Litestar app (its state, for the limiter), and its JSON encoder."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        max_body: int,
        vary_origin: bool,
        limiter: Any = None,
        litestar_app: Any = None,
    ) -> None:
        self.app = app
        self.max_body = max_body
        self.vary_origin = vary_origin
        #: api.ops.ratelimit.RateLimitMiddleware, when the limit is on
        self.limiter = limiter
        self.litestar_app = litestar_app
        self.encode = msgspec.json.Encoder().encode


def replay(chunks: list[bytes], last: Any, receive: Receive) -> Receive:
    """A `receive` that hands the pipeline the body read so far, then `last` (or the rest
    from the server when None)."""
    return _Replay(chunks, last, receive)


class _Replay:
    """:func:`replay`'s `receive`: made for every body a fast path reads, used only when the
    request is handed on, so its messages are made when asked for."""

    __slots__ = ("chunks", "last", "receive")

    def __init__(self, chunks: list[bytes], last: Any, receive: Receive) -> None:
        self.chunks = chunks
        self.last = last
        self.receive = receive

    async def __call__(self) -> Any:
        if self.chunks:
            return {"type": "http.request", "body": self.chunks.pop(0), "more_body": True}
        last, self.last = self.last, None
        if last is not None:
            return last
        return await self.receive()


async def read_body(receive: Receive, max_body: int) -> tuple[bytes | None, Receive]:
    """The request's whole body, or None (with the `receive` that replays what was read)
    when the client went away or the body is over `max_body`: the pipeline answers those."""
    chunks: list[bytes] = []
    size = 0
    more = True
    while more:
        message = await receive()
        if message["type"] != "http.request":  # the client went away: the pipeline sees it
            return None, replay(chunks, message, receive)
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        more = message.get("more_body", False)
        if size > max_body:
            return None, replay(chunks, None if more else END, receive)
    body = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    return body, replay([body], END, receive)


def plain_language(
    scope: Any,
    content_type: bytes | None,
    others: frozenset[bytes] = frozenset(),
    max_body: int | None = None,
) -> tuple[str, bytes | None] | None:
    """The answer's language and the `Authorization` header (None without one) when the
    request's headers are a fast path's common case, else None: exactly `content_type` as
    its one `Content-Type` (None: no `Content-Type`, no `Content-Length` but 0), with a body
    no `Content-Length` over `max_body` (the pipeline answers 413 at once, before a byte of
    the body arrives: a fast path would wait for the cap's worth of it first), at most one
    `Accept-Language` and one `Authorization`, no `Origin` (CORS has nothing to add), no
    `Transfer-Encoding` nor `Content-Encoding` (the pipeline refuses a coding it does not
    read), none of `others`, and a `Host` hygiene would not refuse."""
    declared = language = authorization = None
    refused = _REFUSED | others
    bodiless = content_type is None
    for name, value in scope["headers"]:
        if name == b"content-type":
            if declared is not None:
                return None
            declared = value
        elif name == b"accept-language":
            if language is not None:
                return None
            language = value
        elif name == b"authorization":
            if authorization is not None:
                return None
            authorization = value
        elif name == b"content-length":
            if bodiless:
                if value != b"0":
                    return None
            elif max_body is not None and not (value.isdigit() and int(value) <= max_body):
                return None
        elif name in refused:
            return None
    if declared != content_type or _refuse_early(scope) is not None:
        return None
    try:
        return pick_language(None if language is None else language.decode("latin-1")), (
            authorization
        )
    except Exception:
        return None


async def count(limiter: Any, litestar_app: Any, scope: Any) -> list[tuple[bytes, bytes]] | None:
    """Count the request once with the rate limiter (the fast paths skip the call when the
    limit is off: their headers are then `[]`): its `RateLimit-*` headers, or None when it is
    over the limit, the 429 then in the scope (`COUNTED`) for the pipeline to answer, which
    counts nothing again."""
    scope["litestar_app"] = litestar_app
    try:
        headers: list[tuple[bytes, bytes]] = await limiter.counted(scope)
    except ProblemError as refusal:
        scope[COUNTED] = refusal
        return None
    return headers


async def respond(
    send: Send,
    scope: Any,
    route: str,
    content: bytes,
    head: list[tuple[bytes, bytes]],
    counted: list[tuple[bytes, bytes]],
    *,
    worded: bool,
    vary_origin: bool,
    request_id: str | None = None,
) -> None:
    """Send a 200 of the JSON `content` with the pipeline's headers in its order: `head` (the
    operation's own), `Content-Type`, `Content-Length`, the limiter's, nosniff, then `Vary`
    (`Accept-Language` when the answer is `worded`, `Origin` when CORS names its origins),
    and `X-Request-ID` when given (a fast path outside :class:`api.ops.observe.Observe`,
    which adds it last to the others); the access line and the metrics name `route`."""
    headers = [*head, (b"content-type", JSON), (b"content-length", str(len(content)).encode())]
    headers.extend(counted)
    headers.append(NOSNIFF)
    if worded:
        headers.append((b"vary", b"Accept-Language, Origin" if vary_origin else b"Accept-Language"))
    elif vary_origin:
        headers.append((b"vary", b"Origin"))
    if request_id is not None:
        headers.append((b"x-request-id", request_id.encode()))
    record = scope.get(_RECORD)
    if record is not None:
        record["route"] = route
    if _written(send, headers, content):
        return
    out: Any = send  # plain dicts
    await out({"type": "http.response.start", "status": 200, "headers": headers})
    await out({"type": "http.response.body", "body": content})


_OK = STATUS_LINE[200]


def _written(send: Send, headers: list[tuple[bytes, bytes]], content: bytes) -> bool:
    """Write the 200 straight to the connection when `send` is uvicorn's own HTTP/1.1
    request-response cycle's (a fast path outside every wrapper of `send`), with the bytes
    uvicorn's `send` would write for the two messages, in one write: its checks of each
    header against control characters and its lower-casing are for headers an app may get
    wrong, and a fast path's are its own constants, numbers, a language code and a sane
    request id (issue 27). The cycle is left as uvicorn leaves it after a whole answer
    (keep-alive, the next pipelined request). False (nothing written) for anything else: an
    HTTP/1.0 cycle, a connection asking to close or whose writes are paused, uvicorn's
    access log on. A connection the client closed meanwhile is written nothing (uvicorn marks
    only the last request it read disconnected, not a pipelined one still running: its own
    `send` would raise on the closed transport)."""
    cycle: Any = getattr(send, "__self__", None)
    if (
        type(cycle) is not RequestResponseCycle
        or cycle.response_started
        or cycle.disconnected
        or not cycle.keep_alive
        or cycle.flow.write_paused
        or cycle.access_log
    ):
        return False
    cycle.response_started = True
    cycle.waiting_for_100_continue = False
    if not cycle.transport.is_closing():
        parts = [_OK]
        for name, value in (*cycle.default_headers, *headers):
            parts += (name, b": ", value, b"\r\n")
        parts += (b"\r\n", content)
        cycle.transport.write(b"".join(parts))
    cycle.chunked_encoding = False
    cycle.expected_content_length = 0
    cycle.response_complete = True
    cycle.message_event.set()
    cycle.on_response()
    return True


def unwrap(app: Any, layer: type[Any]) -> None:
    """Take the wrapper of type `layer` out of `app`'s chain of ASGI wrappers (each holds the
    next as `.app`): tests and benchmarks compare an app with a fast path and without it."""
    parent: Any = None
    node: Any = app.asgi_handler
    while not isinstance(node, layer):
        parent, node = node, node.app
    if parent is None:
        app.asgi_handler = node.app
    else:
        parent.app = node.app
