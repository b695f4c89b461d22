r"""schemathesis against the accounts and score-sheet operations (tags "Accounts" and "Score
sheets") on the run's migrated PostgreSQL database, with a real session and real sheets.

Every case carries `Authorization: Bearer <session token>` of an account signed up by the
`database` fixture (an auth provider: schemathesis knows it is valid, and its `ignored_auth`
check drops and corrupts it on the operations that declare `sessionToken`). The operations that
would end that session or account (`LogOut`, `DeleteMe`, `ChangePassword`, which ends the
other sessions) get a throw-away account's token instead, signed up in the test body.

Cases that name a sheet keep their random `sheet_id` a part of the time; otherwise a hook names
a real one: a numwars-classic sheet and a numking sheet owned by the session's account (a round
each), another account's sheet naming it (it may read and confirm it, not change it), or a
fresh anonymous classic sheet made for the case (edited with its sheet token, claimed with it);
the destructive operations (`DeleteScoresheet`, `DeleteScoresheetRound`) always get a fresh
sheet. Round numbers are 1 or 2 then, a part of the time. `LogIn` gets the account's real
credentials, and `ChangePassword` its real current password, a part of the time.

Positive and negative data, every check. A schema-valid request may be refused only with the
documented statuses (401 a wrong log-in, 403 a wrong password, 404 a sheet the caller may not
see, 409 a pseudo or email taken or a finished sheet, 422, 429 log-in throttling), and a 422
only with a problem code its operation documents (:func:`refusal_is_documented`), and a
`validation-error` only for a float where an integer goes.

What the fuzzing found in the API (a NUL in an email, a log-in or an account pseudo reaching
PostgreSQL, 500; `OPTIONS` listing one handler's methods on the paths with several; an
over-long `sheet_id` answered with an undocumented 422; the renumbering refusal's code missing
from the spec; `\s` read by Python, not ECMA-262, in the email pattern) is fixed and pinned by
the tests after it, one by one. 40 examples
per operation and mode (`NUMRULES_FUZZ_EXAMPLES`): about 80 s on two cores, most of it the
coverage phase of the two round operations (their body is any of four rulesets' rounds).
"""

from __future__ import annotations

import asyncio
import os
import re
import secrets
from collections.abc import Iterator
from typing import Any

import asyncpg
import pytest
from hypothesis import strategies as st
from schemathesis.core.parameters import ParameterLocation

from api.app import create_app, spec_dict
from api.ops.settings import Settings
from tests.accounts.conftest import auth, sign_up as sign_up_as
from tests.fuzz import fuzzed
from tests.pg import FAST_HASHES

EXAMPLES = int(os.environ.get("NUMRULES_FUZZ_EXAMPLES", "40"))
PASSWORD = "the fuzzer's own password"
PLACEHOLDER = "no-session-yet"

#: The app's settings, made at import (the spec is read then) and pointed at the run's database
#: by the `database` fixture, before the first request starts the app's lifespan. Argon2id at
#: its cheapest: the fuzzing signs up many accounts.
SETTINGS = Settings(database_url="postgresql+asyncpg://127.0.0.1:9/not-yet", **FAST_HASHES)
APP = create_app(SETTINGS)
SPEC = spec_dict(APP)

#: The shared session: `pseudo`, `token`, `authorization`.
SESSION: dict[str, str] = {}
#: Real sheets by role: `classic`, `numking` (owned by the session's account), `named` (another
#: account's, naming it).
SHEETS: dict[str, str] = {}
#: The suite's own TestClient (another app on the same database), for what a case needs made.
CLIENT: list[Any] = []

#: Operations that end the session or the account they are called with (ChangePassword ends
#: the others): a throw-away account's session instead of the shared one.
THROW_AWAY_OPERATIONS = {"LogOut", "DeleteMe", "ChangePassword"}
#: Operations that remove the sheet or a round: always a sheet made for the case.
DESTRUCTIVE_OPERATIONS = {"DeleteScoresheet", "DeleteScoresheetRound"}
FRESH = "fresh-classic-sheet"
FRESH_NUMKING = "fresh-numking-sheet"
#: An `If-Match` the test body replaces with the sheet's current `ETag` (a valid entity tag
#: that names no version, if the sheet cannot be read).
CURRENT = '"current-version"'

