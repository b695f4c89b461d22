"""HTTP rules every answer follows, whichever layer produced it (issue 10, "HTTP hygiene").

Two pieces:

* :class:`HttpHygiene` wraps the whole ASGI application, outside Litestar's CORS middleware,
  so it sees every answer: the routes', the router's own 404/405, the CORS preflights and the
  docs router's not-found page. It answers `HEAD` on every `GET` resource (RFC 9110 §9.3.2:
  the same headers, no content), adds `X-Content-Type-Options: nosniff` to every response,
  adds `Accept-Language` to `Vary` on any answer that names its `Content-Language` (RFC 9110
  §12.5.5: a cache must know the answer was chosen by that header), and turns any 4xx/5xx
  that is not already an RFC 9457 problem (an HTML or text page from a layer the exception
  handler does not reach) into one, with the status' stable `code`.
* :func:`require_json_body`, a `before_request` hook: an operation that reads a JSON body
  refuses a body that is not declared as JSON with 415 `unsupported-media-type` (RFC 9110
  §15.5.16). Browsers send `text/plain`, form-urlencoded and multipart bodies, and bodies
  without a content type, across origins without a CORS preflight; refusing them keeps every
  cross-origin write behind the preflight. Two `Content-Type` headers are refused too: the
  app read the first, a proxy in front may read the other.
* :func:`require_exact_query`, run before it: a query parameter the operation reads is given
  once (two values were settled silently, the last one winning), and an integer one is
  written as an integer (`4.0` was coerced, as the body never is; 5,000 digits got the
  decoder's "Integer value out of range").
"""

from __future__ import annotations

import ipaddress
import re
from email.message import Message
from http import HTTPStatus
from typing import Any, get_args

import msgspec
from litestar import Request
from litestar.constants import RESERVED_KWARGS
from litestar.params import ParameterKwarg
from litestar.types import ASGIApp, Receive, Send

from api.http.problems import (
    MEDIA_TYPE,
    NO_RESOURCE,
    ProblemError,
    canonical_allow,
    field_problem,
    scope_language,
    shorten,
    status_problem,
)
from engine.core.texts import Message as Wording, say, text

NOSNIFF = (b"x-content-type-options", b"nosniff")
#: The scope key of an exception a fast path hands the pipeline (:mod:`api.http.fastpath`).
FAST_FAILED = "numrules.fast_failed"
#: The scope key through which a fast path in front of the app that counted the request
#: already (api.http.fastpath `count`) hands the rate limiter's verdict on (api.ops.ratelimit):
#: its headers, or the 429.
COUNTED = "numrules.counted"
#: What Litestar's CORS middleware answers to a preflight it refuses (400, text/plain).
_CORS_REFUSAL = "Disallowed CORS"
#: Longest original text kept as a problem's `detail`.
_DETAIL_MAX = 200


def is_json_media_type(content_type: str) -> bool:
    """`application/json` or `application/<something>+json` (RFC 6839 §3.1), in UTF-8.

    JSON is UTF-8 (RFC 8259 §8.1): a `charset` parameter, if any, must say so.
    """
    if content_type == "application/json":  # the common case, without parsing
        return True
    header = Message()
    header["content-type"] = content_type
    media_type = header.get_content_type()
    charset = header.get_param("charset")
    if isinstance(charset, str) and charset.lower() not in ("utf-8", "utf8"):
        return False
    kind, _, subtype = media_type.partition("/")
    return kind == "application" and (subtype == "json" or subtype.endswith("+json"))


def _has_body(request: Request[Any, Any, Any]) -> bool:
    length = request.headers.get("content-length")
    if length is not None:
        return length.strip() not in ("", "0")
    return "transfer-encoding" in request.headers


def require_json_body(request: Request[Any, Any, Any]) -> None:
    """415 for a body not declared as JSON, on the operations that read one.

    A request without `Content-Type` and without a body goes on to the operation, which
    answers 400 `malformed-json` (a JSON object is required); a body without `Content-Type`
    is refused like any other undeclared body.
    """
    handler = request.route_handler
    if "data" not in handler.parsed_fn_signature.parameters and not handler.opt.get("json_body"):
        return
    check_json_declared(request)


