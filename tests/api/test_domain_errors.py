"""Domain errors (api/http/domain.py): a service refuses in its own terms and the HTTP layer
maps each kind to its status once."""

from __future__ import annotations

from typing import Any

import pytest
from litestar import Litestar, get
from litestar.testing import TestClient

from api.http import domain
from api.http.problems import handle_exception


@pytest.mark.parametrize(
    ("error", "status", "code"),
    [
        (domain.Unauthenticated("who are you?"), 401, "unauthorized"),
        (domain.Forbidden("not yours"), 403, "forbidden"),
        (domain.NotFound("no such thing"), 404, "not-found"),
        (domain.Conflict("not now", code="not-your-turn"), 409, "not-your-turn"),
        (domain.VersionMismatch("it moved"), 412, "version-mismatch"),
        (domain.PreconditionRequired("send If-Match"), 428, "if-match-required"),
        (domain.Invalid("no", code="illegal-move", field="card"), 422, "illegal-move"),
    ],
)
def test_each_kind_answers_its_status_and_code(error: Any, status: int, code: str) -> None:
    @get("/boom", sync_to_thread=False)
    def boom() -> None:
        raise error

    app = Litestar([boom], exception_handlers={Exception: handle_exception})
    with TestClient(app) as client:
        answer = client.get("/boom")
    assert answer.status_code == status
    problem = answer.json()
    assert problem["code"] == code and problem["status"] == status
    assert problem["detail"] == error.detail
    assert answer.headers["content-type"].startswith("application/problem+json")
    if error.field:
        assert problem["errors"] == [
            {"field": error.field, "message": error.detail, "code": error.code}
        ]
    assert ("www-authenticate" in answer.headers) == (status == 401)


def test_extra_members_and_headers_reach_the_problem() -> None:
    @get("/boom", sync_to_thread=False)
    def boom() -> None:
        raise domain.Invalid(
            "illegal",
            code="illegal-move",
            extra={"reason": "must-follow-color", "legal": ["red-3"]},
            headers={"Retry-After": "5"},
        )

    app = Litestar([boom], exception_handlers={Exception: handle_exception})
    with TestClient(app) as client:
        answer = client.get("/boom")
    assert answer.json()["reason"] == "must-follow-color"
    assert answer.json()["legal"] == ["red-3"]
    assert answer.headers["retry-after"] == "5"


def test_too_many_attempts_answers_429_with_retry_after() -> None:
    """A throttled attempt (the log-in throttle, api/accounts/service.py) is the 429 kind: its
    retry reaches the answer as `Retry-After`."""

    @get("/boom", sync_to_thread=False)
    def boom() -> None:
        raise domain.TooManyAttempts("too many failed attempts: try again in 7 s", retry_after=7)

    app = Litestar([boom], exception_handlers={Exception: handle_exception})
    with TestClient(app) as client:
        answer = client.get("/boom")
    assert answer.status_code == 429
    assert answer.json()["code"] == "too-many-attempts"
    assert answer.json()["detail"] == "too many failed attempts: try again in 7 s"
    assert answer.headers["retry-after"] == "7"
    assert "www-authenticate" not in answer.headers


def test_a_field_message_distinct_from_the_detail() -> None:
    """`field_message` words the `errors[]` entry apart from `detail` (issue 22: no service
    passes `errors` through `extra`)."""

    @get("/boom", sync_to_thread=False)
    def boom() -> None:
        raise domain.Invalid("type: numwin has no 'bid' action", field="type", field_message="no")

    app = Litestar([boom], exception_handlers={Exception: handle_exception})
    with TestClient(app) as client:
        problem = client.get("/boom").json()
    assert problem["detail"] == "type: numwin has no 'bid' action"
    assert problem["errors"] == [{"field": "type", "message": "no", "code": "validation-error"}]
    refusal = domain.field_error(domain.Invalid, "bad-request", "dealer", "must be a seat")
    assert (refusal.detail, refusal.field, refusal.field_message) == (
        "dealer: must be a seat",
        "dealer",
        "must be a seat",
    )
    assert refusal.extra == {}


def test_no_service_passes_errors_through_extra() -> None:
    """The per-field message is `field_message`; `extra={"errors": …}` is left to a refusal
    naming several fields (api/sheets/rules.py's re-derivation)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "api"
    for path in (root / "games" / "service.py", root / "sheets" / "service.py"):
        assert 'extra={"errors"' not in path.read_text(), path