CLASSIC_ROUND = {
    "players": [
        {"captured": ["rainbow-14", "shadow-14", "red-16", "red-8", "blue-8", "joker"]},
        {"captured": ["red-2", "blue-2", "green-2", "rainbow-5"]},
        {"captured": ["yellow-9", "green-11"]},
    ]
}


def _numking_round(cards: int) -> dict[str, Any]:
    return {
        "players": [
            {"bid": cards, "tricks": cards},
            {"bid": 0, "tricks": 0},
            {"bid": 0, "tricks": 0},
        ]
    }


# Schema-valid requests the server may still refuse: 401 a wrong log-in; 403 a wrong current
# password; 404 a sheet this caller may not see; 409 a pseudo or email taken, a finished sheet,
# a claimed player bound; 412 an `If-Match` of another version than the sheet's; 428 a round's
# correction or deletion without `If-Match`; 422 what JSON Schema cannot state (held to the
# documented codes by `refusal_is_documented`); 429 the log-in throttle.
schema = fuzzed(
    SPEC,
    APP,
    ["Accounts", "Score sheets"],
    EXAMPLES,
    ["2xx", "401", "403", "404", "409", "412", "422", "428", "429"],
)


def _sql(statement: str) -> None:
    url = SETTINGS.database_url.replace("postgresql+asyncpg://", "postgresql://")

    async def run() -> None:
        conn = await asyncpg.connect(url)
        try:
            await conn.execute(statement)
        finally:
            await conn.close()

    asyncio.run(run())


def sign_up(client: Any) -> dict[str, Any]:
    return sign_up_as(client, pseudo="fz_" + secrets.token_hex(6), password=PASSWORD)


bearer = auth


def new_sheet(
    client: Any, body: dict[str, Any], rounds: list[dict[str, Any]], token: str | None
) -> tuple[str, str]:
    """A sheet with its rounds: (id, the token that edits it)."""
    headers = bearer(token) if token else {}
    created = client.post("/v1/scoresheets", json=body, headers=headers)
    assert created.status_code == 201, created.text
    sheet_id: str = created.json()["id"]
    token = token or created.json()["token"]
    assert token is not None
    for played in rounds:
        added = client.post(
            f"/v1/scoresheets/{sheet_id}/rounds", json=played, headers=bearer(token)
        )
        assert added.status_code == 201, added.text
    return sheet_id, token


def _classic(players: list[dict[str, Any]]) -> dict[str, Any]:
    return {"ruleset": "numwars-classic", "players": players}


@pytest.fixture(scope="module", autouse=True)
def database(pg_head: str, games: Any) -> Iterator[None]:
    """Point the app at the run's database; sign up the session's account; make the real
    sheets (through the suite's own TestClient: another app on the same database). The log-in
    throttle's per-address counts are cleared before and after: every client of the suite is
    `testclient`, and the fuzzing's failed log-ins must not throttle the other modules'."""
    SETTINGS.database_url = pg_head
    _sql("DELETE FROM login_throttle WHERE key LIKE 'network:%'")
    CLIENT.append(games)
    me = sign_up(games)
    SESSION.update(pseudo=me["pseudo"], token=me["token"], authorization=f"Bearer {me['token']}")
    names = [{"name": "Ada"}, {"name": "Bo"}, {"name": "Cy"}]
    SHEETS["classic"], _ = new_sheet(games, _classic(names), [CLASSIC_ROUND], me["token"])
    numking = {"ruleset": "numking", "players": names}
    SHEETS["numking"], _ = new_sheet(games, numking, [_numking_round(1)], me["token"])
    other = sign_up(games)
    named = _classic([{"name": "Ada", "account": me["pseudo"]}, *names[1:]])
    SHEETS["named"], _ = new_sheet(games, named, [CLASSIC_ROUND], other["token"])
    yield
    _sql("DELETE FROM login_throttle WHERE key LIKE 'network:%'")


