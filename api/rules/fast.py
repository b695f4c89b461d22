"""The stateless rules operations' fast path (issue 27, "every layer paid for").

A `POST /v1/rulesets/{id}/{operation}` is pure computation: decode a small JSON body, call the
engine, encode its answer. Through Litestar's whole pipeline (hygiene's wrapper, the CORS
middleware, the router, the `before_request` checks, the DTO, the response object and its
headers) it cost three times the engine call: the HTTP benchmark put `validate-move` below
the FastAPI twin. :class:`FastRules` sits just inside :class:`api.ops.observe.Observe` (so every
request still gets its request id, access line and metrics) and answers the common case
itself, with the very same bytes (status, headers, body) the pipeline would send:

* the path is one of the operations (a dict lookup), the method `POST`;
* one `Content-Type`, exactly `application/json`; no `Origin` (CORS has nothing to add);
  at most one `Accept-Language`; a `Host` hygiene would not refuse;
* the body (at most the configured cap) decodes strictly into the operation's request struct,
  no deeper than :data:`api.http.body.MAX_DEPTH`, and the engine answers without refusing.

Anything else (a refusal, an odd header, a body too large, any exception) goes down the usual
pipeline with the body replayed, which answers it as before: refusals are computed there, in
the caller's language, by the code that always did. The rate limiter, when on, counts the
request here once: the pipeline's limiter then reuses that count (`COUNTED`), its headers or
its 429, instead of counting again. tests/api/test_fast_rules.py holds the two paths to the
same bytes for every operation's examples, in both languages, with and without the limiter.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import msgspec
from litestar.types import ASGIApp, Receive, Send

from api.http.body import too_deep
from api.http.hygiene import NOSNIFF, _refuse_early
from api.http.languages import localized
from api.http.problems import ProblemError
from api.ops.ratelimit import COUNTED
from engine.core.texts import pick_language

_RECORD = "numrules.observe"  # api.ops.observe's record of the request (its route)
_JSON = b"application/json"


class FastOperation(NamedTuple):
    """One operation: its request struct, its engine call, and whether it answers in words
    (`Content-Language`, labels in the caller's language)."""

    request: type[msgspec.Struct]
    call: Callable[[Any], Any]
    call_in: Callable[[Any, str], Any] | None
    worded: bool


class FastRules:
    """The ASGI wrapper described in the module docstring."""

    def __init__(
        self,
        app: ASGIApp,
        operations: dict[str, FastOperation],
        *,
        max_body: int,
        vary_origin: bool,
        limiter: Any = None,
        litestar_app: Any = None,
    ) -> None:
        self.app = app
        self.operations = operations
        self.max_body = max_body
        self.vary_origin = vary_origin
        #: api.ops.ratelimit.RateLimitMiddleware, when the limit is on
        self.limiter = limiter
        self.litestar_app = litestar_app
        self.encode = msgspec.json.Encoder().encode
        self.decoders = {
            path: msgspec.json.Decoder(op.request, strict=True) for path, op in operations.items()
        }

    async def __call__(self, scope: Any, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        op = self.operations.get(path)
        language = _plain(scope) if op is not None else None
        if op is None or language is None:
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client went away: the pipeline sees it
                await self.app(scope, _replay(chunks, message, receive), send)
                return
            chunk = message.get("body", b"")
            chunks.append(chunk)
            size += len(chunk)
            more = message.get("more_body", False)
            if size > self.max_body:
                await self.app(scope, _replay(chunks, None if more else _END, receive), send)
                return
        body = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        counted: list[tuple[bytes, bytes]] = []
        if self.limiter is not None:
            scope["litestar_app"] = self.litestar_app
            try:
                counted = await self.limiter.counted(scope)
            except ProblemError as refusal:  # the 429: the pipeline answers it, counted once
                scope[COUNTED] = refusal
                await self.app(scope, _replay([body], _END, receive), send)
                return
        content = self._answer(path, op, body, language)
        if content is None:
            scope[COUNTED] = counted
            await self.app(scope, _replay([body], _END, receive), send)
            return
        headers = [(b"content-type", _JSON), (b"content-length", str(len(content)).encode())]
        headers.extend(counted)
        headers.append(NOSNIFF)
        if op.worded:
            headers.insert(0, (b"content-language", language.encode()))
            vary = b"Accept-Language, Origin" if self.vary_origin else b"Accept-Language"
            headers.append((b"vary", vary))
        elif self.vary_origin:
            headers.append((b"vary", b"Origin"))
        record = scope.get(_RECORD)
        if record is not None:
            record["route"] = path  # the template of a literal path is the path
        out: Any = send  # plain dicts
        await out({"type": "http.response.start", "status": 200, "headers": headers})
        await out({"type": "http.response.body", "body": content})

    def _answer(self, path: str, op: FastOperation, body: bytes, language: str) -> bytes | None:
        """The answer's bytes, or None for anything the pipeline should answer."""
        try:
            if not body or too_deep(body):
                return None
            data = self.decoders[path].decode(body)
            if not op.worded:
                return self.encode(op.call(data))
            answer = op.call(data) if op.call_in is None else op.call_in(data, language)
            return self.encode(localized(answer, language))
        except Exception:  # a refusal, or a bug: the pipeline answers it (and logs a bug)
            return None


_END: Any = {"type": "http.request", "body": b"", "more_body": False}


def _replay(chunks: list[bytes], last: Any, receive: Receive) -> Receive:
    """A `receive` that hands the pipeline the body read so far, then `last` (or the rest
    from the server when None)."""
    pending = [{"type": "http.request", "body": c, "more_body": True} for c in chunks]
    if last is not None:
        pending.append(last)

    async def replayed() -> Any:
        if pending:
            return pending.pop(0)
        return await receive()

    return replayed


def _plain(scope: Any) -> str | None:
    """The answer's language when the request's headers are the common case the fast path
    answers (module docstring), else None."""
    content_type = language = None
    for name, value in scope["headers"]:
        if name == b"content-type":
            if content_type is not None:
                return None
            content_type = value
        elif name == b"accept-language":
            if language is not None:
                return None
            language = value
        elif name == b"origin" or name == b"transfer-encoding":
            return None
    if content_type != _JSON or _refuse_early(scope) is not None:
        return None
    try:
        return pick_language(None if language is None else language.decode("latin-1"))
    except Exception:
        return None
