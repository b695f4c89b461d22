"""The sheets' service on its own (issue 22, "Stored games in three layers" — the same for
sheets): called without HTTP, on PostgreSQL through asyncpg, it refuses with domain errors
(`api.http.domain`), each with the contract's code, never an HTTP problem; and the pure round
rules refuse likewise with no database at all."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import msgspec
import pytest

from api.db.engine import create_engine
from api.http.conditions import parse_if_match
from api.http.domain import (
    Conflict,
    DomainError,
    Forbidden,
    Invalid,
    NotFound,
    PreconditionRequired,
    Unauthenticated,
    VersionMismatch,
    status_of,
)
from api.http.problems import ProblemError, domain_problem
from api.sheets.idempotency import Conditions
from api.sheets.rules import Seat, check_player, make_rules, settle
from api.sheets.schemas import CreateSheet
from api.sheets.service import Auth, SheetService
from tests.sheets.test_sheets import ROUND_A, ROUND_B, ROUND_C

CLASSIC = {"ruleset": "numwars-classic", "players": [{"name": n} for n in ("Ada", "Bo", "Cy")]}


@pytest.fixture
async def service(pg_head: str) -> AsyncIterator[SheetService]:
    engine = create_engine(pg_head)
    try:
        yield SheetService(engine)
    finally:
        await engine.dispose()


async def _sheet(service: SheetService, planned: int = 3) -> tuple[str, Auth]:
    body = msgspec.convert({**CLASSIC, "planned_rounds": planned}, CreateSheet)
    created = await service.create(body, None)
    assert created.status == 201
    out: Any = created.body
    return out.id, Auth(out.token, None)


def _refused(kind: type[DomainError], code: str, error: BaseException) -> DomainError:
    """`error` is the domain error `kind` with `code`, and no HTTP problem."""
    assert isinstance(error, kind), repr(error)
    assert not isinstance(error, ProblemError)
    assert error.code == code
    return error


async def test_the_service_refuses_with_domain_errors(service: SheetService) -> None:
    sheet_id, editor = await _sheet(service)
    stranger = Auth(None, None)

    with pytest.raises(DomainError) as refused:
        await service.get(sheet_id, stranger)
    _refused(NotFound, "not-found", refused.value)

    with pytest.raises(DomainError) as refused:
        await service.add_round(sheet_id, stranger, ROUND_A)
    _refused(Unauthenticated, "unauthorized", refused.value)

    with pytest.raises(DomainError) as refused:
        await service.get(sheet_id, Auth("nrc_not_this_sheets_token", None))
    _refused(Unauthenticated, "unauthorized", refused.value)

    added = await service.add_round(sheet_id, editor, ROUND_A)
    assert (added.status, added.version) == (201, 1)

    with pytest.raises(DomainError) as refused:
        await service.replace_round(sheet_id, editor, 1, ROUND_B)
    error = _refused(PreconditionRequired, "if-match-required", refused.value)
    assert error.headers == {"ETag": '"1"'}

    stale = Conditions(parse_if_match('"0"'))
    with pytest.raises(DomainError) as refused:
        await service.replace_round(sheet_id, editor, 1, ROUND_B, stale)
    error = _refused(VersionMismatch, "version-mismatch", refused.value)
    assert error.headers == {"ETag": '"1"'}

    current = Conditions(parse_if_match('"1"'))
    with pytest.raises(DomainError) as refused:
        await service.replace_round(sheet_id, editor, 7, ROUND_B, current)
    _refused(NotFound, "not-found", refused.value)

    short = {"players": ROUND_A["players"][:2]}
    with pytest.raises(DomainError) as refused:
        await service.add_round(sheet_id, editor, short)
    error = _refused(Invalid, "bad-player-count", refused.value)
    problem = domain_problem(error)
    assert (problem.status, [e.field for e in problem.errors]) == (422, ["players"])
    assert problem.detail.startswith("players: the sheet has 3 players")

    # nothing of the refusals was written
    read = await service.get(sheet_id, editor)
    assert (read.version, len(read.rounds)) == (1, 1)


async def test_a_finished_sheet_is_a_conflict(service: SheetService) -> None:
    sheet_id, editor = await _sheet(service, planned=1)
    await service.add_round(sheet_id, editor, ROUND_C)
    with pytest.raises(DomainError) as refused:
        await service.add_round(sheet_id, editor, ROUND_B)
    error = _refused(Conflict, "sheet-finished", refused.value)
    assert status_of(error) == 409


async def test_deleted_sheets_are_not_found_to_their_token(service: SheetService) -> None:
    sheet_id, editor = await _sheet(service)
    gone = await service.delete(sheet_id, editor)
    assert (gone.status, gone.version) == (204, None)
    with pytest.raises(DomainError) as refused:
        await service.get(sheet_id, Auth(None, None))
    _refused(NotFound, "not-found", refused.value)
    with pytest.raises(DomainError) as refused:
        await service.get(sheet_id, editor)
    _refused(Unauthenticated, "unauthorized", refused.value)


def test_the_pure_rules_refuse_without_a_database() -> None:
    rules = make_rules("numwars-classic", {})
    with pytest.raises(DomainError) as refused:
        check_player([Seat(0, "a"), Seat(1, None)], 0, "b")
    _refused(Conflict, "player-bound", refused.value)
    with pytest.raises(DomainError) as refused:
        check_player([Seat(0, None), Seat(1, "b")], 0, "b")
    _refused(Conflict, "player-bound", refused.value)
    with pytest.raises(DomainError) as refused:
        check_player([Seat(0, None)], 3, "b")
    error = _refused(Invalid, "bad-request", refused.value)
    assert status_of(error) == 422
    standing = settle(rules, 3, 3, [])
    assert (standing.totals, standing.leader, standing.finished) == ([0, 0, 0], None, False)


def test_a_not_owner_is_forbidden() -> None:
    from api.sheets.service import NotOwner

    assert issubclass(NotOwner, Forbidden)
    assert (NotOwner("x").code, status_of(NotOwner("x"))) == ("not-owner", 403)


async def test_a_reused_key_is_a_domain_error(service: SheetService) -> None:
    sheet_id, editor = await _sheet(service)
    keyed = Conditions(None, "one-key-for-one-round")
    first = await service.add_round(sheet_id, editor, ROUND_A, keyed)
    again = await service.add_round(sheet_id, editor, ROUND_A, keyed)
    assert (again.replayed, again.version) == (True, first.version)
    with pytest.raises(DomainError) as refused:
        await service.add_round(sheet_id, editor, ROUND_B, keyed)
    _refused(Invalid, "idempotency-key-reused", refused.value)


def test_the_app_builds_its_services_once(client: Any) -> None:
    """The controllers' dependencies give every request the app's one service (built at the
    first request on the app's database), never a new one per request."""
    made = client.post("/v1/scoresheets", json=CLASSIC)
    assert made.status_code == 201, made.text
    first = client.app.state.sheets
    assert isinstance(first, SheetService)
    token = {"Authorization": f"Bearer {made.json()['token']}"}
    read = client.get(f"/v1/scoresheets/{made.json()['id']}", headers=token)
    assert read.status_code == 200, read.text
    again = client.post("/v1/scoresheets", json=CLASSIC)
    assert again.status_code == 201, again.text
    assert client.app.state.sheets is first