def check_json_declared(request: Request[Any, Any, Any]) -> None:
    """:func:`require_json_body`'s 415 itself, whatever the operation: also the check of a
    body sent to an operation that takes none (:func:`api.http.body.unwanted_body`)."""
    declared = [v for k, v in request.scope["headers"] if k.lower() == b"content-type"]
    if len(declared) > 1:  # one value only (RFC 9110 §8.3): a proxy may have read the other
        raise _unsupported(say(TWO_TYPES, count=len(declared)))
    content_type = request.headers.get("content-type")
    if content_type is None:
        if _has_body(request):
            raise _unsupported(say(NO_TYPE))
        return
    if not is_json_media_type(content_type):
        raise _unsupported(say(NOT_JSON, shown=_shown(content_type)))
    coding = request.headers.get("content-encoding")
    if coding is not None and coding.strip().lower() not in ("", "identity"):
        # RFC 9110 §15.5.16: a content coding the server does not decode is 415 (a gzip
        # body was read as it came, as JSON)
        raise _unsupported(say(CODED, shown=_shown(coding)), {"Accept-Encoding": "identity"})


def _unsupported(detail: Wording, headers: dict[str, str] | None = None) -> ProblemError:
    """415 `unsupported-media-type`, saying what the server reads (`Accept-Post` unless
    `headers` name it otherwise)."""
    return ProblemError(
        415,
        "unsupported-media-type",
        detail,
        headers={"Accept-Post": "application/json"} if headers is None else headers,
    )


def _shown(value: str) -> str:
    """A header's value as a refusal quotes it: its first 60 characters."""
    return value if len(value) <= 60 else value[:60] + "…"


TWO_TYPES = text(
    "two-content-types",
    "the request has {count} Content-Type headers: send one, application/json",
    "la requête a {count} en-têtes Content-Type\u00a0: envoyez-en un, application/json",
)
NO_TYPE = text(
    "no-content-type",
    "the request body has no Content-Type: send it as application/json",
    "le corps de la requête n’a pas de Content-Type\u00a0: envoyez-le en application/json",
)
NOT_JSON = text(
    "not-json",
    "the request body is {shown!r}: send it as application/json",
    "le corps de la requête est {shown!r}\u00a0: envoyez-le en application/json",
)
CODED = text(
    "content-coded",
    "the request body is sent with Content-Encoding {shown!r}: send it as it is (identity)",
    "le corps de la requête est envoyé avec le Content-Encoding {shown!r}\u00a0: envoyez-le tel quel (identity)",
)
TRANSFER_CODED = text(
    "transfer-coded",
    "the request is sent with Transfer-Encoding {shown!r}: this server reads chunked only",
    "la requête est envoyée avec le Transfer-Encoding {shown!r}\u00a0: ce serveur ne lit que chunked",
)
GIVEN_TWICE = text(
    "query-repeated",
    "given {count} times: give it once",
    "donné {count} fois\u00a0: donnez-le une seule fois",
)
INTEGER_DIGITS = text(
    "integer-digits",
    "must be an integer at most 18 digits long",
    "doit être un entier d’au plus 18 chiffres",
)
INTEGER_BOUND = text(
    "integer-bound",
    "must be an integer at most {bound}",
    "doit être un entier inférieur ou égal à {bound}",
)
INTEGER_BOUND_LOW = text(
    "integer-bound-low",
    "must be an integer at least {bound}",
    "doit être un entier supérieur ou égal à {bound}",
)
INTEGER_NOT_NUMBER = text(
    "integer-not-number",
    "must be an integer, not a number",
    "doit être un entier, pas un nombre",
)
INTEGER_NOT_STRING = text(
    "integer-not-string",
    "must be an integer, not a string",
    "doit être un entier, pas une chaîne de caractères",
)


#: An integer as a query parameter writes it: digits, an optional minus, at most 18 digits
#: (every integer parameter is far smaller; longer ones are out of range, not parsed).
_INTEGER = re.compile(r"-?[0-9]{1,18}")
_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?")


