"""schemathesis against the stored-games operations (tag "Stored games") on the run's migrated
PostgreSQL database, with real games and seat tokens.

A third of the generated cases keep their random `game_id`; the others name a real game:
the active one (an active game's stream never ends, so streams name the abandoned one instead;
`AbandonGame` names one kept for it, abandoned by the first such case, 409 after), or an
abandoned one. `Authorization: Bearer <seat token of that game>` comes from an auth provider,
so schemathesis knows it is valid (its `ignored_auth` check then corrupts and drops it).

Positive and negative data, every check. What the fuzzing found (the stream's answers and the
reads' refusals missing from the spec, an action read before its token, Idempotency-Key's
limits, a NUL in a player's name reaching PostgreSQL) is pinned by the tests after it. About
10 s on two cores with 40 examples per operation and mode (`NUMRULES_FUZZ_EXAMPLES`).
"""

from __future__ import annotations

import os
import re
from typing import Any

import pytest
from hypothesis import strategies as st
from schemathesis.specs.openapi.checks import ignored_auth

from api.app import create_app, spec_dict
from api.ops.settings import Settings
from tests.fuzz import fuzzed
from tests.games.host import host, host_pseudo

EXAMPLES = int(os.environ.get("NUMRULES_FUZZ_EXAMPLES", "40"))
PLAYERS = [{"name": "Ada"}, {"name": "Bo"}, {"name": "Cy"}]

#: The app's settings, made at import (the spec is read then) and pointed at the run's database
#: by the `database` fixture, before the first request starts the app's lifespan.
# bots and hints think in a thread on a small budget here: the fuzzer's requests each wait
# at most 10 s, a process pool's first start on a loaded machine may take longer
SETTINGS = Settings(
    database_url="postgresql+asyncpg://127.0.0.1:9/not-yet",
    bot_workers=0,
    bot_samples=2,
    bot_seconds=0.2,
)
APP = create_app(SETTINGS)
SPEC = spec_dict(APP)
#: (id, seat 0's token) by role: `active`, `abandoned`, `doomed` (for AbandonGame).
REAL: dict[str, tuple[str, str]] = {}
#: `Authorization` of the account hosting the real games (creation needs a session for
#: numking, the community lock; a seat is joined with one).
HOST: list[str] = []
SESSION_OPERATIONS = {"CreateGame", "JoinSeat", "ClaimSeat", "LeaveSeat", "StartGame"}

# Schema-valid requests the server may still refuse: the game does not exist (404), is not
# at that point (409: turn, phase, over; 412: If-Match) or the rules forbid the action (422,
# held to the operation's documented refusals by `refusal_is_documented`); 403: a seat of a
# real game that is not bound to the host account (JoinSeat).
schema = fuzzed(SPEC, APP, ["Stored games"], EXAMPLES, ["2xx", "403", "404", "409", "412", "422"])


@pytest.fixture(scope="module", autouse=True)
def database(pg_head: str, games: Any) -> None:
    """Point the app at the run's database; make the real games (through the suite's own
    TestClient: another app on the same database)."""
    SETTINGS.database_url = pg_head
    # seat 0 of every real game is the host account's, joined: its session acts there too
    players = [{**PLAYERS[0], "account": host_pseudo(games)}, *PLAYERS[1:]]
    for role in ("active", "abandoned", "doomed"):
        created = games.post(
            "/v1/games", json={"ruleset": "numking", "players": players}, headers=host(games)
        )
        assert created.status_code == 201, created.text
        REAL[role] = (created.json()["id"], created.json()["seats"][0]["token"])
        joined = games.post(f"/v1/games/{REAL[role][0]}/seats/0/join", headers=host(games))
        assert joined.status_code == 200, joined.text
    HOST.append(host(games)["Authorization"])
    game_id, token = REAL["abandoned"]
    headers = {"Authorization": f"Bearer {token}"}
    bid = games.post(
        f"/v1/games/{game_id}/actions", json={"type": "bid", "tricks": 0}, headers=headers
    )
    assert bid.status_code == 200, bid.text
    assert games.post(f"/v1/games/{game_id}/abandon", headers=headers).status_code == 200