def _operation(case: Any) -> str:
    operation: str = case.operation.definition.raw["operationId"]
    return operation


def _positive_at(case: Any, location: ParameterLocation) -> bool:
    meta = case.meta
    return (
        meta is not None and meta.generation.mode.is_positive and not meta.is_negative_at(location)
    )


ROUND_OPERATIONS = {"AddScoresheetRound", "ReplaceScoresheetRound"}
#: Operations that take `If-Match`: a part of the time it names the sheet's real version.
VERSIONED_OPERATIONS = {
    "UpdateScoresheet",
    "DeleteScoresheet",
    "AddScoresheetRound",
    "ReplaceScoresheetRound",
    "DeleteScoresheetRound",
    "ClaimScoresheet",
    "ConfirmScoresheet",
    "ShareScoresheet",
}


def choose_sheet(case: Any, role: str, n: int | None, real_round: bool, current: bool) -> Any:
    """Name the sheet of `role` (and round `n`, unless None) in the case; `real_round`: a
    round that scores on that sheet's ruleset (round 1's, for numking) as the body;
    `current`: `If-Match` the sheet's version (set by `prepare`, once the sheet exists)."""
    if current:
        case.headers = {**(case.headers or {}), "If-Match": CURRENT}
    if role != "generated" and SHEETS:  # (the spec's own examples are made at collection)
        sheet_id = SHEETS.get(role, role)  # FRESH, FRESH_NUMKING: made in the test body
        case.path_parameters = {**case.path_parameters, "sheet_id": sheet_id}
        if n is not None and "n" in case.path_parameters:
            case.path_parameters["n"] = n
        if real_round and _operation(case) in ROUND_OPERATIONS:
            case.body = _numking_round(1) if role == "numking" else CLASSIC_ROUND
    return case


def choose_credentials(case: Any, real: bool) -> Any:
    """The session account's real log-in (LogIn) or current password (ChangePassword)."""
    if not real or not SESSION or not isinstance(case.body, dict):
        return case
    if _operation(case) == "LogIn":
        case.body = {**case.body, "login": SESSION["pseudo"], "password": PASSWORD}
    elif _operation(case) == "ChangePassword":
        case.body = {**case.body, "current": PASSWORD}
    return case


@schema.hook
def flatmap_case(context: Any, case: Any) -> Any:
    operation = _operation(case)
    if operation in {"LogIn", "ChangePassword"} and _positive_at(case, ParameterLocation.BODY):
        return st.booleans().map(lambda real: choose_credentials(case, real))
    if "sheet_id" not in (case.path_parameters or {}):
        return st.just(case)
    if not _positive_at(case, ParameterLocation.PATH):
        return st.just(case)  # a real id would make the negative path positive
    if operation in DESTRUCTIVE_OPERATIONS:
        roles = st.sampled_from(["generated", FRESH, FRESH_NUMKING])
    elif operation == "ClaimScoresheet":
        roles = st.sampled_from(["generated", FRESH])
    else:
        roles = st.sampled_from(["generated", "classic", "numking", "named", FRESH])
    numbers = st.sampled_from([None, 1, 2])
    real_round = st.booleans() if _positive_at(case, ParameterLocation.BODY) else st.just(False)
    versioned = _positive_at(case, ParameterLocation.HEADER) and operation in VERSIONED_OPERATIONS
    current = st.booleans() if versioned else st.just(False)
    chosen = st.tuples(roles, numbers, real_round, current)
    return chosen.map(lambda chosen: choose_sheet(case, *chosen))


@schema.auth(refresh_interval=None)
class SessionToken:
    """`Authorization: Bearer <the shared session token>` (the test body swaps in another
    where the case needs it)."""

    def get(self, case: Any, context: Any) -> str:
        return SESSION.get("token", PLACEHOLDER)

    def set(self, case: Any, data: str, context: Any) -> None:
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}