def _query_refusal(name: str, message: Wording, field_code: str) -> ProblemError:
    """422 about query parameter `name`, its `errors[]` entry coded as a body's field would
    be (`type`, `maximum` …: api.http.fields)."""
    return field_problem(422, "validation-error", name, message, field_code)


def require_exact_query(request: Request[Any, Any, Any]) -> None:
    """422 for a query parameter given twice, or an integer one not written as an integer."""
    query = request.query_params
    for name, field in request.route_handler.parsed_fn_signature.parameters.items():
        kwarg = field.kwarg_definition
        elsewhere = isinstance(kwarg, ParameterKwarg) and (kwarg.header or kwarg.cookie)
        reserved = name in RESERVED_KWARGS  # the request, its body …: no query parameter
        if name not in query or name in request.path_params or elsewhere or reserved:
            continue
        values = query.getall(name)
        if len(values) > 1:
            raise _query_refusal(name, say(GIVEN_TWICE, count=len(values)), "invalid")
        if int not in (field.annotation, *get_args(field.annotation)):  # int, int | None
            continue
        if not _INTEGER.fullmatch(values[0]):
            if re.fullmatch(r"-?[0-9]+", values[0]):  # too many digits (ASCII only: ٣ is no digit)
                # past its bound on the side of its sign: -99…9 is below a minimum, not above
                # a maximum
                low = values[0].startswith("-")
                param = kwarg if isinstance(kwarg, ParameterKwarg) else None
                bound = (param.ge if low else param.le) if param is not None else None
                if bound is None:
                    raise _query_refusal(name, say(INTEGER_DIGITS), "out-of-range")
                if low:
                    raise _query_refusal(name, say(INTEGER_BOUND_LOW, bound=bound), "minimum")
                raise _query_refusal(name, say(INTEGER_BOUND, bound=bound), "maximum")
            number = _NUMBER.fullmatch(values[0])
            raise _query_refusal(
                name, say(INTEGER_NOT_NUMBER if number else INTEGER_NOT_STRING), "type"
            )


def require_exact_path(request: Request[Any, Any, Any]) -> None:
    """404 for an integer path parameter not written as one: the router reads it with
    Python's `int`, which takes `١` (an Arabic-Indic one), `１`, `+1`, `1_0` and spaces
    around: `/seats/١/join` joined seat 1, where the query refuses such a value."""
    numbers = {k for k, v in request.path_params.items() if type(v) is int}
    if not numbers:
        return
    template = str(request.scope.get("path_template") or "")
    path = str(request.scope.get("path", ""))
    for pattern, raw in zip(template.split("/"), path.split("/"), strict=False):
        named = pattern.startswith("{") and pattern[1:-1] in numbers
        if named and not _INTEGER_SEGMENT.fullmatch(raw):
            raise ProblemError(404, "not-found", say(NO_RESOURCE, path=shorten(path)))


#: An integer as a path writes it, ASCII digits (the parameter's bounds are checked after).
_INTEGER_SEGMENT = re.compile(r"-?[0-9]+")


async def before_request(request: Request[Any, Any, Any]) -> None:
    """The request checks of this module, in order: the query, then the body's media type.

    A coroutine: Litestar runs a plain function hook in a worker thread, a thread hop on
    every request (a quarter of the rules endpoints' throughput in the HTTP benchmark).
    First, the exception a fast path's operation raised (:data:`api.http.fastpath.FAILED`)
    is raised here, where the pipeline answers it as the handler's own."""
    failed = request.scope.pop(FAST_FAILED, None)  # type: ignore[misc]
    if failed is not None:
        raise failed
    require_exact_path(request)
    require_exact_query(request)
    require_json_body(request)


def _header(headers: list[tuple[bytes, bytes]], name: bytes) -> bytes | None:
    for key, value in headers:
        if key.lower() == name:
            return value
    return None