def choose(case: Any, role: str) -> Any:
    """Name the game of `role` in the case (`generated`: keep the generated id)."""
    operation = case.operation.definition.raw["operationId"]
    if role == "active" and operation == "StreamGameEvents":
        role = "abandoned"  # an active game's stream never ends
    elif role == "active" and operation == "AbandonGame":
        role = "doomed"
    if role != "generated" and REAL:  # (the spec's own examples are made at collection)
        case.path_parameters = {**case.path_parameters, "game_id": REAL[role][0]}
        # SeatToken (applied before this hook) set the active game's token: this game's
        ours = {f"Bearer {token}" for _, token in REAL.values()}
        if (case.headers or {}).get("Authorization") in ours:
            case.headers["Authorization"] = f"Bearer {REAL[role][1]}"
    return case


@schema.hook
def flatmap_case(context: Any, case: Any) -> Any:
    if "game_id" not in (case.path_parameters or {}):
        return st.just(case)
    roles = st.sampled_from(["generated", "active", "abandoned"])
    return roles.map(lambda role: choose(case, role))


@schema.auth(refresh_interval=None)
class SeatToken:
    """`Authorization: Bearer <seat token>` (the active game's; `choose` swaps in the token of
    the game a case names)."""

    def get(self, case: Any, context: Any) -> str:
        return REAL["active"][1] if REAL else "no-game-yet"

    def set(self, case: Any, data: str, context: Any) -> None:
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}


_ALSO_REFUSED = re.compile(r"Also refused \(422[^)]*\): (.*)", re.DOTALL)
_CODE = re.compile(r"\(`([a-z]+(?:-[a-z]+)*)`\)")
#: The only `validation-error` a schema-valid request may get: a float where an integer goes.
_FLOAT_FOR_INTEGER = re.compile(r"must be an integer( or null)?, not a number")


def documented_refusals(operation: Any) -> set[str]:
    """The problem codes an operation's description lists under "Also refused" (its 422
    `code`s for requests JSON Schema cannot tell apart; `illegal-move` and such)."""
    description = operation.definition.raw.get("description", "")
    found = _ALSO_REFUSED.search(description)
    return set(_CODE.findall(found.group(1))) if found else set()


def refusal_is_documented(ctx: Any, response: Any, case: Any) -> bool | None:
    """A schema-valid request refused with 422 has one of its operation's documented codes;
    a `validation-error` only for a float where an integer goes."""
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return None
    if response.status_code != 422:
        return None
    problem = response.json()
    allowed = documented_refusals(case.operation)
    assert problem["code"] in allowed, f"{case.operation.label}: undocumented refusal {problem}"
    if problem["code"] == "validation-error":  # a float for an integer, or a named limit
        errors = problem.get("errors", [])
        description = case.operation.definition.raw.get("description", "")
        assert errors and all(
            _FLOAT_FOR_INTEGER.fullmatch(e["message"])
            or f"`{e['field']}`" in description
            or e.get("code") in allowed - {"validation-error"}  # documented refusals mixed
            for e in errors
        ), problem
    return True


@schema.parametrize()
def test_stored_games_conform_to_their_spec(case: Any) -> None:
    excluded = []
    if case.operation.definition.raw["operationId"] in SESSION_OPERATIONS:
        # (the spec's examples got their header at collection, before the host signed up)
        case.headers = {**(case.headers or {}), "Authorization": HOST[0]}
        # the header above, not the auth provider's seat token, authenticates these: the
        # `ignored_auth` check corrupts the provider's token only, and the host's session
        # still joins the seat bound to it (200), which it would read as auth ignored
        excluded.append(ignored_auth)
    case.call_and_validate(additional_checks=[refusal_is_documented], excluded_checks=excluded)