def prepare(case: Any) -> None:
    """What the hooks could only name: the shared session (in the spec's examples, made at
    collection), a throw-away account, a sheet made for the case."""
    client = CLIENT[0]
    headers = case.headers or {}
    if headers.get("Authorization") == f"Bearer {PLACEHOLDER}":
        headers["Authorization"] = SESSION["authorization"]
    ours = headers.get("Authorization") == SESSION["authorization"]
    operation = _operation(case)
    if ours and operation in THROW_AWAY_OPERATIONS:
        headers["Authorization"] = f"Bearer {sign_up(client)['token']}"
    sheet_id = (case.path_parameters or {}).get("sheet_id")
    reader = None  # who reads the sheet's version for `If-Match` (default: the case's caller)
    if sheet_id == FRESH:
        case.path_parameters["sheet_id"], token = new_sheet(
            client,
            _classic([{"name": "Ada"}, {"name": "Bo"}, {"name": "Cy"}]),
            [CLASSIC_ROUND],
            None,
        )
        reader = f"Bearer {token}"
        if operation == "ClaimScoresheet":  # with the session, and the sheet token in the body
            if _positive_at(case, ParameterLocation.BODY) and isinstance(case.body, dict):
                case.body = {**case.body, "token": token}
        elif ours and operation != "ConfirmScoresheet":
            headers["Authorization"] = f"Bearer {token}"
    elif sheet_id == FRESH_NUMKING:  # round 2 bids 2: deleting round 1 leaves it unscorable
        body = {"ruleset": "numking", "players": [{"name": n} for n in ("Ada", "Bo", "Cy")]}
        rounds = [_numking_round(1), _numking_round(2)]
        case.path_parameters["sheet_id"], _ = new_sheet(client, body, rounds, SESSION["token"])
    if headers.get("If-Match") == CURRENT:
        read = client.get(
            f"/v1/scoresheets/{case.path_parameters['sheet_id']}",
            headers={"Authorization": reader or headers.get("Authorization", "")},
        )
        if read.status_code == 200:
            headers["If-Match"] = read.headers["etag"]
    case.headers = headers


PROBLEM = "application/problem+json"
_ALSO_REFUSED = re.compile(r"Also refused[^:]*:(.*)", re.DOTALL)
_CODE = re.compile(r"`([a-z]+(?:-[a-z]+)+)`")
#: The only `validation-error` a schema-valid request may get: a float where an integer goes.
_FLOAT_FOR_INTEGER = re.compile(r"must be an integer( or null)?, not a number")
#: Operations whose body is documented as "not the sheet ruleset's round" (`validation-error`
#: on any field: the spec states a round as any of the four rulesets').
_ANY_ROUND = "not the sheet ruleset's round"


def documented_refusals(operation: Any) -> set[str]:
    """The problem codes an operation documents for 422: its 422 answer's enum (which its
    description names), and its description's "Also refused" list."""
    raw = operation.definition.raw
    schema = (
        raw.get("responses", {}).get("422", {}).get("content", {}).get(PROBLEM, {}).get("schema")
    )
    codes = set(schema["allOf"][1]["properties"]["code"]["enum"]) if schema else set()
    found = _ALSO_REFUSED.search(raw.get("description", ""))
    return codes | (set(_CODE.findall(found.group(1))) if found else set())


def refusal_is_documented(ctx: Any, response: Any, case: Any) -> bool | None:
    """A schema-valid request refused with 422 has one of its operation's documented codes;
    a `validation-error` only for a float where an integer goes (or a round body not of the
    sheet's ruleset, which the spec cannot tell apart)."""
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return None
    if response.status_code != 422:
        return None
    problem = response.json()
    allowed = documented_refusals(case.operation)
    assert problem["code"] in allowed, f"{case.operation.label}: undocumented refusal {problem}"
    description = case.operation.definition.raw.get("description", "")
    if problem["code"] == "validation-error" and _ANY_ROUND not in description:
        errors = problem.get("errors", [])
        assert errors and all(
            _FLOAT_FOR_INTEGER.fullmatch(e["message"])
            or e.get("code") in allowed - {"validation-error"}  # documented refusals mixed
            for e in errors
        ), problem
    return True


