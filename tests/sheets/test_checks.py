"""What a score-keeping screen needs of a round (issue 23): numwars' Bomb outcome held to the
piles (on the stateless endpoint and on sheets), numking's tricks held to the round's cards
(on sheets), `options` equal to the sheet's accepted by every ruleset's round body, and checks
added later applied to new input only (stored rounds still read, total and let other rounds
change)."""

from __future__ import annotations

import copy
import json
from typing import Any

from litestar.testing import TestClient

from tests.sheets.conftest import Accounts, sql, versioned
from tests.sheets.test_sheets import NUMWARS_ROUND, ROUND_A, bearer, check_sheet, create, king

Client = TestClient[Any]
NAMES = [{"name": n} for n in "ABCD"]


def moved_bomb(body: dict[str, Any], to: int) -> dict[str, Any]:
    """`body` (NUMWARS_ROUND: the Bomb in the demineur's pile, seat 0) with the Bomb moved to
    seat `to`'s pile (None: nobody's)."""
    moved = copy.deepcopy(body)
    for player in moved["players"]:
        player["captured"] = [c for c in player["captured"] if c != "bomb"]
    if to is not None:
        moved["players"][to]["captured"].append("bomb")
    return moved


def test_the_bomb_outcome_is_held_to_the_piles(client: Client) -> None:
    """The stateless score-round and a sheet round refuse alike an outcome that contradicts
    the piles, naming `bomb_outcome` and the pile (422 `bomb-mismatch`)."""
    sheet = create(client, {"ruleset": "numwars", "players": NAMES})
    url, auth = f"/v1/scoresheets/{sheet['id']}/rounds", bearer(sheet["token"])
    kept_at_complice = {**moved_bomb(NUMWARS_ROUND, 3), "bomb_outcome": "kept"}
    nobody = {**moved_bomb(NUMWARS_ROUND, None), "bomb_outcome": "numx-capture"}
    cases = [
        (kept_at_complice, ["bomb_outcome", "players[3].captured"]),
        (nobody, ["bomb_outcome", "players[2].captured"]),  # the agent's pile
        ({**NUMWARS_ROUND, "bomb_outcome": "civil-capture"}, ["bomb_outcome"]),  # no civil
    ]
    for body, fields in cases:
        for where in ("/v1/rulesets/numwars/score-round", url):
            answer = client.post(where, json=body, headers=auth)
            assert answer.status_code == 422, (where, answer.text)
            problem = answer.json()
            assert problem["code"] == "bomb-mismatch", problem
            assert [e["field"] for e in problem["errors"]] == fields, problem
    assert (
        "poseur's pile, not in player 3's (the complice)"
        in client.post(url, json=kept_at_complice, headers=auth).json()["errors"][1]["message"]
    )
    # nothing was written; the outcome the piles show is taken
    assert client.get(f"/v1/scoresheets/{sheet['id']}", headers=auth).json()["rounds"] == []
    kept = {**moved_bomb(NUMWARS_ROUND, 1), "bomb_outcome": "kept"}  # the poseur's pile
    assert client.post(url, json=kept, headers=auth).status_code == 201
    assert client.post(url, json=NUMWARS_ROUND, headers=auth).status_code == 201


def test_the_spec_documents_each_bomb_outcome(client: Client) -> None:
    """Each outcome's meaning, table sizes, bonuses and the Bomb's pile are in the schema of
    `bomb_outcome`, on the stateless request and the sheet round body."""
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    for name in ("NumWarsScoreRequest", "NumWarsRoundIn"):
        field = schemas[name]["properties"]["bomb_outcome"]
        text = field["description"]
        for outcome in field["enum"]:
            (line,) = [x for x in text.splitlines() if x.startswith(f"- `{outcome}`:")]
            assert "players" in line and "The Bomb goes" in line, line
        assert "`civil-capture`: the capturing Shadow (the highest one left) is a civil's. 5-8" in (
            text
        )
        assert "`kept`" in text and "back to the poseur's pile" in text and "bomb-mismatch" in text


