"""The one place where errors become RFC 9457 problem details (`application/problem+json`).

Every problem carries the contract's fields: `type`, `title`, `status`, `detail`, a stable
kebab-case `code`, and for bad fields `errors: [{"field", "message"}]`.

Words are chosen last (issue 23): errors keep their sentences as texts with parameters
(:class:`engine.core.texts.Said`), and the handler renders `title`, `detail` and every
`errors[].message` in the language of the request's `Accept-Language` (English by default),
naming it in `Content-Language` (api.http.hygiene then adds `Vary: Accept-Language`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from http import HTTPStatus
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
from litestar.params import ParameterKwarg
from litestar.status_codes import HTTP_500_INTERNAL_SERVER_ERROR

from api.db.engine import unavailable
from api.http.domain import (
    FIELD_DETAIL,
    DomainError,
    FieldProblem as FieldProblem,
    Flaw,
    InvalidFields,
    status_of,
)
from api.http.fields import QUOTE_LIMIT as QUOTE_LIMIT, choices_of, message_flaw, shorten as shorten
from engine.core.errors import EngineError, IllegalMove, InvalidInput, UnknownRuleset
from engine.core.texts import DEFAULT_LANGUAGE, Message, Text, pick_language, render, say, text

MEDIA_TYPE = "application/problem+json"
TYPE_BASE = "https://numrules.dev/problems/"
log = logging.getLogger("numrules.api")

_TITLE_WORDS = {
    400: ("Bad request", "Requête incorrecte"),
    401: ("Unauthorized", "Non authentifié"),
    403: ("Forbidden", "Interdit"),
    404: ("Not found", "Introuvable"),
    405: ("Method not allowed", "Méthode non autorisée"),
    408: ("Request timeout", "Délai de requête dépassé"),
    409: ("Conflict", "Conflit"),
    412: ("Precondition failed", "Précondition non remplie"),
    413: ("Request body too large", "Corps de requête trop volumineux"),
    415: ("Unsupported media type", "Type de média non pris en charge"),
    431: ("Request header fields too large", "En-têtes de requête trop volumineux"),
    422: ("Unprocessable content", "Contenu irrecevable"),
    428: ("Precondition required", "Précondition requise"),
    429: ("Too many requests", "Trop de requêtes"),
    500: ("Internal server error", "Erreur interne du serveur"),
    503: ("Service unavailable", "Service indisponible"),
}
#: A problem's `title` by status, in every language.
TITLES: dict[int, Text] = {
    status: text(f"title-{status}", en, fr) for status, (en, fr) in _TITLE_WORDS.items()
}
TITLE_ERROR = text("title-error", "Error", "Erreur")


def title_of(status: int, language: str = DEFAULT_LANGUAGE) -> str:
    """The `title` of a problem of `status` in `language`."""
    return TITLES.get(status, TITLE_ERROR).render(language)


def language_of(request: Request[Any, Any, Any]) -> str:
    """The language of the answer to `request`: its `Accept-Language`'s first supported
    choice, English else (and for a request whose headers cannot be read)."""
    try:
        return pick_language(request.headers.get("accept-language"))
    except Exception:
        return DEFAULT_LANGUAGE


def scope_language(scope: Any) -> str:
    """:func:`language_of` for a raw ASGI scope (the layers outside Litestar)."""
    for name, value in scope.get("headers", ()):
        if name == b"accept-language":
            return pick_language(value.decode("latin-1"))
    return DEFAULT_LANGUAGE


#: The `code` of a problem known only by its status: the router's and the server's own refusals.
STATUS_CODES = {
    404: "not-found",
    405: "method-not-allowed",
    408: "request-timeout",
    413: "body-too-large",
    431: "headers-too-large",
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


#: An entry of a problem's `errors[]` before its words are chosen: a built one, (field,
#: message), or (field, message, code); without a code, the entry takes the problem's.
FieldEntry = FieldProblem | tuple[str, Message] | tuple[str, Message, str]


def _entry(entry: FieldEntry, language: str) -> FieldProblem:
    if isinstance(entry, FieldProblem):
        return entry
    code = entry[2] if len(entry) == 3 else ""
    return FieldProblem(entry[0], render(entry[1], language), code)


def _entries(errors: Sequence[FieldEntry] | None, language: str) -> list[FieldProblem]:
    return [_entry(e, language) for e in errors or ()]


class ProblemError(Exception):
    """An HTTP answer as a problem, raised by the HTTP layer only (routes, body decoding in a
    route, hygiene, rate limits); a service and the helpers it calls raise
    `api.http.domain` errors instead (tests/api/test_services_raise_no_problems.py).

    Its words are chosen when it is answered (:meth:`problem_in`); `problem` is the English
    one."""

    def __init__(
        self,
        status: int,
        code: str,
        detail: Message,
        errors: Sequence[FieldEntry] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(render(detail))
        self.status = status
        self.code = code
        self.said = detail
        self.errors = list(errors or ())
        self.headers = headers
        self._built: Problem | None = None
        self._domain: DomainError | None = None

    @property
    def problem(self) -> Problem:
        return self.problem_in(DEFAULT_LANGUAGE)

    def problem_in(self, language: str) -> Problem:
        """The problem in `language`."""
        if self._built is not None:
            return self._built
        if self._domain is not None:
            return domain_problem(self._domain, language)
        return make_problem(self.status, self.code, self.said, self.errors, language)

    @classmethod
    def of(cls, problem: Problem, headers: dict[str, str] | None = None) -> ProblemError:
        """Raise an already built problem (its words fixed)."""
        error = cls(problem.status, problem.code, problem.detail, headers=headers)
        error._built = problem
        return error

    @classmethod
    def of_domain(cls, refusal: DomainError) -> ProblemError:
        """Raise a service's refusal as the HTTP layer's (its words chosen when answered)."""
        error = cls(status_of(refusal), refusal.code, refusal.said, headers=refusal.headers or None)
        error._domain = refusal
        return error


#: Seconds a client waits before trying again when the database cannot serve.
DATABASE_RETRY_AFTER = 5
DATABASE_UNAVAILABLE = "database-unavailable"


DATABASE_DOWN = text(
    "database-unavailable",
    "the database is unavailable: try again shortly",
    "la base de données est indisponible\u00a0: réessayez dans un instant",
)


def database_unavailable(detail: Message | None = None) -> ProblemError:
    """The refusal when the database cannot serve (`api.db.engine.unavailable` says when): 503
    `database-unavailable` with `Retry-After`, the contract's "Operations"."""
    return ProblemError(
        503,
        DATABASE_UNAVAILABLE,
        detail or say(DATABASE_DOWN),
        headers={"Retry-After": str(DATABASE_RETRY_AFTER)},
    )