#: Paths served by several handlers (`test_options_lists_every_method_of_the_path`).
SEVERAL_HANDLERS = {
    "/v1/me",
    "/v1/scoresheets/{sheet_id}",
    "/v1/scoresheets/{sheet_id}/rounds/{n}",
}


@schema.parametrize()
def test_accounts_and_sheets_conform_to_their_spec(case: Any) -> None:
    prepare(case)
    case.call_and_validate(additional_checks=[refusal_is_documented])


def test_the_fuzzed_operations_are_accounts_and_sheets() -> None:
    """The filter picks the fourteen accounts (API keys included) and the twelve score-sheet
    operations; the session ones declare `sessionToken`, and the refusals parse to problem
    codes."""
    labels = sorted(r.ok().label for r in schema.get_all_operations())
    assert labels == [
        "DELETE /v1/me",
        "DELETE /v1/me/api-keys/{key_id}",
        "DELETE /v1/scoresheets/{sheet_id}",
        "DELETE /v1/scoresheets/{sheet_id}/rounds/{n}",
        "DELETE /v1/sessions/current",
        "GET /v1/me",
        "GET /v1/me/api-keys",
        "GET /v1/me/history",
        "GET /v1/me/stats",
        "GET /v1/scoresheets/{sheet_id}",
        "GET /v1/terms",
        "PATCH /v1/me",
        "PATCH /v1/scoresheets/{sheet_id}",
        "POST /v1/accounts",
        "POST /v1/email-verifications/confirm",
        "POST /v1/me/api-keys",
        "POST /v1/me/password",
        "POST /v1/password-resets",
        "POST /v1/password-resets/confirm",
        "POST /v1/scoresheets",
        "POST /v1/scoresheets/{sheet_id}/claim",
        "POST /v1/scoresheets/{sheet_id}/confirm",
        "POST /v1/scoresheets/{sheet_id}/rounds",
        "POST /v1/scoresheets/{sheet_id}/shares",
        "POST /v1/sessions",
        "PUT /v1/scoresheets/{sheet_id}/rounds/{n}",
    ]
    assert documented_refusals(schema["/v1/accounts"]["POST"]) == {
        "terms-not-accepted",
        "validation-error",
        "missing-field",  # a body's refusals (api/problem_codes.py)
        "unknown-field",
    }
    assert {"bad-name", "unknown-account", "bad-option"} <= documented_refusals(
        schema["/v1/scoresheets"]["POST"]
    )
    assert {"cards-mismatch", "streak-mismatch", "bad-player-count"} <= documented_refusals(
        schema["/v1/scoresheets/{sheet_id}/rounds"]["POST"]
    )


# -- what the fuzzing found, one by one ------------------------------------------------------


def test_options_lists_every_method_of_the_path(games: Any) -> None:
    """`OPTIONS` on a path lists every method the spec documents there (schemathesis'
    `allow_header_conformance`), as a 405 on that path does."""
    wrong = {}
    for path in sorted(SEVERAL_HANDLERS):
        url = path.replace("{sheet_id}", SHEETS["classic"]).replace("{n}", "1")
        allow = games.options(url, headers=bearer(SESSION["token"])).headers.get("allow", "")
        advertised = {m.strip().lower() for m in allow.split(",")} - {"head", "options"}
        documented = set(SPEC["paths"][path]) & {"get", "put", "post", "patch", "delete"}
        if advertised != documented:
            wrong[path] = allow
    assert not wrong, wrong