def test_numking_tricks_add_up_to_at_most_the_rounds_cards(
    client: Client, accounts: Accounts
) -> None:
    """A sheet round is one real round of the whole table: its tricks add up to at most its
    cards (fewer: annulled tricks). The stateless score-round scores each line alone (the rule
    book's own example adds up to more), so it does not refuse."""
    owner = accounts.new()
    sheet = create(client, {"ruleset": "numking", "players": NAMES[:3]}, owner)
    url = f"/v1/scoresheets/{sheet['id']}/rounds"
    assert client.post(url, json=king((1, 1), (0, 0), (0, 0)), headers=owner.auth).status_code == (
        201
    )
    too_many = client.post(url, json=king((1, 1), (0, 0), (2, 2)), headers=owner.auth)
    assert too_many.status_code == 422, too_many.text
    problem = too_many.json()
    assert problem["code"] == "too-many-tricks"
    assert [e["field"] for e in problem["errors"]] == ["players[0].tricks", "players[2].tricks"]
    assert "3 tricks in all, more than the round's 2" in problem["detail"]
    french = client.post(
        url, json=king((1, 1), (0, 0), (2, 2)), headers={**owner.auth, "Accept-Language": "fr"}
    )
    assert french.headers["content-language"] == "fr"
    assert "3 plis en tout, plus que les 2 de la manche" in french.json()["detail"]
    assert all("plis" in e["message"] for e in french.json()["errors"])
    annulled = client.post(url, json=king((1, 0), (0, 0), (1, 1)), headers=owner.auth)
    assert annulled.status_code == 201, annulled.text  # one trick annulled
    stateless = {"cards": 2, "players": [{"bid": 2, "tricks": 2}, {"bid": 1, "tricks": 1}]}
    assert client.post("/v1/rulesets/numking/score-round", json=stateless).status_code == 200
    read = client.get(f"/v1/scoresheets/{sheet['id']}", headers=owner.auth).json()
    assert len(read["rounds"]) == 2


def test_every_round_body_takes_the_sheets_options(client: Client, accounts: Accounts) -> None:
    """`options` as `GET` of the sheet shows them (or some of them) is taken by every
    ruleset's round body, numwars' included; an option other than the sheet's is 422
    `options-mismatch` naming it; the stored input's options are the same either way."""
    owner = accounts.new()
    bodies = {
        "numwars": (NAMES, {"exchange": 2}, NUMWARS_ROUND, ("exchange", 0)),
        "numwars-classic": (
            NAMES[:3],
            {"alliance": False, "speed": True},
            ROUND_A,
            ("speed", False),
        ),
        "numking": (NAMES[:3], {"max_cards": 5}, king((1, 1), (0, 0), (0, 0)), ("max_cards", 4)),
        "numwin": (
            NAMES[:2],
            {"max_turns": 30},
            {
                "players": [
                    {"combination": ["red-3", "blue-3", "rainbow-5", "shadow-2", "green-1"]},
                    {"combination": ["green-4", "yellow-0", "rainbow-9", "red-6", "blue-6"]},
                ],
                "caller": 0,
            },
            ("max_turns", 0),
        ),
    }
    for ruleset, (players, options, body, (name, other)) in bodies.items():
        made = {"ruleset": ruleset, "players": players, "options": options, "planned_rounds": 5}
        sheet = create(client, made, owner)
        url = f"/v1/scoresheets/{sheet['id']}"
        own = sheet["options"]
        inputs = []
        for sent in (own, {name: own[name]}, {}):
            answer = client.post(
                f"{url}/rounds", json={**body, "options": sent}, headers=owner.auth
            )
            assert answer.status_code == 201, (ruleset, sent, answer.text)
            inputs.append(answer.json()["input"].get("options"))
        assert inputs[0] == inputs[1] == inputs[2], ruleset
        wrong = client.post(
            f"{url}/rounds", json={**body, "options": {**own, name: other}}, headers=owner.auth
        )
        assert wrong.status_code == 422, (ruleset, wrong.text)
        assert wrong.json()["code"] == "options-mismatch"
        assert [e["field"] for e in wrong.json()["errors"]] == [f"options.{name}"]
        check_sheet(client, client.get(url, headers=owner.auth).json())


