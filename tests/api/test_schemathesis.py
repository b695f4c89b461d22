"""schemathesis against the real app: positive and negative data for every operation, every check.

All of schemathesis' checks run, `positive_data_acceptance` included: a request that fits the
spec must be answered 2xx, or refused only for a reason the spec cannot state. JSON Schema
cannot relate one field to another (a card outside the deck *of that player count*, a card
repeated *across* `hand` and `trick`, a trick of exactly `players` cards, a `bid` above
`cards` …), and `4.0` is an integer to JSON Schema while the API never coerces it. Each
operation lists those refusals in its description ("Also refused", each with its problem code
in parentheses), so `positive_data_acceptance` takes 422 as expected and
:func:`refusal_is_documented` holds every 422 of a schema-valid request to that list: any
other refusal of valid data fails. 60 examples per operation and mode (about 60 s on two
cores); `NUMRULES_FUZZ_EXAMPLES=300` for a longer run.
"""

from __future__ import annotations

import os
import re
from types import SimpleNamespace
from typing import Any

import pytest
import schemathesis
from schemathesis import GenerationMode
from schemathesis.config import PositiveDataAcceptanceConfig

from api.app import create_app

# A separate app instance: schemathesis runs its own lifespan, apart from the TestClient fixture.
# The stateless operations (tests/games/test_schemathesis.py fuzzes the stored games' and
# tests/accounts/test_schemathesis.py the accounts' and score sheets', on a migrated
# PostgreSQL database, with seat and session tokens).
schema = (
    schemathesis.openapi.from_asgi("/openapi.json", create_app())
    .exclude(tag="Stored games")
    .exclude(tag="Accounts")
    .exclude(tag="Score sheets")
)
schema.config.generation.update(
    modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE],
    max_examples=int(os.environ.get("NUMRULES_FUZZ_EXAMPLES", "60")),
)
schema.config.checks.positive_data_acceptance = PositiveDataAcceptanceConfig(
    expected_statuses=["2xx", "422"]
)

_ALSO_REFUSED = re.compile(r"Also refused \(422[^)]*\): (.*)", re.DOTALL)
_CODE = re.compile(r"\(`([a-z]+(?:-[a-z]+)*)`\)")
#: The only `validation-error` a schema-valid request may get: a float where an integer goes.
_FLOAT_FOR_INTEGER = re.compile(r"must be an integer( or null)?, not a number")


def documented_refusals(operation: Any) -> set[str]:
    """The problem codes an operation's description lists under "Also refused" (none when it
    has no such list: then no schema-valid request may be refused)."""
    description = operation.definition.raw.get("description", "")
    found = _ALSO_REFUSED.search(description)
    return set(_CODE.findall(found.group(1))) if found else set()


def refusal_is_documented(ctx: Any, response: Any, case: Any) -> bool | None:
    """A schema-valid request refused with 422 has one of its operation's documented codes."""
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return None
    if response.status_code != 422:
        return None
    problem = response.json()
    code = problem["code"]
    allowed = documented_refusals(case.operation)
    assert code in allowed, f"{case.operation.label}: undocumented refusal {problem}"
    if code == "validation-error":  # a float for an integer, or documented refusals mixed
        errors = problem.get("errors", [])
        assert errors, problem
        assert all(
            _FLOAT_FOR_INTEGER.fullmatch(e["message"]) or e.get("code") in allowed - {code}
            for e in errors
        ), problem
    return True


@schema.parametrize()
def test_api_conforms_to_its_spec(case: Any) -> None:
    case.call_and_validate(additional_checks=[refusal_is_documented])


def test_every_operation_lists_its_refusals() -> None:
    """Each operation's "Also refused" list is there and parses to problem codes; the float for
    an integer is on every list."""
    listed = []
    for result in schema.get_all_operations():
        operation = result.ok()
        if operation.method.upper() == "POST" or operation.path.endswith("/deck"):
            assert "validation-error" in documented_refusals(operation), operation.label
            listed.append(operation.label)
    assert len(listed) == 21, listed  # 4 decks, 17 POST rules endpoints
    legal_moves = schema["/v1/rulesets/numwars/legal-moves"]["POST"]
    assert documented_refusals(legal_moves) == {
        "card-not-in-deck",
        "duplicate-card",
        "bad-trick",
        "validation-error",
    }


def _refusal(problem: dict[str, Any]) -> bool | None:
    """Run the check on a positive case of numking score-round answered 422 with `problem`."""
    positive = SimpleNamespace(mode=SimpleNamespace(is_positive=True))
    case = SimpleNamespace(
        meta=SimpleNamespace(generation=positive),
        operation=schema["/v1/rulesets/numking/score-round"]["POST"],
    )
    response = SimpleNamespace(status_code=422, json=lambda: problem)
    return refusal_is_documented(None, response, case)


def test_an_undocumented_refusal_of_valid_data_fails_the_check() -> None:
    """The check is not a rubber stamp: a code outside the list, or a `validation-error` other
    than a float for an integer, fails it."""
    assert _refusal({"code": "bad-request", "errors": []}) is True
    float_for_int = [{"field": "cards", "message": "must be an integer, not a number"}]
    assert _refusal({"code": "validation-error", "errors": float_for_int}) is True
    out_of_range = [{"field": "cards", "message": "must be an integer at most 18"}]
    mixed = [{"field": "cards", "message": "…", "code": "bad-request"}, *out_of_range]
    for problem in (
        {"code": "duplicate-card", "errors": []},
        {"code": "validation-error", "errors": out_of_range},
        {"code": "validation-error", "errors": mixed},
    ):
        with pytest.raises(AssertionError):
            _refusal(problem)