NUL_CASES = [
    (
        "POST",
        "/v1/accounts",
        {
            "pseudo": "nul_1",
            "password": PASSWORD,
            "age_range": "25-34",
            "accept_terms": True,
            "email": "a\x00@example.org",
        },
    ),
    ("POST", "/v1/sessions", {"login": "a\x00", "password": PASSWORD}),
    ("PATCH", "/v1/me", {"email": "a\x00@example.org"}),
    ("POST", "/v1/password-resets", {"login": "a\x00"}),
    (
        "POST",
        "/v1/scoresheets",
        {
            "ruleset": "numwars-classic",
            "players": [{"name": "Ada", "account": "a\x00"}, {"name": "Bo"}, {"name": "Cy"}],
        },
    ),
]


@pytest.mark.parametrize(
    ("method", "path", "body"), NUL_CASES, ids=[c[1] + " " + c[0] for c in NUL_CASES]
)
def test_a_nul_is_refused(games: Any, method: str, path: str, body: dict[str, Any]) -> None:
    """A NUL in an email, a log-in or an account pseudo is refused (422), never a 500 (it
    once reached PostgreSQL, which cannot store it)."""
    answer = games.request(method, path, json=body, headers=bearer(SESSION["token"]))
    assert answer.status_code == 422, answer.text
    documented = SPEC["paths"][path][method.lower()]["responses"]
    assert str(answer.status_code) in documented, answer.text


LONG_ID_CASES = [("GET", ""), ("DELETE", ""), ("POST", "/confirm")]


@pytest.mark.parametrize(("method", "tail"), LONG_ID_CASES, ids=["get", "delete", "confirm"])
def test_an_overlong_sheet_id_is_a_documented_refusal(games: Any, method: str, tail: str) -> None:
    answer = games.request(
        method, f"/v1/scoresheets/{'0' * 65}{tail}", headers=bearer(SESSION["token"])
    )
    assert 400 <= answer.status_code < 500, answer.text
    documented = SPEC["paths"]["/v1/scoresheets/{sheet_id}" + tail][method.lower()]["responses"]
    assert str(answer.status_code) in documented, answer.text


def test_a_renumbering_refusal_names_its_code(games: Any) -> None:
    body = {"ruleset": "numking", "players": [{"name": n} for n in ("Ada", "Bo", "Cy")]}
    rounds = [_numking_round(1), _numking_round(2)]
    sheet_id, token = new_sheet(games, body, rounds, SESSION["token"])
    version = games.get(f"/v1/scoresheets/{sheet_id}", headers=bearer(token)).headers["etag"]
    answer = games.delete(
        f"/v1/scoresheets/{sheet_id}/rounds/1", headers={**bearer(token), "If-Match": version}
    )
    assert answer.status_code == 422, answer.text
    operation = schema["/v1/scoresheets/{sheet_id}/rounds/{n}"]["DELETE"]
    assert answer.json()["code"] in documented_refusals(operation), answer.text


@pytest.mark.parametrize(
    "value",
    [
        "ada@example.org",
        "a\x85b@example.org",
        "a\x1cb@example.org",
        "x@example.org\n",
        "a\u202eb@example.org",
        "a\u200bb@example.org",
        "é@exemple.fr",
        "ada_l",
        "ada_l\n",
        "ａda",
        "аda",
        "a b",
    ],
)
def test_the_patterns_mean_the_same_in_the_spec_and_the_service(value: str) -> None:
    """Each account pattern takes exactly what JSON Schema (ECMA-262, the spec's reading)
    takes: `\\s`, `\\w` and `$` differ in Python (found by fuzzing: U+0085 in an email)."""
    import jsonschema_rs
    import msgspec

    from api.accounts import schemas as account_schemas

    for kind in (account_schemas.Email, account_schemas.Pseudo, account_schemas.PseudoRef):
        pattern = kind.__metadata__[0].pattern
        spec = jsonschema_rs.Draft202012Validator({"type": "string", "pattern": pattern})
        try:
            msgspec.convert(value, kind)
            service = True
        except msgspec.ValidationError as exc:
            service = "regex" not in str(exc)  # refused by a length, not the pattern
            if service:
                continue
        assert spec.is_valid(value) == service, (pattern, value)