#: A problem code named in a description: kebab-case words in backticks.
CODE_IN_WORDS = re.compile(r"`([a-z0-9]+(?:-[a-z0-9]+)+)`")


@dataclass
class ProblemSpec(ResponseSpec):
    """A documented problem answer and the closed set of its `code`s (and, for an illegal
    move, of its `reason`s), which `api.problem_codes` states in the spec as enums."""

    codes: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()


def named_codes(description: str) -> list[str]:
    """The problem codes `description` names (kebab-case words in backticks), in order."""
    return CODE_IN_WORDS.findall(description)


def with_codes(description: str, codes: Sequence[str]) -> str:
    """`description` ending with its codes in parentheses: "Taken (`pseudo-taken`)."."""
    if not codes:
        return description
    listed = ", ".join(f"`{code}`" for code in codes)
    return f"{description.rstrip().rstrip('.')} ({listed})."


def problem_spec(description: str, *codes: str, reasons: Sequence[str] = ()) -> ProblemSpec:
    """An operation's documented problem answer (for `responses=` of a route) and the codes it
    answers with, declared once: the description lists them (in parentheses, from `codes`:
    the words never name a code themselves) and the spec's enum is made from them. The
    refusals every operation meets (bodies, rate limits, the server's own) are added by
    status in `api.problem_codes`."""
    if named := named_codes(description):
        raise ValueError(f"name the codes in `codes`, not in the words: {named}")
    if len(set(codes)) != len(codes):
        raise ValueError(f"a code listed twice: {codes}")
    return ProblemSpec(
        data_container=Problem,
        description=with_codes(description, codes),
        media_type=MEDIA_TYPE,
        generate_examples=False,
        codes=tuple(codes),
        reasons=tuple(reasons),
    )


def field_problem(
    status: int, code: str, field: str, message: Message, field_code: str = ""
) -> ProblemError:
    """The one construction of an HTTP refusal about one field (`detail` "<field>: <message>",
    that field in `errors[]`, its entry's code `field_code`, else the problem's); a service
    raises `api.http.domain.field_error` instead."""
    detail = say(FIELD_DETAIL, field=field, message=message)
    return ProblemError(status, code, detail, [(field, message, field_code)])