def _merge_vary(headers: list[tuple[bytes, bytes]], token: bytes) -> list[tuple[bytes, bytes]]:
    """`Vary` with `token` added once (RFC 9110 §12.5.5: a comma-separated list)."""
    values = [v.strip() for k, v in headers if k.lower() == b"vary" for v in v.split(b",")]
    if token.lower() in (v.lower() for v in values) or b"*" in values:
        return headers
    kept = [(k, v) for k, v in headers if k.lower() != b"vary"]
    return [*kept, (b"vary", b", ".join([*[v for v in values if v], token]))]


CORS_REFUSED = text(
    "cors-preflight-refused",
    "this cross-origin request is not allowed ({refused})",
    "cette requête d’une autre origine n’est pas permise ({refused})",
)
NOTHING_HERE = text(
    "nothing-here",
    "no resource here: the docs are at /docs, the spec at /openapi.json",
    "aucune ressource ici\u00a0: la documentation est sous /docs, la spécification à /openapi.json",
)
BAD_HOST = text(
    "bad-host",
    "the request needs one Host header, a host name with a valid port",
    "la requête doit avoir un en-tête Host, un nom d’hôte avec un port valide",
)
NO_DOCS_FILE = text(
    "no-docs-file", "no such file under /docs", "aucun fichier de ce nom sous /docs"
)
HTTP_VERSION = text(
    "http-version",
    "HTTP/{version} is not a version this server reads: send HTTP/1.1 (or HTTP/1.0)",
    "HTTP/{version} n’est pas une version que ce serveur lit\u00a0: envoyez HTTP/1.1 (ou HTTP/1.0)",
)
REPEATED_HEADER = text(
    "repeated-header",
    "the request has more than one {name} header: send it once",
    "la requête a plusieurs en-têtes {name}\u00a0: envoyez-en un seul",
)


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def _problem_detail(status: int, content_type: bytes | None, body: bytes) -> tuple[str, Wording]:
    """The code and detail of a problem that replaces a plain-text or HTML error page."""
    page = body.decode("utf-8", "replace").strip() if content_type else ""
    if status == 400 and page.startswith(_CORS_REFUSAL):
        refused = page.removeprefix(_CORS_REFUSAL).strip() or "request"
        return "cors-preflight-refused", say(CORS_REFUSED, refused=refused)
    if status == 404:
        return "not-found", say(NOTHING_HERE)
    plain = content_type is not None and content_type.lower().startswith(b"text/plain")
    if plain and page and page != _phrase(status):  # a bare phrase: the title, in every language
        return "", page if len(page) <= _DETAIL_MAX else page[:_DETAIL_MAX] + "…"
    return "", ""


#: What a `Host` holds (RFC 9110 §7.2: `uri-host [ ":" port ]`, RFC 3986 §3.2.2): a
#: bracketed IPv6 address, or a reg-name (an IPv4 address is one) of unreserved and
#: sub-delims characters and pct-encoded octets, then a port 1 … 65535. Stricter than
#: Litestar's router (`litestar._asgi.utils.is_valid_host`), which lets `@` and any `%`
#: through: `@` ends a userinfo, which no Host holds (`Host: user@evil` is a URI's authority,
#: not a host); a `%` is refused unless two hex digits follow it. `%41` is kept: RFC 3986
#: allows pct-encoded octets in a reg-name, and nothing here reads the Host as a name (no
#: link, no redirect is made of it). No control character, space or non-ASCII byte either.
_HOST = re.compile(
    rb"(?:\[[0-9A-Fa-f:.]+\]"
    rb"|[0-9A-Za-z!$&'()*+,;=\-._~]*(?:%[0-9A-Fa-f]{2}[0-9A-Za-z!$&'()*+,;=\-._~]*)*)"
    rb"(?::(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?"
)


def is_host(value: bytes) -> bool:
    """Whether `value` is a `Host` this service takes (:data:`_HOST`); an empty one is (a URI
    without authority, RFC 9112 §3.2). Between brackets, an IPv6 address as RFC 4291 writes
    it (`[::1]`; `[...]` or `[:]` are not one: the pattern takes any hex digits, colons and
    dots there)."""
    if _HOST.fullmatch(value) is None:
        return False
    if value[:1] == b"[":
        try:
            ipaddress.IPv6Address(value[1 : value.index(b"]")].decode("ascii"))
        except ValueError:
            return False
    return True


