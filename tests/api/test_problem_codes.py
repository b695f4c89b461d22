"""Enums for every closed set (issue 23): each problem answer of each operation lists its codes
as an enum, the same codes its description names; what the layers around the routes answer
is there by status; and the live check (tests/problem_check.py), run on every test's
requests, catches an answer the spec does not document."""

from __future__ import annotations

import json
import re
from typing import Annotated, Any

import pytest
from litestar import Litestar, get
from litestar.params import PathParameter
from litestar.testing import TestClient

from api.app import openapi_json
from api.http.problems import ProblemError, named_codes, problem_spec
from api.problem_codes import LAYERS, agree, document_problem_codes
from engine.core.errors import MOVE_REASONS, TURN_REASONS
from tests import problem_check
from tests.conftest import ROOT
from tests.problem_check import SpecIndex

SPEC = json.loads(openapi_json())
INDEX = SpecIndex(SPEC)
PROBLEM = "application/problem+json"


def _operations() -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, operation)
        for path, item in SPEC["paths"].items()
        for method, operation in item.items()
    ]


def _answer(response: dict[str, Any]) -> dict[str, Any]:
    ref = response.get("$ref")
    if ref is None:
        return response
    found: dict[str, Any] = SPEC["components"]["responses"][ref.rsplit("/", 1)[1]]
    return found


def test_every_problem_answer_lists_its_codes_in_an_enum_and_in_its_words() -> None:
    checked = 0
    for path, method, operation in _operations():
        for status, response in operation["responses"].items():
            answer = _answer(response)
            if PROBLEM not in answer.get("content", {}):
                continue
            allowed = INDEX.allowed(operation, int(status))
            assert allowed is not None and allowed.codes, (method, path, status)
            assert agree(answer["description"], sorted(allowed.codes)), (
                method,
                path,
                status,
                answer["description"],
            )
            checked += 1
    assert checked > 300


def test_the_enum_is_a_union_of_literals_on_the_problem() -> None:
    """`allOf: [Problem, {code: enum}]`: what openapi-typescript renders as an intersection
    (tests/api/test_typescript.py compiles a switch over one)."""
    conflict = SPEC["paths"]["/v1/accounts"]["post"]["responses"]["409"]
    schema = conflict["content"][PROBLEM]["schema"]
    assert schema["allOf"][0] == {"$ref": "#/components/schemas/Problem"}
    assert schema["allOf"][1]["properties"]["code"] == {
        "type": "string",
        "enum": ["email-taken", "pseudo-taken"],
    }
    assert schema["allOf"][1]["required"] == ["code"]


def test_the_problem_says_new_codes_may_come() -> None:
    problem = SPEC["components"]["schemas"]["Problem"]
    assert "default branch" in problem["description"]
    assert "default branch" in problem["properties"]["code"]["description"]


def test_the_layers_codes_are_there_by_status() -> None:
    """Every operation can meet the server's refusals; a body's only where there is one; the
    rate limit's except on the probes; the database's where it is used."""
    sign_up = SPEC["paths"]["/v1/accounts"]["post"]
    healthz = SPEC["paths"]["/healthz"]["get"]
    get_game = SPEC["paths"]["/v1/games/{game_id}"]["get"]

    def codes(operation: dict[str, Any], status: int) -> set[str]:
        allowed = INDEX.allowed(operation, status)
        return set(allowed.codes or ()) if allowed is not None else set()

    for operation in (sign_up, healthz, get_game):
        assert {"bad-request", "bad-host"} <= codes(operation, 400)
        assert codes(operation, 408) == {"request-timeout"}
        assert codes(operation, 431) == {"headers-too-large"}
        assert codes(operation, 500) == {"internal-error"}
    assert codes(sign_up, 400) == {"bad-request", "bad-host", "malformed-json"}
    assert codes(sign_up, 413) == {"body-too-large"}
    assert codes(sign_up, 415) == {"unsupported-media-type"}
    assert {"validation-error", "missing-field", "unknown-field"} <= codes(sign_up, 422)
    assert codes(get_game, 400) == {"bad-request", "bad-host"}
    assert codes(get_game, 413) == codes(get_game, 415) == codes(get_game, 422) == set()
    assert codes(get_game, 429) == {"rate-limited"} and codes(healthz, 429) == set()
    # a busy server's (api.ops.server), whatever the operation
    assert codes(get_game, 503) == {"database-unavailable", "unavailable"}
    assert codes(healthz, 503) == {"unavailable"}
    assert healthz["responses"]["503"] == {"$ref": "#/components/responses/Unavailable"}
    login = SPEC["paths"]["/v1/sessions"]["post"]
    assert codes(login, 429) == {"too-many-attempts", "rate-limited"}
    assert "`rate-limited`" in login["responses"]["429"]["description"]
    # the shared answers are shared
    assert healthz["responses"]["500"] == {"$ref": "#/components/responses/InternalError"}