def problem_response(
    problem: Problem, headers: Mapping[str, str] | None = None, language: str | None = None
) -> Response[Problem]:
    """The answer of `problem`; with `language`, its `Content-Language` (the words were chosen
    by `Accept-Language`)."""
    sent = dict(headers or {})
    if language is not None:
        sent["Content-Language"] = language
    return Response(
        problem, status_code=problem.status, media_type=MEDIA_TYPE, headers=sent or None
    )


def make_problem(
    status: int,
    code: str,
    detail: Message,
    errors: Sequence[FieldEntry] | None = None,
    language: str = DEFAULT_LANGUAGE,
) -> Problem:
    """A problem in `language` (every quoted value in `detail` cut short)."""
    return Problem(
        type=TYPE_BASE + code,
        title=title_of(status, language),
        status=status,
        detail=render(detail, language),
        code=code,
        errors=_entries(errors, language),
    )


def status_problem(
    status: int,
    detail: Message | None = None,
    code: str | None = None,
    language: str = DEFAULT_LANGUAGE,
) -> Problem:
    """A problem for a refusal known by its status only (see `api.http.hygiene`)."""
    return make_problem(
        status,
        code or STATUS_CODES.get(status, "http-error"),
        detail or (title_of(status, language) if status in TITLES else "error"),
        language=language,
    )


#: The longest message sent back, whatever it quotes.
MESSAGE_LIMIT = 400
#: A quoted value: a `'` opens one only where no letter or digit precedes it, so that an
#: elision (French "n'est … l'une") or a possessive ("the poseur's pile") is no quote.
_QUOTED = re.compile(r"(?<!\w)'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`")


def _cut_quotes(message: str) -> str:
    """Every quoted value of `message` cut short, then the whole message bounded: a client's
    60 KB "card code" is never echoed back whole, in `detail` or in `errors[]`."""

    def cut(match: re.Match[str]) -> str:
        quoted = match.group(0)
        if len(quoted) <= QUOTE_LIMIT + 2:
            return quoted
        return quoted[: QUOTE_LIMIT + 1] + "…" + quoted[-1]

    return shorten(_QUOTED.sub(cut, message), MESSAGE_LIMIT)


def cut_quotes(message: str) -> str:
    """`message` with every quoted value cut short and the whole bounded, as every problem's
    `detail` (a service quoting a client's value words its refusal with this)."""
    return _cut_quotes(message)


def engine_problem(exc: EngineError, language: str = DEFAULT_LANGUAGE) -> Problem:
    message = _cut_quotes(exc.render(language))
    if isinstance(exc, UnknownRuleset):
        return make_problem(404, exc.code, message, language=language)
    if isinstance(exc, IllegalMove):
        p = make_problem(422, exc.code, message, language=language)
        return msgspec.structs.replace(p, reason=exc.reason, legal=list(exc.legal))
    errors = (
        [FieldProblem(e.field, _cut_quotes(e.render(language)), e.code or "") for e in exc.errors]
        if isinstance(exc, InvalidInput)
        else []
    )
    return make_problem(422, exc.code, message, errors, language)


_MISSING_PARAMETER = re.compile(r"Missing required ([a-z]+) parameter '([^']+)'")
MISSING_PARAMETER = text(
    "missing-parameter",
    "required {place} parameter {name!r} is missing",
    "le paramètre {place} {name!r} est requis",
)
EMPTY_BODY = text(
    "empty-body",
    "the request body is empty: a JSON object is expected",
    "le corps de la requête est vide\u00a0: un objet JSON est attendu",
)


def _validation_problem(
    exc: ValidationException, language: str, request: Request[Any, Any, Any] | None = None
) -> Problem:
    """Query and path parameters: a missing one and a malformed one are both 422 with their
    `errors[]` entry, named by the parameter (`players`). A malformed one is said as a body's
    field is (`api.http.fields`): in the caller's language, its entry's code saying what
    kind of wrong (`type`, `minimum` …); a value outside a fixed set names the set's values
    (`status` of `GET /v1/games`: "must be one of 'open', not 'over'"), read from the
    operation's parameter (`request`)."""
    flaws: list[Flaw] = []
    extra = exc.extra if isinstance(exc.extra, list) else []
    for item in extra:
        if isinstance(item, dict):
            key = str(item.get("key", ""))
            source = item.get("source", "")
            source = str(getattr(source, "value", source))
            if source == "body" and key == "data":
                return make_problem(400, "malformed-json", say(EMPTY_BODY), language=language)
            choices = None if request is None else _parameter_choices(request, key)
            flaws.append(message_flaw(str(item.get("message", "")), key, choices))
    if flaws:
        return domain_problem(InvalidFields(flaws), language)
    if m := _MISSING_PARAMETER.search(str(exc.detail)):
        name = m.group(2)
        place: Message = _PLACES.get(m.group(1), m.group(1))
        missing = say(MISSING_PARAMETER, place=place, name=name)
        about = say(FIELD_DETAIL, field=name, message=missing)
        return make_problem(422, "missing-field", about, [(name, missing)], language)
    return make_problem(400, "validation-error", _cut_quotes(str(exc.detail)), language=language)