#: The request headers that take one value (RFC 9110 §5.3: a sender never sends a singleton
#: field in two lines), by bit: `Host`, then those that a layer reads the first of while
#: another reads the last (Litestar's `headers.get` reads the first, the rate limiter meters
#: the last `Authorization` or `X-API-Key`), or a proxy in front may read another. `If-Match`
#: is a list (RFC 9110 §13.1.1), but in one line: the handlers read the first line only, a
#: proxy would join them. `Content-Length` twice never gets here (the server's parser refuses
#: it); `Content-Type` twice is 415 where a body is read (:func:`require_json_body`).
#: `Transfer-Encoding` may only say `chunked`, the one coding the parser reads, in one line.
_ONCE = {
    b"host": 1,
    b"authorization": 2,
    b"x-api-key": 4,
    b"idempotency-key": 8,
    b"if-match": 16,
    b"transfer-encoding": 32,
}
#: Each of them as its header is written, for the refusal's words.
_ONCE_NAMES = {
    b"host": "Host",
    b"authorization": "Authorization",
    b"x-api-key": "X-API-Key",
    b"idempotency-key": "Idempotency-Key",
    b"if-match": "If-Match",
    b"transfer-encoding": "Transfer-Encoding",
}


#: `Host` values :func:`is_host` took, so that the ones a deployment is sent are matched once
#: (the first :data:`_HOSTS_KEPT`; a request with another one is matched as before).
_HOSTS_SEEN: set[bytes] = set()
_HOSTS_KEPT = 64


def _refuse_early(scope: Any) -> tuple[int, str, Wording] | None:
    """What no layer below should see: a `Host` whose port is no port (the app cannot build
    the request's URL) or that holds what no host holds (:data:`_HOST`: Litestar's router
    refuses some of it, in English, as `http-error`; the fast paths, which do not route, took
    it: both answer this 400 now), two `Host` lines or none in HTTP/1.1 (400 `bad-host`), a
    header that takes one value in two lines (:data:`_ONCE`: 400 `bad-request`), a version
    of HTTP other than 1.0 and 1.1 in the request line (400 `bad-request`), a docs path
    holding a NUL byte or a segment longer than any file name (the docs' file server would
    fail on them: 404).

    One pass over the headers, on every request: a dictionary lookup per header and an
    integer of the single-valued ones met, nothing allocated."""
    seen = 0
    for name, value in scope["headers"]:
        bit = _ONCE.get(name)
        if bit is None:
            continue
        if seen & bit:
            if bit == 1:  # RFC 9112 §3.2: one Host
                return 400, "bad-host", say(BAD_HOST)
            return 400, "bad-request", say(REPEATED_HEADER, name=_ONCE_NAMES[name])
        seen |= bit
        if bit == 1 and value not in _HOSTS_SEEN:
            if not is_host(value):
                return 400, "bad-host", say(BAD_HOST)
            if len(_HOSTS_SEEN) < _HOSTS_KEPT:
                _HOSTS_SEEN.add(value)
        if bit == 32 and value.strip().lower() != b"chunked":  # `gzip, chunked`: the parser
            # took the chunks and left the gzip (RFC 9112 §6.1: a coding not understood)
            shown = value[:60].decode("latin-1")
            return 400, "bad-request", say(TRANSFER_CODED, shown=shown)
    version = scope.get("http_version")
    if version == "1.1":
        if not seen & 1:  # RFC 9112 §3.2: exactly one Host (an empty one included)
            return 400, "bad-host", say(BAD_HOST)
    elif version != "1.0":  # "0.9" or "2.0" written in the request line, which httptools takes
        return 400, "bad-request", say(HTTP_VERSION, version=version)
    path: str = scope["path"]
    if path.startswith("/docs/") and (
        "\x00" in path or any(len(segment) > 255 for segment in path.split("/"))
    ):  # the docs' file server would fail on such a name
        return 404, "not-found", say(NO_DOCS_FILE)
    return None