def test_an_illegal_move_states_its_reasons() -> None:
    action = SPEC["paths"]["/v1/games/{game_id}/actions"]["post"]
    assert INDEX.allowed(action, 422) is not None
    illegal = INDEX.allowed(action, 422)
    turn = INDEX.allowed(action, 409)
    assert illegal is not None and turn is not None
    assert illegal.reasons == frozenset(MOVE_REASONS)
    # a waiting game (issue 26) refuses every action until it starts: `game-waiting`
    waiting = frozenset({*TURN_REASONS, "game-waiting"})
    assert turn.reasons == waiting
    # and a move after its seat's clock ran out (issue 26), which has no `reason`
    assert turn.codes == waiting | {"turn-timed-out"}
    assert not frozenset(MOVE_REASONS) & frozenset(TURN_REASONS)


_REASON_SITES = re.compile(
    r"IllegalMove\(\s*\"([a-z-]+)\"|_illegal\(\s*seat,\s*\"([a-z-]+)\"|reason\s*=\s*\"([a-z-]+)\""
)


def test_every_reason_the_engine_names_is_a_reason_of_the_contract() -> None:
    named = set()
    for source in (ROOT / "engine").rglob("*.py"):
        for match in _REASON_SITES.finditer(source.read_text(encoding="utf-8")):
            named.add(next(group for group in match.groups() if group))
    assert named, "no reason found: the pattern is stale"
    assert named <= set(MOVE_REASONS) | set(TURN_REASONS), named - set(MOVE_REASONS)


def test_codes_an_operation_description_names_are_in_its_enums() -> None:
    """ "Also refused (422 …): … (`bad-name`)": each code in parentheses is answered."""
    for path, method, operation in _operations():
        listed = set(re.findall(r"\(`([a-z]+(?:-[a-z]+)+)`", operation["description"]))
        stated: set[str] = set()
        for status in operation["responses"]:
            allowed = INDEX.allowed(operation, int(status))
            if allowed is not None:
                stated |= allowed.codes or set()
                stated |= allowed.reasons or set()  # `reason` (`card-not-in-hand` …)
        assert listed <= stated, (method, path, sorted(listed - stated))


def test_codes_are_declared_apart_from_the_words() -> None:
    spec = problem_spec("The pseudo or the email is taken", "pseudo-taken", "email-taken")
    assert spec.description == "The pseudo or the email is taken (`pseudo-taken`, `email-taken`)."
    assert spec.codes == ("pseudo-taken", "email-taken")
    with pytest.raises(ValueError, match="not in the words"):
        problem_spec("Taken (`pseudo-taken`).", "pseudo-taken")
    with pytest.raises(ValueError, match="twice"):
        problem_spec("Taken", "pseudo-taken", "pseudo-taken")


def test_a_route_that_declares_no_code_is_refused() -> None:
    @get("/x", operation_id="X", responses={409: problem_spec("A conflict")}, sync_to_thread=False)
    def x() -> None:
        return None

    with pytest.raises(ValueError, match="X: its 409 answer"):
        document_problem_codes(Litestar([x]))


def test_the_layers_are_stated_in_words_once_each() -> None:
    assert len({(layer.status, layer.code) for layer in LAYERS}) == len(LAYERS)
    for layer in LAYERS:
        assert not named_codes(layer.words), layer


# --- the live check -------------------------------------------------------------------------


def _app() -> Litestar:
    @get(
        "/things/{thing_id:str}",
        operation_id="GetThing",
        responses={404: problem_spec("No such thing", "not-found")},
        sync_to_thread=False,
    )
    def get_thing(thing_id: Annotated[str, PathParameter()]) -> dict[str, str]:
        if thing_id == "gone":
            raise ProblemError(404, "gone-away", "refused for the test")
        if thing_id == "busy":
            raise ProblemError(409, "busy", "refused for the test")
        raise ProblemError(404, "not-found", "refused for the test")

    from api.http.problems import handle_exception

    application = Litestar([get_thing], exception_handlers={Exception: handle_exception})
    document_problem_codes(application)
    return application


def test_the_live_check_catches_what_the_spec_does_not_document() -> None:
    """Through a real test client: a documented code passes, a code outside the enum and an
    undocumented status are caught, each named by operation, status and code."""
    problem_check.take()
    with TestClient(_app()) as client:
        assert client.get("/things/nothing").status_code == 404
        assert problem_check.take() == []
        assert client.get("/things/gone").status_code == 404
        assert client.get("/things/busy").status_code == 409
        assert client.get("/elsewhere").status_code == 404  # no operation: not checked
    found = problem_check.take()
    assert [(v.operation, v.status, v.code) for v in found] == [
        ("GetThing", 404, "gone-away"),
        ("GetThing", 409, "busy"),
    ]
    report = problem_check.report(found)
    assert "GetThing (GET /things/gone) answered 404 `gone-away`" in report
    assert "answered 409 `busy`: the status is not documented" in report


def test_the_check_holds_a_reason_to_its_enum() -> None:
    action = "/v1/games/0123456789abcdef0123456789abcdef/actions"
    illegal = {"code": "illegal-move", "reason": "must-follow-color"}
    assert INDEX.check("POST", action, 422, illegal) is None
    found = INDEX.check("POST", action, 422, {**illegal, "reason": "made-up"})
    assert found is not None and "reason `made-up`" in found.what
    assert INDEX.check("HEAD", "/v1/games/x", 404, {"code": "not-found"}) is None
    assert INDEX.check("OPTIONS", "/v1/games/x", 400, {"code": "x"}) is None


def test_the_hook_is_installed() -> None:
    import httpx

    assert getattr(httpx.Client.send, "_problem_check", False)