def _parameter_choices(request: Request[Any, Any, Any], key: str) -> list[Any] | None:
    """The values of the fixed set the operation's parameter `key` (its name in the query,
    path or headers) takes, or None (no such parameter, or not a fixed set)."""
    try:
        parameters = request.route_handler.parsed_fn_signature.parameters
    except (AttributeError, KeyError):  # no route: nothing to read the parameter from
        return None
    for field in parameters.values():
        kwarg = field.kwarg_definition
        names = {field.name}
        if isinstance(kwarg, ParameterKwarg):
            names |= {n for n in (kwarg.query, kwarg.header, kwarg.cookie) if n is not None}
        if key in names:
            return choices_of(field.annotation)
    return None


#: Where a parameter is, as words of a sentence.
_PLACES = {
    "query": say(text("place-query", "query", "de requête")),
    "path": say(text("place-path", "path", "de chemin")),
    "header": say(text("place-header", "header", "d’en-tête")),
    "cookie": say(text("place-cookie", "cookie", "de cookie")),
}
NOT_ALLOWED = text(
    "method-not-allowed", "{method} is not allowed here", "{method} n’est pas permise ici"
)
NOT_ALLOWED_USE = text(
    "method-not-allowed-use",
    "{method} is not allowed here: use {methods}",
    "{method} n’est pas permise ici\u00a0: utilisez {methods}",
)
TOO_LARGE = text(
    "body-too-large", "the request body is too large", "le corps de la requête est trop volumineux"
)
TOO_LARGE_CAP = text(
    "body-too-large-cap",
    "the request body is over {shown}: send at most {limit} bytes",
    "le corps de la requête dépasse {shown}\u00a0: envoyez au plus {limit} octets",
)
KIB = text("kib", "{count} KiB", "{count} Kio")
BYTES = text("bytes", "{count} bytes", "{count} octets")


#: The order of the methods a 405's `Allow` names (any other after them, in alphabetical order).
_METHOD_ORDER = {
    m: i for i, m in enumerate(("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"))
}


def canonical_allow(allow: str) -> str:
    """A 405's `Allow` in one order, every time: Litestar lists a resource's methods in the
    order of a dict built from a set, which changed with each process's hash seed (the same
    request answered `GET, DELETE` by one worker and `DELETE, GET` by another); HEAD beside
    GET, as api.http.hygiene answers it."""
    methods = {m.strip().upper() for m in allow.split(",") if m.strip()}
    if "GET" in methods:
        methods.add("HEAD")
    return ", ".join(sorted(methods, key=lambda m: (_METHOD_ORDER.get(m, len(_METHOD_ORDER)), m)))


def _method_detail(method: str, allow: str) -> Message:
    """A 405's detail: the methods the resource takes (its `Allow` as :func:`canonical_allow`
    gives it, OPTIONS left out: only CORS preflights use it)."""
    usable = [m for m in allow.split(", ") if m and m != "OPTIONS"]
    if not usable:
        return say(NOT_ALLOWED, method=shorten(method))
    return say(NOT_ALLOWED_USE, method=shorten(method), methods=", ".join(usable))


