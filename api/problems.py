"""The one place where errors become RFC 9457 problem details (`application/problem+json`).

Every problem carries the contract's fields: `type`, `title`, `status`, `detail`, a stable
kebab-case `code`, and for bad fields `errors: [{"field", "message"}]`.
"""

from __future__ import annotations

import logging
from typing import Any

import msgspec
from litestar import Request, Response
from litestar.exceptions import (
    HTTPException,
    NotFoundException,
    ValidationException,
)
from litestar.status_codes import HTTP_500_INTERNAL_SERVER_ERROR

from engine.core.errors import EngineError, IllegalMove, InvalidInput, UnknownRuleset

MEDIA_TYPE = "application/problem+json"
TYPE_BASE = "https://numrules.dev/problems/"
log = logging.getLogger("numrules.api")

_TITLES = {
    400: "Bad request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    409: "Conflict",
    412: "Precondition failed",
    413: "Request body too large",
    415: "Unsupported media type",
    422: "Unprocessable content",
    429: "Too many requests",
    500: "Internal server error",
}


class FieldProblem(msgspec.Struct, frozen=True):
    field: str
    message: str


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


class ProblemError(Exception):
    """Raise anywhere in api/ to answer with a problem."""

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


def problem_response(problem: Problem, headers: dict[str, str] | None = None) -> Response[Problem]:
    return Response(problem, status_code=problem.status, media_type=MEDIA_TYPE, headers=headers)


def make_problem(
    status: int, code: str, detail: str, errors: list[FieldProblem] | None = None
) -> Problem:
    return ProblemError(status, code, detail, errors).problem


def engine_problem(exc: EngineError) -> Problem:
    if isinstance(exc, UnknownRuleset):
        return make_problem(404, exc.code, exc.message)
    if isinstance(exc, IllegalMove):
        p = make_problem(422, exc.code, exc.message)
        return msgspec.structs.replace(p, reason=exc.reason, legal=list(exc.legal))
    errors = (
        [FieldProblem(e.field, e.message) for e in exc.errors]
        if isinstance(exc, InvalidInput)
        else []
    )
    return make_problem(422, exc.code, exc.message, errors)


def _validation_problem(exc: ValidationException) -> Problem:
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
            errors.append(
                FieldProblem(f"{source}.{key}" if source else key, str(item.get("message", "")))
            )
    detail = "; ".join(f"{e.field}: {e.message}" for e in errors) or str(exc.detail)
    return make_problem(400 if not errors else 422, "validation-error", detail, errors)


def handle_exception(request: Request[Any, Any, Any], exc: Exception) -> Response[Problem]:
    """Map any exception to a problem; unexpected ones are logged (without the body) as 500."""
    if isinstance(exc, ProblemError):
        return problem_response(exc.problem, exc.headers)
    if isinstance(exc, EngineError):
        return problem_response(engine_problem(exc))
    if isinstance(exc, ValidationException):
        return problem_response(_validation_problem(exc))
    if isinstance(exc, NotFoundException):
        path = request.url.path
        if path.startswith("/v1/rulesets/"):
            ruleset = path.split("/")[3]
            from engine.registry import RULESETS

            if ruleset not in RULESETS:
                known = ", ".join(RULESETS)
                return problem_response(
                    make_problem(
                        404, "unknown-ruleset", f"unknown ruleset {ruleset!r} (known: {known})"
                    )
                )
        return problem_response(make_problem(404, "not-found", f"no resource at {path}"))
    if isinstance(exc, HTTPException):
        status = exc.status_code
        code = {
            405: "method-not-allowed",
            413: "body-too-large",
            415: "unsupported-media-type",
            429: "too-many-requests",
        }.get(status, "http-error")
        detail = str(exc.detail) if exc.detail else _TITLES.get(status, "error")
        return problem_response(make_problem(status, code, detail), dict(exc.headers or {}) or None)
    log.exception("unhandled error on %s %s", request.method, request.url.path)
    return problem_response(
        make_problem(
            HTTP_500_INTERNAL_SERVER_ERROR, "internal-error", "an unexpected error occurred"
        )
    )
