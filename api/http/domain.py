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
from typing import Any, ClassVar

import msgspec

from engine.core.texts import DEFAULT_LANGUAGE, Message, render, say, text


class FieldProblem(msgspec.Struct, frozen=True):
    """One entry of a problem's `errors[]`: the field (a JSON path, a header, a parameter) and
    what is wrong with it."""

    field: str
    message: str


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


#: A detail about one field: the field, then what is wrong with it.
FIELD_DETAIL = text("field-detail", "{field}: {message}", "{field} : {message}")


def field_error(
    kind: type[DomainError], code: str, field: str, message: Message, **kwargs: Any
) -> DomainError:
    """The one construction of a refusal about one field: `detail` "<field>: <message>" and
    that field in `errors[]` (the form every area's field problems take)."""
    detail = say(FIELD_DETAIL, field=field, message=message)
    return kind(detail, code=code, field=field, field_message=message, **kwargs)


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