def _size_detail(limit: int | None) -> Message:
    """A 413's detail: the cap, in KiB when it is a whole number of them."""
    if not limit:
        return say(TOO_LARGE)
    shown = say(KIB, count=limit // 1024) if limit % 1024 == 0 else say(BYTES, count=limit)
    return say(TOO_LARGE_CAP, shown=shown, limit=limit)


#: What Litestar raises when the client disconnects before its body is read whole.
_GONE = "client disconnected prematurely"


def domain_problem(error: DomainError, language: str = DEFAULT_LANGUAGE) -> Problem:
    """A service's refusal as the problem the contract gives it (`api.http.domain.STATUS`), in
    `language` (invalid fields each said in it)."""
    if isinstance(error, InvalidFields):
        return make_problem(
            status_of(error),
            error.code,
            error.detail_in(language),
            error.errors_in(language),
            language,
        )
    errors = error.field_problems(language) or None
    problem = make_problem(status_of(error), error.code, error.render(language), errors, language)
    return msgspec.structs.replace(problem, **error.extra) if error.extra else problem


def domain_response(error: DomainError, language: str = DEFAULT_LANGUAGE) -> Response[Problem]:
    problem = domain_problem(error, language)
    headers = dict(error.headers)
    if problem.status == 401:
        headers.setdefault("WWW-Authenticate", "Bearer")
    return problem_response(problem, headers, language)


NO_RESOURCE = text("no-resource", "no resource at {path}", "aucune ressource à {path}")
BODY_CUT = text(
    "body-cut",
    "the request body did not arrive whole",
    "le corps de la requête n’est pas arrivé en entier",
)
UNEXPECTED = text(
    "internal-error", "an unexpected error occurred", "une erreur inattendue s’est produite"
)


def _http_detail(status: int, detail: Any) -> Message:
    """A framework's refusal's detail: its own words when it has some (English), else, when
    it only repeats its status' phrase ("Too Many Requests", Litestar's default), the title
    in every language."""
    if detail and not (status in TITLES and str(detail) == _phrase(status)):
        return str(detail)
    return say(TITLES[status]) if status in TITLES else "error"


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def handle_exception(request: Request[Any, Any, Any], exc: Exception) -> Response[Problem]:
    """Map any exception to a problem in the request's language (`Content-Language`);
    unexpected ones are logged (without the body) as 500."""
    language = language_of(request)
    if isinstance(exc, ProblemError):
        return problem_response(exc.problem_in(language), exc.headers, language)
    if isinstance(exc, DomainError):
        return domain_response(exc, language)
    if isinstance(exc, EngineError):
        return problem_response(engine_problem(exc, language), None, language)
    if isinstance(exc, ValidationException):
        return problem_response(_validation_problem(exc, language, request), None, language)
    if isinstance(exc, NotFoundException):
        path = request.scope.get("path", "")
        if path.startswith("/v1/rulesets/"):
            ruleset = path.split("/")[3]
            from engine.registry import RULESETS, UNKNOWN_RULESET

            if ruleset not in RULESETS:
                unknown = say(UNKNOWN_RULESET, ruleset=shorten(ruleset), known=", ".join(RULESETS))
                return problem_response(
                    make_problem(404, "unknown-ruleset", unknown, language=language), None, language
                )
        nothing = say(NO_RESOURCE, path=shorten(path))
        return problem_response(
            make_problem(404, "not-found", nothing, language=language), None, language
        )
    if isinstance(exc, InternalServerException) and exc.detail == _GONE:
        # the body stopped arriving: the client left, or api.ops.server cut it off at its deadline
        # (and answered the 408 itself); a 500 here counted a slow client as a server fault
        return problem_response(
            make_problem(408, "request-timeout", say(BODY_CUT), language=language), None, language
        )
    if isinstance(exc, HTTPException):
        status = exc.status_code
        code = STATUS_CODES.get(status, "http-error")
        detail: Message = _http_detail(status, exc.detail)
        headers = exc.headers
        if status == 405:
            allow = canonical_allow((headers or {}).get("allow", ""))
            headers = {**(headers or {}), "allow": allow}
            detail = _method_detail(request.method, allow)
        elif status == 413:
            detail = _size_detail(request.route_handler.resolve_request_max_body_size())
        problem = make_problem(status, code, detail, language=language)
        return problem_response(problem, headers, language)
    path = request.scope.get("path", "")  # not request.url: it may not parse
    if (reason := unavailable(exc)) is not None:
        # the database refused, vanished, or did not answer in time: try again, not a bug
        log.warning("database unavailable on %s %r: %s", request.method, shorten(path, 200), reason)
        refusal = database_unavailable()
        return problem_response(refusal.problem_in(language), refusal.headers, language)
    log.exception("unhandled error on %s %r", shorten(request.method), shorten(path, 200))
    problem = make_problem(
        HTTP_500_INTERNAL_SERVER_ERROR, "internal-error", say(UNEXPECTED), language=language
    )
    return problem_response(problem, None, language)
