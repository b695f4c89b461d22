"""Score sheets' refusals name every invalid field at once, with codes (issue 23): a new
sheet, and a round, whose body is decoded by the sheet's ruleset in the service."""

from __future__ import annotations

from typing import Any

from litestar.testing import TestClient

SHEET = {"ruleset": "numwars-classic", "players": [{"name": "Ada"}, {"name": "Bo"}, {"name": "Cy"}]}


def test_a_sheet_creation_lists_every_bad_field(client: TestClient[Any]) -> None:
    body = {"ruleset": 7, "players": [{"name": "Ada", "account": "é"}], "planned_rounds": 0}
    r = client.post("/v1/scoresheets", json=body, headers={"Accept-Language": "fr"})
    assert r.status_code == 422, r.text
    assert [(e["field"], e["code"]) for e in r.json()["errors"]] == [
        ("ruleset", "type"),
        ("players[0].account", "min-length"),
        ("planned_rounds", "minimum"),
    ]


def test_a_round_lists_every_bad_field(client: TestClient[Any]) -> None:
    created = client.post("/v1/scoresheets", json=SHEET)
    assert created.status_code == 201, created.text
    sheet = created.json()
    url = f"/v1/scoresheets/{sheet['id']}/rounds"
    owner = {"Authorization": f"Bearer {sheet['token']}"}
    body = {
        "players": [{"captured": "red-1"}, {"captured": [], "pile": []}, {"captured": [3]}],
        "dealer": 9,
    }
    r = client.post(url, json=body, headers={**owner, "Accept-Language": "fr"})
    assert r.status_code == 422, r.text
    problem = r.json()
    assert [(e["field"], e["code"]) for e in problem["errors"]] == [
        ("players[0].captured", "type"),
        ("players[1].pile", "unknown-field"),
        ("players[2].captured[0]", "type"),
        ("dealer", "maximum"),
    ]
    assert problem["errors"][1]["message"] == "champ inconnu 'pile'"
    assert client.get(f"/v1/scoresheets/{sheet['id']}", headers=owner).json()["rounds"] == []


def test_a_round_decoded_late_names_the_keys_it_repeats(client: TestClient[Any]) -> None:
    """A round's body is parsed before the sheet is read and decoded by its ruleset after
    (order of checks): the keys it repeats are kept from the parse and named first when its
    decoding refuses it; a round that breaks nothing is read with the last values."""
    created = client.post("/v1/scoresheets", json=SHEET)
    assert created.status_code == 201, created.text
    sheet = created.json()
    url = f"/v1/scoresheets/{sheet['id']}/rounds"
    owner = {"Authorization": f"Bearer {sheet['token']}", "Content-Type": "application/json"}
    refused = client.post(
        url,
        content=b'{"players": [{"captured": [], "captured": 3}, {"captured": []}, {"captured": []}]}',
        headers={**owner, "Accept-Language": "fr"},
    )
    assert refused.status_code == 422, refused.text
    assert [(e["field"], e["code"]) for e in refused.json()["errors"]] == [
        ("players[0].captured", "duplicate-key"),
        ("players[0].captured", "type"),
    ]
    assert refused.json()["errors"][0]["message"].startswith("la clé 'captured' apparaît 2")
    taken = client.post(
        url,
        content=b'{"players": [{"captured": 3, "captured": ["red-5"]}, {"captured": []}, '
        b'{"captured": []}]}',
        headers=owner,
    )
    assert taken.status_code == 201, taken.text
    assert taken.json()["input"]["players"][0]["captured"] == ["red-5"]
