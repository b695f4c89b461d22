"""The one place where errors become RFC 9457 problem details (`application/problem+json`).

Every problem carries the contract's fields: `type`, `title`, `status`, `detail`, a stable
kebab-case `code`, and for bad fields `errors: [{"field", "message"}]`.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import msgspec
from litestar import Request, Response
from litestar.exceptions import (
    HTTPException,
    InternalServerException,
    NotFoundException,
    ValidationException,
)
from litestar.openapi.datastructures import ResponseSpec
from litestar.status_codes import HTTP_500_INTERNAL_SERVER_ERROR

from api.db.engine import unavailable
from api.http.domain import DomainError, FieldProblem as FieldProblem, InvalidFields, status_of
from engine.core.errors import EngineError, IllegalMove, InvalidInput, UnknownRuleset
from engine.core.texts import DEFAULT_LANGUAGE, pick_language

MEDIA_TYPE = "application/problem+json"
TYPE_BASE = "https://numrules.dev/problems/"
log = logging.getLogger("numrules.api")

_TITLES = {
    400: "Bad request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    408: "Request timeout",
    409: "Conflict",
    412: "Precondition failed",
    413: "Request body too large",
    415: "Unsupported media type",
    422: "Unprocessable content",
    428: "Precondition required",
    429: "Too many requests",
    500: "Internal server error",
    503: "Service unavailable",
}


#: The `code` of a problem known only by its status: the router's and the server's own refusals.
STATUS_CODES = {
    404: "not-found",
    405: "method-not-allowed",
    408: "request-timeout",
    413: "body-too-large",
    415: "unsupported-media-type",
    429: "too-many-requests",
    500: "internal-error",
    503: "unavailable",
}


class Problem(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """An RFC 9457 problem, as this API sends it."""

    type: str
    title: str
    status: int
    detail: str
    code: str
    errors: list[FieldProblem] = []
    reason: str | None = None  # illegal moves in stored games: the broken obligation
    legal: list[str] = []  # illegal moves: the legal alternatives (never hidden cards)
    legal_actions: list[Any] | None = None  # stored games: the seat's legal actions

    def __post_init__(self) -> None:
        """Every `errors[]` entry has a code: one made without takes the problem's."""
        for index, entry in enumerate(self.errors):
            if not entry.code:
                self.errors[index] = FieldProblem(entry.field, entry.message, self.code)


class ProblemError(Exception):
    """An HTTP answer as a problem, raised by the HTTP layer only (routes, body decoding in a
    route, hygiene, rate limits); a service and the helpers it calls raise
    `api.http.domain` errors instead (tests/api/test_services_raise_no_problems.py)."""

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        errors: list[FieldProblem] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail)
        self.problem = Problem(
            type=TYPE_BASE + code,
            title=_TITLES.get(status, "Error"),
            status=status,
            detail=detail,
            code=code,
            errors=errors or [],
        )
        self.headers = headers

    @classmethod
    def of(cls, problem: Problem, headers: dict[str, str] | None = None) -> ProblemError:
        """Raise an already built problem."""
        error = cls(problem.status, problem.code, problem.detail, headers=headers)
        error.problem = problem
        return error


#: Seconds a client waits before trying again when the database cannot serve.
DATABASE_RETRY_AFTER = 5
DATABASE_UNAVAILABLE = "database-unavailable"


def database_unavailable(detail: str | None = None) -> ProblemError:
    """The refusal when the database cannot serve (`api.db.engine.unavailable` says when): 503
    `database-unavailable` with `Retry-After`, the contract's "Operations"."""
    return ProblemError(
        503,
        DATABASE_UNAVAILABLE,
        detail or "the database is unavailable: try again shortly",
        headers={"Retry-After": str(DATABASE_RETRY_AFTER)},
    )


def problem_spec(description: str) -> ResponseSpec:
    """An operation's documented problem answer (for `responses=` of a route)."""
    return ResponseSpec(
        data_container=Problem,
        description=description,
        media_type=MEDIA_TYPE,
        generate_examples=False,
    )


def field_problem(status: int, code: str, field: str, message: str) -> ProblemError:
    """The one construction of an HTTP refusal about one field (`detail` "<field>: <message>",
    that field in `errors[]`); a service raises `api.http.domain.field_error` instead."""
    return ProblemError(status, code, f"{field}: {message}", [FieldProblem(field, message)])


def problem_response(problem: Problem, headers: dict[str, str] | None = None) -> Response[Problem]:
    return Response(problem, status_code=problem.status, media_type=MEDIA_TYPE, headers=headers)


def make_problem(
    status: int, code: str, detail: str, errors: list[FieldProblem] | None = None
) -> Problem:
    return ProblemError(status, code, detail, errors).problem


