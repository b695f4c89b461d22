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
from api.http.fastpath import COUNTED, JSON, FastPath, count, plain_language, read_body, respond
from api.http.languages import localized


class FastOperation(NamedTuple):
    """One operation: its request struct, its engine call, and whether it answers in words
    (`Content-Language`, labels in the caller's language)."""

    request: type[msgspec.Struct]
    call: Callable[[Any], Any]
    call_in: Callable[[Any, str], Any] | None
    worded: bool


class FastRules(FastPath):
    """The ASGI wrapper described in the module docstring."""

    def __init__(self, app: ASGIApp, operations: dict[str, FastOperation], **config: Any) -> None:
        super().__init__(app, **config)
        self.operations = operations
        self.decoders = {
            path: msgspec.json.Decoder(op.request, strict=True) for path, op in operations.items()
        }

    async def __call__(self, scope: Any, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        op = self.operations.get(path)
        plain = plain_language(scope, JSON, max_body=self.max_body) if op is not None else None
        if op is None or plain is None:
            await self.app(scope, receive, send)
            return
        language = plain[0]
        body, replayed = await read_body(receive, self.max_body)
        if body is None:
            await self.app(scope, replayed, send)
            return
        counted = (
            [] if self.limiter is None else await count(self.limiter, self.litestar_app, scope)
        )
        if counted is None:  # the 429: the pipeline answers it
            await self.app(scope, replayed, send)
            return
        content = self._answer(path, op, body, language)
        if content is None:
            scope[COUNTED] = counted
            await self.app(scope, replayed, send)
            return
        head = [(b"content-language", language.encode())] if op.worded else []
        # the template of a literal path is the path
        await respond(
            send,
            scope,
            path,
            content,
            head,
            counted,
            worded=op.worded,
            vary_origin=self.vary_origin,
        )

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
