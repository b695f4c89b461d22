"""Domain errors: how a service refuses, in its own terms (STYLE 14, boardgame.io's master
returning error values; issue 22, "Stored games in three layers").

A service (`api/<area>/service.py`) raises one of these kinds and never names an HTTP status:
the kind says what went wrong (not found, not allowed, the state forbids it …), `code` is the
contract's stable problem code, `detail` the sentence for the caller: a
:class:`engine.core.texts.Said` (a text and its parameters), which the HTTP layer words in the
caller's language (issue 23), or a plain string, the same in every language. The HTTP layer maps each
kind to its status once, in :data:`STATUS` (read by `api.http.problems.handle_exception`), so
a controller owns headers and statuses and a service owns the rules of the flow.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

import msgspec

from engine.core.texts import DEFAULT_LANGUAGE, Message, Text, join_details, render, say, text


class FieldProblem(msgspec.Struct, frozen=True):
    """One entry of a problem's `errors[]`: the field (a JSON path, a header, a parameter),
    what is wrong with it, and `code`, what kind of wrong it is (stable, kebab-case: `type`,
    `pattern`, `missing-field` … or the domain code of a service's refusal). Made without a
    code, an entry takes its problem's (`api.http.problems.Problem`)."""

    field: str
    message: str
    code: str = ""


class DomainError(Exception):
    """A refusal of a service: `code` (the contract's), `detail`, and optionally the field it
    is about, extra problem members (`reason`, `legal_actions` …) and response headers.

    `field` puts one entry in the problem's `errors[]`, whose message is `field_message` when
    given (the words about the field alone: "must be an object") and `detail` otherwise;
    `errors` lists more entries (field, message)."""

    #: the code when an instance names none
    default_code: ClassVar[str] = "bad-request"

    def __init__(
        self,
        detail: Message,
        *,
        code: str | None = None,
        field: str | None = None,
        field_message: Message | None = None,
        errors: Sequence[tuple[str, Message]] = (),
        extra: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(render(detail))
        self.said = detail
        self.code = code or self.default_code
        self.field = field
        self.field_message = field_message
        self.errors = list(errors)
        self.extra = dict(extra or {})
        self.headers = dict(headers or {})

    @property
    def detail(self) -> str:
        """The detail in English."""
        return render(self.said)

    def render(self, language: str = DEFAULT_LANGUAGE) -> str:
        return render(self.said, language)

    def field_problems(self, language: str = DEFAULT_LANGUAGE) -> list[FieldProblem]:
        """The problem's `errors[]` in `language`: the field's entry, then `errors`."""
        found = []
        if self.field:
            message = self.said if self.field_message is None else self.field_message
            found.append(FieldProblem(self.field, render(message, language)))
        found += [FieldProblem(f, render(m, language)) for f, m in self.errors]
        return found


class Unauthenticated(DomainError):
    """No credential, or one that is not what the operation needs (401)."""

    default_code = "unauthorized"


class Forbidden(DomainError):
    """A known caller that may not do this (403)."""

    default_code = "forbidden"


class NotFound(DomainError):
    """Nothing the caller may see has that id (404)."""

    default_code = "not-found"


class Conflict(DomainError):
    """The resource's state forbids it now: not your turn, game over, seat taken … (409)."""

    default_code = "conflict"


class VersionMismatch(DomainError):
    """`If-Match` names a version the resource has left (412)."""

    default_code = "version-mismatch"


class PreconditionRequired(DomainError):
    """The write needs `If-Match` (428)."""

    default_code = "if-match-required"


class Invalid(DomainError):
    """The request is well-formed but breaks a rule: an illegal move, a reused key … (422)."""

    default_code = "validation-error"


#: The one map from a domain error's kind to its HTTP status (the most specific class wins).
STATUS: dict[type[DomainError], int] = {
    Unauthenticated: 401,
    Forbidden: 403,
    NotFound: 404,
    Conflict: 409,
    VersionMismatch: 412,
    PreconditionRequired: 428,
    Invalid: 422,
    DomainError: 400,
}


#: The fields a player fills in, as a French detail names them (the app's words: « mot de
#: passe », « manches prévues »), never the API's English name; in English the field's name
#: as the API spells it. A field not listed (a rules query's `players`, which integrators
#: read) is said as its path. Words, not sentences: not
#: in the catalogue.
FIELD_WORDS: Mapping[str, Text] = {
    field: Text(f"field-{field}", field, fr)
    for field, fr in (
        ("pseudo", "pseudo"),
        ("password", "mot de passe"),
        ("new", "nouveau mot de passe"),
        ("current", "mot de passe actuel"),
        ("email", "email"),
        ("login", "email ou pseudo"),
        ("age_range", "tranche d’âge"),
        ("accept_terms", "conditions d’utilisation"),
        ("locale", "langue"),
        ("planned_rounds", "manches prévues"),
    )
}
#: A detail about one field: the field, then what is wrong with it.
FIELD_DETAIL = text("field-detail", "{field}: {message}", "{field}\u00a0: {message}")
#: The same in a detail about every invalid field of a form (:class:`InvalidFields`), the
#: field said in the language's words (« mot de passe : … »).
FIELD_DETAIL_NAMED = text(
    "field-detail-named",
    "{field}: {message}",
    "{field}\u00a0: {message}",
    words={"field": FIELD_WORDS},
)


def field_error(
    kind: type[DomainError], code: str, field: str, message: Message, **kwargs: Any
) -> DomainError:
    """The one construction of a refusal about one field: `detail` "<field>: <message>" and
    that field in `errors[]` (the form every area's field problems take)."""
    detail = say(FIELD_DETAIL, field=field, message=message)
    return kind(detail, code=code, field=field, field_message=message, **kwargs)


#: The codes of `errors[]` entries that say how a value breaks the body's schema: each is a
#: kind of `validation-error`, the problem's code when they are the only ones
#: (:func:`problem_code`). Every other entry code is a problem code of its own
#: (`missing-field`, `unknown-field`, `unknown-card` …).
SCHEMA_CODES = frozenset(
    {
        "type",
        "pattern",
        "min-length",
        "max-length",
        "min-items",
        "max-items",
        "minimum",
        "maximum",
        "enum",
        "out-of-range",
        "invalid",
        "too-deep",
        "duplicate-key",
    }
)


def problem_code(codes: Sequence[str]) -> str:
    """A problem's code from its entries' codes (api-contract "Order of checks"): the one
    they share, else `validation-error`; an entry code of :data:`SCHEMA_CODES` counts as
    `validation-error`, so a body that broke the schema keeps the code it always had."""
    kinds = {"validation-error" if code in SCHEMA_CODES else code for code in codes}
    return kinds.pop() if len(kinds) == 1 else "validation-error"


class Words(Protocol):
    """Something said in every language (`engine.core.texts.Said`, `api.http.fields.Phrase`)."""

    def render(self, language: str = DEFAULT_LANGUAGE) -> str: ...


@dataclass(frozen=True, slots=True)
class Flaw:
    """One invalid field, said in every language: its path, its code and its message."""

    field: str
    code: str
    message: Words

    def render(self, language: str = DEFAULT_LANGUAGE) -> FieldProblem:
        return FieldProblem(self.field, self.message.render(language), self.code)


class InvalidFields(Invalid):
    """Every invalid field of a request at once (422), each with its code and a message
    rendered in the caller's language when the problem is sent; `detail` lists them
    ("<field>: <message>; …"), in English here (:meth:`detail_in` for another language)."""

    default_code = "validation-error"

    def __init__(self, flaws: Sequence[Flaw]) -> None:
        self.flaws = tuple(flaws)
        super().__init__(
            self.detail_in(DEFAULT_LANGUAGE),
            code=problem_code([flaw.code for flaw in self.flaws]),
        )

    def detail_in(self, language: str) -> str:
        """Each field said as a refusal about one field is (:data:`FIELD_DETAIL`: "players :
        …" in French, as the query's and the services' refusals say it)."""
        return join_details(
            (
                FIELD_DETAIL_NAMED.render(language, field=p.field, message=p.message)
                for p in self.errors_in(language)
            ),
            language,
        )

    def errors_in(self, language: str) -> list[FieldProblem]:
        return [flaw.render(language) for flaw in self.flaws]


def status_of(error: DomainError) -> int:
    for kind in type(error).__mro__:
        if kind in STATUS:
            return STATUS[kind]
    return 400


class TooManyAttempts(DomainError):
    """Too many attempts in a while (log-ins, password checks): try again in `retry_after`
    seconds, which the answer carries as its `Retry-After` header (429)."""

    default_code = "too-many-attempts"

    def __init__(self, detail: Message, *, retry_after: int, code: str | None = None) -> None:
        super().__init__(detail, code=code, headers={"Retry-After": str(retry_after)})
        self.retry_after = retry_after


#: Appended: the most specific class still wins (`status_of` walks the class's MRO).
STATUS[TooManyAttempts] = 429


def refuse_body(refusal: Exception | None) -> None:
    """Raise `refusal`, the refusal of a body sent to an operation that takes none
    (`api.http.body.unwanted_body`), where that operation has checked its caller and the
    resource it names (api-contract.md, "Order of checks": authentication, then existence,
    then the body): before it checks or changes anything else. Nothing without one."""
    if refusal is not None:
        raise refusal