def test_stored_rounds_that_break_a_later_check_still_read_and_total(
    client: Client, accounts: Accounts, pg_head: str
) -> None:
    """ "Checks added later apply to new input only": a round stored before a check (written
    here in the database as it was then) still reads and totals, and changing another round
    keeps it as stored; new input breaking the check is refused."""
    owner = accounts.new()
    sheet = create(client, {"ruleset": "numwars", "players": NAMES}, owner)
    url = f"/v1/scoresheets/{sheet['id']}"
    for _ in range(2):
        assert client.post(f"{url}/rounds", json=NUMWARS_ROUND, headers=owner.auth).status_code == (
            201
        )
    legacy = {**moved_bomb(NUMWARS_ROUND, None), "bomb_outcome": "stolen", "v": 1}
    sql(
        pg_head,
        "UPDATE scoresheet_rounds SET input = $1::jsonb WHERE sheet_id = $2 AND n = 2",
        json.dumps(legacy),
        sheet["id"],
    )
    read = client.get(url, headers=owner.auth).json()
    assert read["rounds"][1]["input"]["players"][0]["captured"] == ["red-5", "blue-5", "green-5"]
    totals = [2 * p["score"] for p in read["rounds"][0]["scores"]["players"]]
    assert read["totals"] == totals
    replaced = client.put(
        f"{url}/rounds/1",
        json={**moved_bomb(NUMWARS_ROUND, 1), "bomb_outcome": "kept"},
        headers=versioned(client, url, owner.auth),
    )
    assert replaced.status_code == 200, replaced.text
    after = client.get(url, headers=owner.auth).json()
    assert after["rounds"][1] == read["rounds"][1]  # kept as stored
    refused = client.put(
        f"{url}/rounds/2",
        json={k: v for k, v in legacy.items() if k != "v"},
        headers=versioned(client, url, owner.auth),
    )
    assert refused.status_code == 422 and refused.json()["code"] == "bomb-mismatch"
    # the same for numking: a stored round whose tricks add up to more than its cards
    king_sheet = create(client, {"ruleset": "numking", "players": NAMES[:3]}, owner)
    url = f"/v1/scoresheets/{king_sheet['id']}"
    for body in (king((1, 1), (0, 0), (0, 0)), king((1, 1), (1, 1), (0, 0))):
        assert client.post(f"{url}/rounds", json=body, headers=owner.auth).status_code == 201
    stored = client.get(url, headers=owner.auth).json()["rounds"][1]["input"]
    stored["players"][2]["tricks"] = 1  # 3 tricks in a 2-card round
    sql(
        pg_head,
        "UPDATE scoresheet_rounds SET input = $1::jsonb WHERE sheet_id = $2 AND n = 2",
        json.dumps({**stored, "v": 1}),
        king_sheet["id"],
    )
    # round 1 missed: round 2's streaks change, it is scored again and kept
    replaced = client.put(
        f"{url}/rounds/1",
        json=king((1, 0), (0, 0), (0, 0)),
        headers=versioned(client, url, owner.auth),
    )
    assert replaced.status_code == 200, replaced.text
    read = client.get(url, headers=owner.auth).json()
    assert read["rounds"][1]["input"]["players"][2]["tricks"] == 1
    check_sheet(client, read)
    # renumbered to round 1 (1 card), it would be a new round that no longer fits
    renumbered = client.delete(f"{url}/rounds/1", headers=versioned(client, url, owner.auth))
    assert renumbered.status_code == 422 and renumbered.json()["code"] == ("round-no-longer-scores")