#: Set in the scope of a `HEAD` request, which the app sees as the `GET` it answers (the
#: handlers that would act on a GET, such as a stream using up its ticket, read it).
HEAD_REQUEST = "numrules.head"


class HttpHygiene:
    """The ASGI wrapper described in the module docstring."""

    def __init__(self, app: ASGIApp, vary_origin: bool = False) -> None:
        self.app = app
        #: CORS names its origins: every answer varies by `Origin` (with it or without it,
        #: a shared cache must not hand one origin's answer to another).
        self.vary_origin = vary_origin

    async def __call__(self, scope: Any, receive: Receive, send: Send) -> None:
        """`scope` is a plain ASGI scope (Litestar's typed dicts cannot say `{**scope}`)."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = _refuse_early(scope)
        if refusal is not None:
            status, code, detail = refusal
            language = scope_language(scope)
            body = msgspec.json.encode(status_problem(status, detail, code, language))
            early: Any = send  # plain dicts
            headers = [(b"content-type", MEDIA_TYPE.encode()), NOSNIFF]
            headers.append((b"content-language", language.encode()))
            headers.append((b"vary", b"Accept-Language"))
            headers.append((b"content-length", str(len(body)).encode()))
            await early({"type": "http.response.start", "status": status, "headers": headers})
            head_only = scope["method"] == "HEAD"
            await early({"type": "http.response.body", "body": b"" if head_only else body})
            return
        head = scope["method"] == "HEAD"
        if head:  # a copy: the server keeps its own scope, and so knows to send no body
            scope = {**scope, "method": "GET", HEAD_REQUEST: True}
        out: Any = send  # the messages built here are plain dicts
        start: dict[str, Any] | None = None
        held: list[bytes] = []  # the error page being replaced, while it arrives

        async def send_wrapper(message: Any) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", ()), NOSNIFF]
                if _header(headers, b"content-language") is not None:
                    headers = _merge_vary(headers, b"Accept-Language")
                if self.vary_origin:
                    headers = _merge_vary(headers, b"Origin")
                allow = _header(headers, b"allow")
                if allow is not None:  # HEAD beside GET, in the 405's order (an OPTIONS too)
                    ordered = canonical_allow(allow.decode("latin-1")).encode("latin-1")
                    headers = [(k, ordered if k.lower() == b"allow" else v) for k, v in headers]
                status = message["status"]
                content_type = _header(headers, b"content-type")
                if status >= 400 and (content_type or b"").split(b";")[0] != MEDIA_TYPE.encode():
                    start = {**message, "headers": headers}
                    return
                await out({**message, "headers": headers})
                return
            if message["type"] == "http.response.body" and start is not None:
                held.append(message.get("body", b""))
                if message.get("more_body", False):
                    return
                await self._send_problem(out, start, b"".join(held), head, scope_language(scope))
                return
            if message["type"] == "http.response.body" and head:
                message = {**message, "body": b""}
            await out(message)

        await self.app(scope, receive, send_wrapper)

    @staticmethod
    async def _send_problem(
        out: Any, start: dict[str, Any], body: bytes, head: bool, language: str
    ) -> None:
        headers: list[tuple[bytes, bytes]] = start["headers"]
        status: int = start["status"]
        code, detail = _problem_detail(status, _header(headers, b"content-type"), body)
        problem = status_problem(status, detail or None, code or None, language)
        content = msgspec.json.encode(problem)
        dropped = (b"content-type", b"content-length", b"content-language")
        kept = [(k, v) for k, v in headers if k.lower() not in dropped]
        kept = _merge_vary([*kept, (b"content-language", language.encode())], b"Accept-Language")
        await out(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    *kept,
                    (b"content-type", MEDIA_TYPE.encode()),
                    (b"content-length", str(len(content)).encode()),
                ],
            }
        )
        await out({"type": "http.response.body", "body": b"" if head else content})