def test_the_fuzzed_operations_are_the_stored_games() -> None:
    """The filter picks the stored-games operations (the hint, issue 25; the open tables and
    the rematch, issue 26), and the ones that take a JSON body list their refusals."""
    labels = sorted(r.ok().label for r in schema.get_all_operations())
    assert labels == [
        "GET /v1/games",
        "GET /v1/games/{game_id}",
        "GET /v1/games/{game_id}/events",
        "GET /v1/games/{game_id}/export",
        "GET /v1/games/{game_id}/stream",
        "POST /v1/games",
        "POST /v1/games/{game_id}/abandon",
        "POST /v1/games/{game_id}/actions",
        "POST /v1/games/{game_id}/hint",
        "POST /v1/games/{game_id}/rematch",
        "POST /v1/games/{game_id}/seats/{seat}/claim",
        "POST /v1/games/{game_id}/seats/{seat}/join",
        "POST /v1/games/{game_id}/seats/{seat}/leave",
        "POST /v1/games/{game_id}/start",
        "POST /v1/games/{game_id}/stream-tickets",
    ]
    assert {"bad-player-count", "bad-option", "validation-error"} <= documented_refusals(
        schema["/v1/games"]["POST"]
    )
    assert {"illegal-move", "idempotency-key-reused"} <= documented_refusals(
        schema["/v1/games/{game_id}/actions"]["POST"]
    )


# -- what the fuzzing found, one by one ------------------------------------------------------


def _responses(path: str, method: str) -> dict[str, Any]:
    responses: dict[str, Any] = SPEC["paths"][path][method]["responses"]
    return responses


def test_the_stream_answers_are_documented(games: Any) -> None:
    game_id, token = REAL["abandoned"]
    headers = {"Authorization": f"Bearer {token}"}
    path = f"/v1/games/{game_id}/stream"
    full = games.get(path, headers=headers)
    assert full.status_code == 200
    assert full.headers["content-type"].startswith("text/event-stream")
    assert games.get(path, headers={**headers, "Last-Event-ID": "99"}).status_code == 204
    assert games.get(path, params={"ticket": "x"}, headers=headers).status_code == 422
    assert games.get(path, headers={**headers, "Last-Event-ID": "0" * 11}).status_code == 422
    documented = _responses("/v1/games/{game_id}/stream", "get")
    assert "text/event-stream" in documented["200"]["content"]
    assert {"204", "422"} <= set(documented)
    assert "validation-error" in documented_refusals(schema["/v1/games/{game_id}/stream"]["GET"])


def test_the_reads_refusals_are_documented(games: Any) -> None:
    game_id, _ = REAL["active"]
    refused = games.get(f"/v1/games/{game_id}/events", params={"limit": 0})
    assert refused.status_code == 422
    assert refused.headers["content-type"].startswith("application/problem+json")
    documented = _responses("/v1/games/{game_id}/events", "get")
    assert "422" in documented
    shared = SPEC["components"]["responses"]  # the server's own 400s, alike for all
    assert documented["400"] == {"$ref": "#/components/responses/BadRequest"}
    assert "application/problem+json" in shared["BadRequest"]["content"]
    codes = documented["422"]["content"]["application/problem+json"]["schema"]["allOf"][1]
    assert refused.json()["code"] in codes["properties"]["code"]["enum"]


def test_an_action_without_a_token_is_401_first(games: Any) -> None:
    """Without a token, the action is not read: 401, whatever the body."""
    game_id, _ = REAL["active"]
    url = f"/v1/games/{game_id}/actions"
    no_body = games.post(url, content=b"", headers={"Content-Type": "application/json"})
    not_json = games.post(url, content=b"{", headers={"Content-Type": "application/json"})
    not_an_action = games.post(url, json={"type": "dance"})
    an_action = games.post(url, json={"type": "bid", "tricks": 0})
    answers = [no_body, not_json, not_an_action, an_action]
    assert [a.status_code for a in answers] == [401] * 4, [a.text for a in answers]


def test_the_action_headers_limits_are_documented() -> None:
    parameters = SPEC["paths"]["/v1/games/{game_id}/actions"]["post"]["parameters"]
    key = next(p for p in parameters if p["name"] == "Idempotency-Key")["schema"]
    string = next((o for o in key.get("oneOf", []) if o.get("type") == "string"), {})
    limits = {**key, **string}  # on the parameter's schema or on its string option
    assert limits.get("minLength") == 1 and limits.get("maxLength") == 255
    assert "pattern" in limits


def test_a_nul_in_a_player_name_is_refused(games: Any) -> None:
    players = [{"name": "Ada\x00"}, {"name": "Bo"}, {"name": "Cy"}]
    created = games.post(
        "/v1/games", json={"ruleset": "numking", "players": players}, headers=host(games)
    )
    assert created.status_code == 422, created.text
