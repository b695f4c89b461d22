"""The HTTP server's options, from the settings: what `numrules serve` hands to uvicorn.

Issue 10 asks for a keep-alive timeout and a concurrency limit in the server settings:
* `timeout_keep_alive`: an idle keep-alive connection is closed after that many seconds, so
  idle clients do not hold connections (uvicorn's default is 5 s; here it is a setting);
* `limit_concurrency`: past that many open connections and tasks, uvicorn answers 503 at
  once instead of queueing without bound (long-lived Server-Sent Events streams, when they
  come, count against it: size it for them, or serve them from their own workers);
* `timeout_graceful_shutdown`: on shutdown, requests under way get that long to finish;
* `server_header`: off, so answers do not name the server and its version;
* `ws`: WebSockets off: the API has none (event streams are Server-Sent Events), so an
  upgrade request is an ordinary request answered by the app, not uvicorn's bare 403.

Issue 21 asks the process itself to bound slow clients, proxy or not:
* `http`: :class:`DeadlineProtocol`, uvicorn's httptools protocol with two deadlines.
  uvicorn has no timeout for a request still arriving (`timeout_keep_alive` runs only
  between requests, and every byte received cancels it), so a client sending a byte a
  second held its connection, and its place under `limit_concurrency`, forever. Neither
  of the alternatives does both halves: hypercorn's `read_timeout` is per read (a byte a
  second resets it), granian's header timeout bounds no body, and either means leaving
  the server the service is built and measured on. nginx keeps doing it in front
  (`deploy/nginx.conf`); the deadlines make a deployment without it safe as well.
  The same protocol answers the parser's refusals as problems (a `Host` it refuses is
  `bad-host`, as the app's), and ends an HTTP/1.0 answer of unknown length by closing the
  connection, never with HTTP/1.1's chunked coding (:class:`CloseDelimited`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

import msgspec
from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle
from uvicorn.server import ServerState

from api.http.hygiene import BAD_HOST, is_host
from api.http.problems import MEDIA_TYPE, make_problem, scope_language
from api.ops.settings import Settings
from engine.core.texts import DEFAULT_LANGUAGE, Message, pick_language, say, text

log = logging.getLogger("numrules.server")


def server_options(settings: Settings) -> dict[str, Any]:
    """Keyword arguments for `uvicorn.run` / `uvicorn.Config` (see the module docstring)."""
    return {
        "timeout_keep_alive": settings.keep_alive_seconds,
        "limit_concurrency": settings.max_concurrency,
        "timeout_graceful_shutdown": settings.graceful_shutdown_seconds,
        "server_header": False,
        "ws": "none",
        # The client address is the peer's; `X-Forwarded-For` is read only behind
        # NUMRULES_TRUSTED_PROXIES, by api.ops.ratelimit.client_address (uvicorn's own default
        # believes it from 127.0.0.1: any local process could pick its address).
        "proxy_headers": False,
        "http": Deadlines(
            settings.header_timeout_seconds,
            settings.body_timeout_seconds,
            settings.max_header_bytes,
        ),
    }


#: How long a refused request's remaining bytes are read and dropped before the close.
LINGER_SECONDS = 2.0
#: Seconds a client refused for the concurrency limit waits before trying again.
BUSY_RETRY_AFTER = 1

HEADERS_LATE = text(
    "headers-late",
    "the request's headers took over {seconds} s to arrive",
    "les en-têtes de la requête ont mis plus de {seconds} s à arriver",
)
BODY_LATE = text(
    "body-late",
    "the request body took over {seconds} s to arrive",
    "le corps de la requête a mis plus de {seconds} s à arriver",
)
HEADERS_TOO_LARGE = text(
    "headers-too-large",
    "the request's line and headers exceed {most} bytes",
    "la ligne et les en-têtes de la requête dépassent {most} octets",
)
NOT_HTTP = text(
    "not-http", "not a valid HTTP request: {reason}", "pas une requête HTTP valide\u00a0: {reason}"
)
BUSY = text(
    "server-busy",
    "the server holds as many connections and requests as it takes: try again shortly",
    "le serveur a autant de connexions et de requêtes qu’il en accepte\u00a0: réessayez dans un instant",
)


async def _busy(scope: Any, receive: Any, send: Any) -> None:
    """What the server answers past `limit_concurrency`: 503 `unavailable`, a problem in the
    request's language with `Retry-After` (uvicorn's own answer is plain text), and close."""
    language = scope_language(scope)
    body = msgspec.json.encode(make_problem(503, "unavailable", say(BUSY), language=language))
    headers = [
        (b"content-type", MEDIA_TYPE.encode()),
        (b"content-length", str(len(body)).encode()),
        (b"content-language", language.encode()),
        (b"vary", b"Accept-Language"),
        (b"retry-after", str(BUSY_RETRY_AFTER).encode()),
        (b"x-content-type-options", b"nosniff"),
        (b"connection", b"close"),
    ]
    await send({"type": "http.response.start", "status": 503, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


def _read_head(chunks: list[bytes]) -> tuple[bool, str | None]:
    """What the raw bytes of a request's headers that the parser refused say, up to their
    end (a blank line): whether a `Host` line holds what no host holds (a control character
    the parser stops at, before the app could refuse it), and the language its first
    `Accept-Language` line asks for (None without one)."""
    bad_host = False
    language = None
    for line in b"".join(chunks).split(b"\n"):
        if line in (b"", b"\r"):  # the end of the headers: a body follows
            break
        name, colon, value = line.partition(b":")
        if not colon:
            continue
        name = name.lower()
        if name == b"host" and not is_host(value.rstrip(b"\r").strip(b" \t")):
            bad_host = True
        elif name == b"accept-language" and language is None:
            language = pick_language(value.rstrip(b"\r").decode("latin-1").strip())
    return bad_host, language


@dataclasses.dataclass(frozen=True)
class Deadlines:
    """The factory of :class:`DeadlineProtocol` uvicorn takes as `http`: it calls `http` as
    asyncio's protocol factory. A module-level value class, so it pickles as `--workers`
    needs (uvicorn pickles its config for each worker process) and compares equal."""

    header_seconds: float
    body_seconds: float
    max_header_bytes: int = 32_768

    def __call__(self, *args: Any, **kwargs: Any) -> DeadlineProtocol:
        return DeadlineProtocol(
            *args,
            header_seconds=self.header_seconds,
            body_seconds=self.body_seconds,
            max_header_bytes=self.max_header_bytes,
            **kwargs,
        )


class CloseDelimited(RequestResponseCycle):
    """uvicorn's request-response cycle for an HTTP/1.0 request: an answer of unknown length
    (an event stream) is delimited by the close of the connection (RFC 9112 §6.3, item 8),
    not chunked. uvicorn chunks every answer without `Content-Length`, whatever the version,
    and HTTP/1.0 has no chunked coding: `Transfer-Encoding` is never sent to it (RFC 9112
    §6.1). uvicorn already closes after every HTTP/1.0 answer and says `Connection: close`."""

    close_delimited = False

    async def send(self, message: Any) -> None:
        if message["type"] == "http.response.start" and not self.response_started:
            headers = [
                (name, value)
                for name, value in message.get("headers", ())
                if name.lower() != b"transfer-encoding"
            ]
            if not any(name.lower() == b"content-length" for name, _ in headers):
                self.close_delimited = True
                self.chunked_encoding = False  # uvicorn adds no `Transfer-Encoding`
            message = {**message, "headers": headers}
        elif message["type"] == "http.response.body" and self.close_delimited:
            # uvicorn writes a body that is not chunked against its length: each part is
            # the whole of what is left of it
            self.expected_content_length = len(message.get("body", b""))
        await super().send(message)


class DeadlineProtocol(HttpToolsProtocol):
    """uvicorn's HTTP/1.1 protocol (httptools) with a deadline for reading each request.

    * Headers: the request line and headers must arrive whole within `header_seconds` of
      the request's first byte (for a connection's first request, of the connection: one
      that sends nothing is closed too). Late: 408 `request-timeout` and close, or a plain
      close when nothing of the request came (as an idle keep-alive connection is closed).
    * Body: the body must arrive whole within `body_seconds` of the end of the headers.
      Late: 408 and close when the app has not answered yet (in the request's language,
      `Accept-Language`: its headers are known), else a close.

    Past `limit_concurrency`, the answer is a 503 problem too (:func:`_busy`), not uvicorn's
    plain text; so is a request the parser refuses (:meth:`send_400_response`). An HTTP/1.0
    request's answer goes through :class:`CloseDelimited`.

    A deadline bounds the whole part, not the gap between two reads (nginx's
    `client_body_timeout` is a gap): a byte every second never gets through. Between
    requests, keep-alive's own timeout applies. The app sees a late body as a client that
    went away (`http.disconnect`): the 408 is this protocol's, written on the socket.
    """

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
        *,
        header_seconds: float,
        body_seconds: float,
        max_header_bytes: int = 32_768,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.header_seconds = header_seconds
        self.body_seconds = body_seconds
        self.max_header_bytes = max_header_bytes
        self.head_bytes = 0  # bytes of the awaited headers received so far
        self.lingering = False  # refused mid-request: what still arrives is read and dropped
        self.deadline: asyncio.TimerHandle | None = None
        self.awaiting: str | None = None  # "headers" or "body": what the deadline is for
        self.begun = False  # a byte of the awaited headers has arrived
        self.known: object = None  # the last request whose headers arrived whole
        self.head_chunks: list[bytes] = []  # the awaited headers' bytes, while they arrive

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm("headers", self.header_seconds, self._headers_late)

    def data_received(self, data: bytes) -> None:
        if self.lingering:
            return
        if self.deadline is None and (self.cycle is None or self.cycle.response_complete):
            self._arm("headers", self.header_seconds, self._headers_late)  # the next request
        awaiting_headers = self.awaiting == "headers"
        if awaiting_headers:
            self.begun = True
            self.head_chunks.append(data)
        super().data_received(data)
        cycle = self.cycle
        if awaiting_headers and (cycle is None or cycle is self.known):  # still in the headers
            self.head_bytes += len(data)
            if self.head_bytes > self.max_header_bytes and not self.transport.is_closing():
                self._disarm()
                self._close_with(
                    431,
                    b"Request Header Fields Too Large",
                    "headers-too-large",
                    say(HEADERS_TOO_LARGE, most=self.max_header_bytes),
                    linger=True,
                )
                return
        if cycle is not None and cycle is not self.known:  # a request's headers, whole
            self.known = cycle
            self.head_chunks.clear()
            self._disarm()
            if cycle.more_body:
                self._arm("body", self.body_seconds, self._body_late)
        elif self.awaiting == "body" and cycle is not None and not cycle.more_body:
            self._disarm()

    def on_headers_complete(self) -> None:
        """uvicorn's, but past `limit_concurrency` the request is answered by :func:`_busy`
        (uvicorn's check, made here first: its own answer would be plain text)."""
        limit = self.limit_concurrency
        if limit is None or (len(self.connections) < limit and len(self.tasks) < limit):
            super().on_headers_complete()
            return
        self.logger.warning("Exceeded concurrency limit.")
        app = self.app
        self.app, self.limit_concurrency = _busy, None
        try:
            super().on_headers_complete()
        finally:
            self.app, self.limit_concurrency = app, limit

    def _start_asgi_task(self, cycle: RequestResponseCycle, app: Any) -> None:
        """An HTTP/1.0 request's cycle (or any but HTTP/1.1's) is a :class:`CloseDelimited`: the class of the same
        object, before its task first runs (a pipelined request's, when its turn comes)."""
        if cycle.scope["http_version"] != "1.1":  # 1.0 (another is refused: api.http.hygiene)
            cycle.__class__ = CloseDelimited
        super()._start_asgi_task(cycle, app)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self, awaiting: str, seconds: float, late: Callable[[], None]) -> None:
        self._disarm()
        self.awaiting = awaiting
        self.begun = False
        self.head_bytes = 0
        self.head_chunks.clear()
        self.deadline = self.loop.call_later(seconds, late)

    def _disarm(self) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
        self.deadline = None
        self.awaiting = None

    def _headers_late(self) -> None:
        self.deadline = self.awaiting = None
        if self.transport.is_closing():
            return
        if not self.begun:
            self.transport.close()
            return
        # the headers are not whole: their Accept-Language is not known, the answer is English
        self._refuse(say(HEADERS_LATE, seconds=f"{self.header_seconds:g}"))

    def _body_late(self) -> None:
        self.deadline = self.awaiting = None
        if self.transport.is_closing():
            return
        if self.cycle is not None and self.cycle.response_started:
            self.transport.close()
            return
        # the headers are whole: the 408 is in the request's language
        language = scope_language(self.cycle.scope) if self.cycle is not None else None
        self._refuse(say(BODY_LATE, seconds=f"{self.body_seconds:g}"), language)

    def _refuse(self, detail: Message, language: str | None = None) -> None:
        """408 `request-timeout` (RFC 9110 §15.5.9: the server closes the connection)."""
        log.info(
            "closed a slow connection from %s: %s",
            self.client[0] if self.client else "?",
            str(detail),
        )
        self._close_with(408, b"Request Timeout", "request-timeout", detail, language=language)

    def send_400_response(self, msg: str) -> None:
        """A request the HTTP parser refuses (a control character in a header, a negative or
        doubled Content-Length …) is a 400 problem like every other refusal, not uvicorn's
        plain text. One whose `Host` line holds what no host holds (a control character: the
        parser stops at it, the app never sees it) is `bad-host` in the caller's language, as
        the app answers any other bad `Host` (`api.http.hygiene`), read from the bytes of the
        headers received (a request refused in its body, or behind another in one read, is
        `bad-request`)."""
        awaited = self.awaiting == "headers"
        bad_host, language = _read_head(self.head_chunks) if awaited else (False, None)
        if bad_host:
            language = language or DEFAULT_LANGUAGE
            self._close_with(400, b"Bad Request", "bad-host", say(BAD_HOST), language=language)
            return
        self._close_with(400, b"Bad Request", "bad-request", say(NOT_HTTP, reason=msg))

    def _close_with(
        self,
        status: int,
        reason: bytes,
        code: str,
        detail: Message,
        linger: bool = False,
        language: str | None = None,
    ) -> None:
        """Answer `status` and close, in `language` when the request's headers named it (else
        English, and no `Content-Language`: a request refused before its headers are whole).
        With `linger` (the client is still sending), the answer is followed by a half-close
        and what still arrives is read and dropped for up to :data:`LINGER_SECONDS` (as
        nginx's lingering close): closing with unread data would reset the connection, and
        the client could lose the answer."""
        problem = make_problem(status, code, detail, language=language or DEFAULT_LANGUAGE)
        body = msgspec.json.encode(problem)
        head = [b"HTTP/1.1 %d %s\r\n" % (status, reason)]
        head += [
            name + b": " + value + b"\r\n" for name, value in self.server_state.default_headers
        ]
        if language is not None:
            head += [
                b"content-language: " + language.encode() + b"\r\n",
                b"vary: Accept-Language\r\n",
            ]
        head += [
            b"content-type: " + MEDIA_TYPE.encode() + b"\r\n",
            b"content-length: " + str(len(body)).encode() + b"\r\n",
            b"x-content-type-options: nosniff\r\n",
            b"connection: close\r\n\r\n",
        ]
        self.transport.write(b"".join(head) + body)
        if linger and self.transport.can_write_eof():
            self.lingering = True
            self.transport.write_eof()
            self.loop.call_later(LINGER_SECONDS, self.transport.close)
            return
        self.transport.close()


def _stop(signum: int, frame: FrameType | None) -> None:
    sys.exit(0)


@contextmanager
def exit_cleanly_on_sigterm() -> Iterator[None]:
    """SIGTERM ends `numrules serve` with status 0, as a stop asked for should.

    uvicorn handles SIGTERM while it serves (a graceful shutdown: see `api.ops.operations`) and,
    once done, raises the signal again for the handler that was there before it: the default
    one would kill the process, status 143, after a clean shutdown. This handler exits 0
    instead (also before uvicorn's handlers are installed: a stop while starting); the
    previous handler is back afterwards."""
    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