def status_problem(status: int, detail: str | None = None, code: str | None = None) -> Problem:
    """A problem for a refusal known by its status only (see `api.http.hygiene`)."""
    return make_problem(
        status,
        code or STATUS_CODES.get(status, "http-error"),
        detail or _TITLES.get(status, "error"),
    )


#: How many characters of a client's value a message quotes before cutting it with "…".
QUOTE_LIMIT = 40
#: The longest message sent back, whatever it quotes.
MESSAGE_LIMIT = 400
_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`")


def shorten(text: str, limit: int = QUOTE_LIMIT) -> str:
    """`text` cut to `limit` characters with "…"."""
    return text if len(text) <= limit else text[:limit] + "…"


def _cut_quotes(message: str) -> str:
    """Every quoted value of `message` cut short, then the whole message bounded: a client's
    60 KB "card code" is never echoed back whole, in `detail` or in `errors[]`."""

    def cut(match: re.Match[str]) -> str:
        quoted = match.group(0)
        if len(quoted) <= QUOTE_LIMIT + 2:
            return quoted
        return quoted[: QUOTE_LIMIT + 1] + "…" + quoted[-1]

    return shorten(_QUOTED.sub(cut, message), MESSAGE_LIMIT)


_TYPE_WORDS = {
    "int": "an integer",
    "float": "a number",
    "str": "a string",
    "bool": "true or false",
    "array": "a list",
    "object": "an object",
    "null": "null",
}
_EXPECTED_GOT = re.compile(r"Expected `([^`]*)`, got `([^`]*)`")
_BOUND = re.compile(r"Expected `(int|float)` (>=|<=|>|<) (-?[0-9.e+]+)")
_LENGTH = re.compile(r"Expected `(array|str|object)` of length (>=|<=) ([0-9]+)")
_BOUND_WORDS = {">=": "at least", "<=": "at most", ">": "more than", "<": "less than"}


def _kind(names: str) -> str:
    return " or ".join(_TYPE_WORDS.get(n.strip(), n.strip()) for n in names.split("|"))


def cut_quotes(message: str) -> str:
    """`message` with every quoted value cut short and the whole bounded, as every problem's
    `detail` (a service quoting a client's value words its refusal with this)."""
    return _cut_quotes(message)


def plain(message: str) -> str:
    """A decoder's message in plain English: JSON kinds, not Python type names.

    ``Expected `int`, got `str` `` → "must be an integer, not a string"; ``Expected `int` <= 7``
    → "must be at most 7"; ``Expected `array` of length <= 8`` → "must hold at most 8 items".
    """
    if m := _EXPECTED_GOT.fullmatch(message):
        return f"must be {_kind(m.group(1))}, not {_kind(m.group(2))}"
    if m := _BOUND.fullmatch(message):
        return f"must be {_kind(m.group(1))} {_BOUND_WORDS[m.group(2)]} {m.group(3)}"
    if m := _LENGTH.fullmatch(message):
        unit = {"array": "item", "str": "character", "object": "field"}[m.group(1)]
        count = m.group(3)
        return f"must hold {_BOUND_WORDS[m.group(2)]} {count} {unit}{'' if count == '1' else 's'}"
    if m := re.fullmatch(r"Expected `([^`]*)`", message):
        return f"must be {_kind(m.group(1))}"
    return _cut_quotes(message)


def engine_problem(exc: EngineError) -> Problem:
    message = _cut_quotes(exc.message)
    if isinstance(exc, UnknownRuleset):
        return make_problem(404, exc.code, message)
    if isinstance(exc, IllegalMove):
        p = make_problem(422, exc.code, message)
        return msgspec.structs.replace(p, reason=exc.reason, legal=list(exc.legal))
    errors = (
        [FieldProblem(e.field, _cut_quotes(e.message), e.code or "") for e in exc.errors]
        if isinstance(exc, InvalidInput)
        else []
    )
    return make_problem(422, exc.code, message, errors)


_MISSING_PARAMETER = re.compile(r"Missing required ([a-z]+) parameter '([^']+)'")


def _validation_problem(exc: ValidationException) -> Problem:
    """Query and path parameters: a missing one and a malformed one are both 422 with their
    `errors[]` entry, named by the parameter (`players`)."""
    errors: list[FieldProblem] = []
    extra = exc.extra if isinstance(exc.extra, list) else []
    for item in extra:
        if isinstance(item, dict):
            key = str(item.get("key", ""))
            source = item.get("source", "")
            source = str(getattr(source, "value", source))
            if source == "body" and key == "data":
                return make_problem(
                    400, "malformed-json", "the request body is empty: a JSON object is expected"
                )
            errors.append(FieldProblem(key, plain(str(item.get("message", "")))))
    if not errors and (m := _MISSING_PARAMETER.search(str(exc.detail))):
        name = m.group(2)
        text = f"required {m.group(1)} parameter {name!r} is missing"
        return make_problem(422, "missing-field", f"{name}: {text}", [FieldProblem(name, text)])
    detail = "; ".join(f"{e.field}: {e.message}" for e in errors) or _cut_quotes(str(exc.detail))
    return make_problem(400 if not errors else 422, "validation-error", detail, errors)


def _method_detail(method: str, allow: str) -> str:
    """A 405's detail: the methods the resource takes (its `Allow`, HEAD with GET as
    api.http.hygiene answers it, OPTIONS left out: only CORS preflights use it)."""
    methods = [m.strip().upper() for m in allow.split(",") if m.strip()]
    if "GET" in methods and "HEAD" not in methods:
        methods.insert(methods.index("GET") + 1, "HEAD")
    usable = [m for m in methods if m != "OPTIONS"]
    if not usable:
        return f"{shorten(method)} is not allowed here"
    return f"{shorten(method)} is not allowed here: use {', '.join(usable)}"


def _size_detail(limit: int | None) -> str:
    """A 413's detail: the cap, in KiB when it is a whole number of them."""
    if not limit:
        return "the request body is too large"
    shown = f"{limit // 1024} KiB" if limit % 1024 == 0 else f"{limit} bytes"
    return f"the request body is over {shown}: send at most {limit} bytes"


#: What Litestar raises when the client disconnects before its body is read whole.
_GONE = "client disconnected prematurely"


def domain_problem(error: DomainError, language: str = DEFAULT_LANGUAGE) -> Problem:
    """A service's refusal as the problem the contract gives it (`api.http.domain.STATUS`);
    invalid fields said in `language`."""
    if isinstance(error, InvalidFields):
        return make_problem(
            status_of(error), error.code, error.detail_in(language), error.errors_in(language)
        )
    message = error.detail if error.field_message is None else error.field_message
    errors = [FieldProblem(error.field, message)] if error.field else None
    problem = make_problem(status_of(error), error.code, error.detail, errors)
    return msgspec.structs.replace(problem, **error.extra) if error.extra else problem


def domain_response(error: DomainError, language: str = DEFAULT_LANGUAGE) -> Response[Problem]:
    problem = domain_problem(error, language)
    headers = dict(error.headers)
    if problem.status == 401:
        headers.setdefault("WWW-Authenticate", "Bearer")
    return problem_response(problem, headers or None)


def handle_exception(request: Request[Any, Any, Any], exc: Exception) -> Response[Problem]:
    """Map any exception to a problem; unexpected ones are logged (without the body) as 500."""
    if isinstance(exc, ProblemError):
        return problem_response(exc.problem, exc.headers)
    if isinstance(exc, DomainError):
        return domain_response(exc, pick_language(request.headers.get("accept-language")))
    if isinstance(exc, EngineError):
        return problem_response(engine_problem(exc))
    if isinstance(exc, ValidationException):
        return problem_response(_validation_problem(exc))
    if isinstance(exc, NotFoundException):
        path = request.scope.get("path", "")
        if path.startswith("/v1/rulesets/"):
            ruleset = path.split("/")[3]
            from engine.registry import RULESETS

            if ruleset not in RULESETS:
                known = ", ".join(RULESETS)
                return problem_response(
                    make_problem(
                        404,
                        "unknown-ruleset",
                        f"unknown ruleset {shorten(ruleset)!r} (known: {known})",
                    )
                )
        return problem_response(make_problem(404, "not-found", f"no resource at {shorten(path)}"))
    if isinstance(exc, InternalServerException) and exc.detail == _GONE:
        # the body stopped arriving: the client left, or api.ops.server cut it off at its deadline
        # (and answered the 408 itself); a 500 here counted a slow client as a server fault
        return problem_response(
            make_problem(408, "request-timeout", "the request body did not arrive whole")
        )
    if isinstance(exc, HTTPException):
        status = exc.status_code
        code = STATUS_CODES.get(status, "http-error")
        detail = str(exc.detail) if exc.detail else _TITLES.get(status, "error")
        if status == 405:
            detail = _method_detail(request.method, (exc.headers or {}).get("allow", ""))
        elif status == 413:
            detail = _size_detail(request.route_handler.resolve_request_max_body_size())
        return problem_response(make_problem(status, code, detail), dict(exc.headers or {}) or None)
    path = request.scope.get("path", "")  # not request.url: it may not parse
    if (reason := unavailable(exc)) is not None:
        # the database refused, vanished, or did not answer in time: try again, not a bug
        log.warning("database unavailable on %s %r: %s", request.method, shorten(path, 200), reason)
        refusal = database_unavailable()
        return problem_response(refusal.problem, refusal.headers)
    log.exception("unhandled error on %s %r", shorten(request.method), shorten(path, 200))
    return problem_response(
        make_problem(
            HTTP_500_INTERNAL_SERVER_ERROR, "internal-error", "an unexpected error occurred"
        )
    )
