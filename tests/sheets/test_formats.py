"""A score sheet's stored formats (api/sheets/formats.py; issue 22, STYLE 16): the rounds and
keyed answers written before they carried a version (tests/fixtures/stored/v0-sheets.json)
still read, score and re-derive; a round input or an answer with a field a newer replica
added is read without error; a round body sent by a client still refuses unknown fields."""

from __future__ import annotations

import asyncio
import copy
import json
import uuid
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from api.http.tokens import new_id
from api.sheets.formats import decode_answer, decode_round_input
from engine import registry
from engine.core.texts import KINDS
from tests.sheets.conftest import Account, Accounts, versioned

FIXTURE = json.loads(
    (Path(__file__).parent.parent / "fixtures" / "stored" / "v0-sheets.json").read_text()
)
SHEETS = {s["ruleset"]: s for s in FIXTURE["sheets"]}


def _sql(url: str, statements: list[tuple[str, list[Any]]]) -> None:
    async def run() -> None:
        conn = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
        try:
            async with conn.transaction():
                for statement, args in statements:
                    await conn.executemany(statement, args)
        finally:
            await conn.close()

    asyncio.run(run())


def _insert(url: str, sheet: dict[str, Any], owner: Account) -> str:
    """The fixture's sheet rows as a new sheet of `owner`, the JSON columns as dumped."""
    sheet_id = new_id()
    _sql(
        url,
        [
            (
                "INSERT INTO scoresheets (id, ruleset, options, owner_id, planned_rounds, version,"
                " created_at, updated_at) VALUES ($1, $2, $3::jsonb, $4, $5, $6, now(), now())",
                [
                    (
                        sheet_id,
                        sheet["ruleset"],
                        json.dumps(sheet["options"]),
                        owner.id,
                        sheet["planned_rounds"],
                        sheet["version"],
                    )
                ],
            ),
            (
                "INSERT INTO scoresheet_players (sheet_id, position, name, confirmed)"
                " VALUES ($1, $2, $3, false)",
                [(sheet_id, p["position"], p["name"]) for p in sheet["players"]],
            ),
            (
                "INSERT INTO scoresheet_rounds (sheet_id, n, dealer, input, scores, created_at)"
                " VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, now())",
                [
                    (sheet_id, r["n"], r["dealer"], json.dumps(r["input"]), json.dumps(r["scores"]))
                    for r in sheet["rounds"]
                ],
            ),
        ],
    )
    return sheet_id


def _newer(sheet: dict[str, Any]) -> dict[str, Any]:
    """The sheet's rounds as a newer replica might write them: `v` 2 and added fields."""
    newer = copy.deepcopy(sheet)
    for r in newer["rounds"]:
        r["input"] = {
            **r["input"],
            "v": 2,
            "future": {"a": 1},
            "players": [{**p, "later": [1]} for p in r["input"]["players"]],
        }
    return newer


def test_v0_round_inputs_and_answers_decode() -> None:
    assert set(SHEETS) == {"numwars", "numwars-classic", "numking", "numwin"}
    for sheet in FIXTURE["sheets"]:
        body = registry.spec(sheet["ruleset"]).sheet.body
        for stored, newer in zip(sheet["rounds"], _newer(sheet)["rounds"], strict=True):
            assert decode_round_input(stored["input"], body) == stored["input"]
            assert decode_round_input(newer["input"], body) == stored["input"]
    assert len(FIXTURE["idempotency_keys"]) >= 2
    for row in FIXTURE["idempotency_keys"]:
        assert decode_answer(row["response"]) == row["response"]
        assert decode_answer({**row["response"], "v": 1}) == row["response"]


@pytest.mark.parametrize("newer", [False, True], ids=["v0-rows", "newer-rows"])
@pytest.mark.parametrize("ruleset", sorted(SHEETS))
def test_stored_sheets_read_score_and_rederive(
    client: Any, accounts: Accounts, pg_head: str, ruleset: str, newer: bool
) -> None:
    """Today's rows (and a newer replica's) read as they were written, take a new round and,
    for numking, re-derive the later rounds from the stored inputs when round 1 changes."""
    sheet = SHEETS[ruleset]
    owner = accounts.new()
    sheet_id = _insert(pg_head, _newer(sheet) if newer else sheet, owner)
    url = f"/v1/scoresheets/{sheet_id}"
    read = client.get(url, headers=owner.auth)
    assert read.status_code == 200, read.text
    got = read.json()
    assert got["rounds"] == sheet["read"]["rounds"]
    assert got["totals"] == sheet["read"]["totals"] and got["leader"] == sheet["read"]["leader"]
    refused = client.post(
        f"{url}/rounds", json={**sheet["rounds"][0]["input"], "future": 1}, headers=owner.auth
    )
    assert refused.status_code == 422 and refused.json()["code"] == "unknown-field"
    if ruleset == "numking":
        body = {
            "players": [{"bid": 0, "tricks": 1}, {"bid": 1, "tricks": 0}, {"bid": 0, "tricks": 0}]
        }
        replaced = client.put(
            f"{url}/rounds/1", json=body, headers=versioned(client, url, owner.auth)
        )
        assert replaced.status_code == 200, replaced.text
        again = client.get(url, headers=owner.auth).json()
        assert [p["streak"] for p in again["rounds"][1]["input"]["players"]] == [0, 0, 1]
        assert all("later" not in p for r in again["rounds"] for p in r["input"]["players"])
    else:
        added = client.post(f"{url}/rounds", json=sheet["rounds"][0]["input"], headers=owner.auth)
        assert added.status_code == 201, added.text
        scores = added.json()["scores"]
        lines = [line for p in scores["players"] for line in p["breakdown"]]
        # a new round's lines carry their kind and parameters (issue 23), which the stored
        # rows of the old format lack; the rest is the same, and the label is the kind's text
        assert all(line["label"] == KINDS[line["kind"]].render(**line["params"]) for line in lines)
        for line in lines:
            del line["kind"], line["params"]
        assert scores == sheet["rounds"][0]["scores"]


def test_a_keyed_answer_with_an_added_field_is_replayed(
    client: Any, accounts: Accounts, pg_head: str
) -> None:
    owner = accounts.new()
    sheet = SHEETS["numwars-classic"]
    key = {**owner.auth, "Idempotency-Key": f"k-{uuid.uuid4()}"}
    body = {"ruleset": "numwars-classic", "players": [{"name": n} for n in "ABC"]}
    first = client.post("/v1/scoresheets", json=body, headers=key)
    assert first.status_code == 201, first.text
    _sql(
        pg_head,
        [
            (
                "UPDATE scoresheet_idempotency_keys SET response = (response::jsonb || "
                "'{\"future\": 1, \"v\": 2}'::jsonb)::json WHERE response->>'id' = $1",
                [(first.json()["id"],)],
            )
        ],
    )
    again = client.post("/v1/scoresheets", json=body, headers=key)
    assert again.status_code == 201 and again.headers["idempotent-replayed"] == "true"
    assert {k: v for k, v in again.json().items() if k != "future"} == first.json()
    assert sheet["read"]["planned_rounds"] == first.json()["planned_rounds"]
