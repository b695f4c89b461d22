"""Score sheets (api-contract.md, "Accounts, score sheets, history"): every ruleset's rounds
scored as the stateless score-round endpoint scores them, totals recomputed on corrections,
numking's derived cards and streaks, planned and tie-break rounds, and who may do what."""

from __future__ import annotations

from typing import Any

import pytest
from litestar.testing import TestClient

from tests.sheets.conftest import Account, Accounts, versioned

Client = TestClient[Any]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create(client: Client, body: dict[str, Any], owner: Account | None = None) -> dict[str, Any]:
    answer = client.post("/v1/scoresheets", json=body, headers=owner.auth if owner else {})
    assert answer.status_code == 201, answer.text
    assert answer.headers["location"] == f"/v1/scoresheets/{answer.json()['id']}"
    return dict(answer.json())


def engine_answer(client: Client, ruleset: str, data: dict[str, Any]) -> dict[str, Any]:
    answer = client.post(f"/v1/rulesets/{ruleset}/score-round", json=data)
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def check_sheet(client: Client, sheet: dict[str, Any]) -> None:
    """Every round's scores are the engine's answer to its input; totals add the regular
    rounds up."""
    totals = [0] * len(sheet["players"])
    for i, r in enumerate(sheet["rounds"]):
        assert r["n"] == i + 1
        assert r["scores"] == engine_answer(client, sheet["ruleset"], r["input"])
        if r["n"] <= sheet["planned_rounds"]:
            for p in r["scores"]["players"]:
                totals[p["seat"]] += p["score"]
    assert sheet["totals"] == totals


def classic_round(a: list[str], b: list[str], c: list[str]) -> dict[str, Any]:
    return {"players": [{"captured": a}, {"captured": b}, {"captured": c}]}


ROUND_A = classic_round(["rainbow-14", "shadow-14", "red-16"], ["red-2", "blue-2"], ["yellow-9"])
ROUND_B = classic_round(["red-3"], ["rainbow-10", "shadow-10", "red-8", "blue-8"], [])
ROUND_C = classic_round([], ["green-4"], ["red-12", "blue-12", "green-12", "yellow-12"])
NUMWARS_ROUND = {
    "players": [
        {"captured": ["red-5", "blue-5", "green-5", "bomb"], "role": "demineur"},
        {"captured": ["red-12"], "pairs": [["rainbow-7", "shadow-7"]], "role": "poseur"},
        {"captured": ["blue-1", "green-1"], "role": "agent"},
        {"captured": ["rainbow-4", "joker"], "role": "complice"},
    ],
    "bomb_outcome": "stolen",
}
NUMWIN_ROUND = {
    "players": [
        {"combination": ["red-3", "blue-3", "rainbow-5", "shadow-2", "green-1"]},
        {"combination": ["green-4", "yellow-0", "rainbow-9"], "locked": [["red-6", "blue-6"]]},
    ],
    "caller": 0,
}


def king(*bids: tuple[int, int], **extra: Any) -> dict[str, Any]:
    return {"players": [{"bid": b, "tricks": t} for b, t in bids], **extra}


# --- every ruleset ------------------------------------------------------------------------------


def test_a_classic_sheet_scores_each_round_as_the_engine(client: Client) -> None:
    sheet = create(client, {"ruleset": "numwars-classic", "players": [{"name": n} for n in "ABC"]})
    token = sheet["token"]
    assert sheet["planned_rounds"] == 3 and sheet["rounds"] == [] and sheet["leader"] is None
    assert sheet["owner"] is None and sheet["finished"] is False and sheet["winners"] == []
    for n, body in enumerate([ROUND_A, ROUND_B], start=1):
        answer = client.post(
            f"/v1/scoresheets/{sheet['id']}/rounds", json=body, headers=bearer(token)
        )
        assert answer.status_code == 201, answer.text
        got = answer.json()
        assert got["n"] == n and got["dealer"] == (n - 1) % 3
        assert got["scores"] == engine_answer(client, "numwars-classic", body)
    read = client.get(f"/v1/scoresheets/{sheet['id']}", headers=bearer(token)).json()
    check_sheet(client, read)
    assert read["leader"] == max(range(3), key=lambda i: (read["totals"][i], -i))
    assert "token" not in read


def test_every_ruleset_makes_a_sheet(client: Client, accounts: Accounts) -> None:
    owner = accounts.new()
    bodies = {
        "numwars": (["A", "B", "C", "D"], NUMWARS_ROUND),
        "numking": (["A", "B", "C"], king((1, 1), (0, 0), (0, 0))),
        "numwin": (["A", "B"], NUMWIN_ROUND),
        "numwars-classic": (["A", "B", "C"], ROUND_A),
    }
    for ruleset, (names, body) in bodies.items():
        sheet = create(client, {"ruleset": ruleset, "players": [{"name": n} for n in names]}, owner)
        assert "token" not in sheet and sheet["owner"] == owner.pseudo
        answer = client.post(f"/v1/scoresheets/{sheet['id']}/rounds", json=body, headers=owner.auth)
        assert answer.status_code == 201, (ruleset, answer.text)
        read = client.get(f"/v1/scoresheets/{sheet['id']}", headers=owner.auth).json()
        check_sheet(client, read)
    numwin = read if read["ruleset"] == "numwin" else None
    assert numwin is None or numwin["leader"] is not None


def test_numwin_leader_is_the_lowest_total(client: Client, accounts: Accounts) -> None:
    owner = accounts.new()
    sheet = create(client, {"ruleset": "numwin", "players": [{"name": "A"}, {"name": "B"}]}, owner)
    url = f"/v1/scoresheets/{sheet['id']}/rounds"
    answer = client.post(url, json=NUMWIN_ROUND, headers=owner.auth).json()
    totals = answer["totals"]
    assert answer["leader"] == min(range(2), key=lambda i: (totals[i], i))
    assert client.post(url, json=NUMWIN_ROUND, headers=owner.auth).status_code == 201
    done = client.get(f"/v1/scoresheets/{sheet['id']}", headers=owner.auth).json()
    assert done["finished"] is True
    low = min(done["totals"])
    assert done["winners"] == [i for i, t in enumerate(done["totals"]) if t == low]


def test_rounds_replaced_and_deleted_recompute_the_totals(client: Client) -> None:
    sheet = create(client, {"ruleset": "numwars-classic", "players": [{"name": n} for n in "ABC"]})
    url, auth = f"/v1/scoresheets/{sheet['id']}", bearer(sheet["token"])
    for body in (ROUND_A, ROUND_B):
        assert client.post(f"{url}/rounds", json=body, headers=auth).status_code == 201
    answer = client.put(
        f"{url}/rounds/1", json={**ROUND_C, "dealer": 2}, headers=versioned(client, url, auth)
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["dealer"] == 2
    read = client.get(url, headers=auth).json()
    check_sheet(client, read)
    assert [r["input"]["players"] for r in read["rounds"]] == [
        ROUND_C["players"],
        ROUND_B["players"],
    ]
    assert client.delete(f"{url}/rounds/1", headers=versioned(client, url, auth)).status_code == 204
    read = client.get(url, headers=auth).json()
    check_sheet(client, read)
    assert len(read["rounds"]) == 1 and read["rounds"][0]["dealer"] == 1  # kept, renumbered
    assert (
        client.delete(f"{url}/rounds/5", headers=versioned(client, url, auth)).json()["code"]
        == "not-found"
    )
    assert (
        client.put(
            f"{url}/rounds/2", json=ROUND_A, headers=versioned(client, url, auth)
        ).status_code
        == 404
    )


def test_round_refusals_are_4xx_problems(client: Client) -> None:
    sheet = create(client, {"ruleset": "numwars-classic", "players": [{"name": n} for n in "ABC"]})
    url, auth = f"/v1/scoresheets/{sheet['id']}/rounds", bearer(sheet["token"])
    cases: list[tuple[Any, str | None]] = [
        ({"players": [{"captured": []}]}, "bad-player-count"),
        ({**ROUND_A, "options": {"alliance": True}}, "options-mismatch"),
        ({**ROUND_A, "dealer": 3}, "bad-request"),
        ({**ROUND_A, "bomb_outcome": "kept"}, "unknown-field"),
        (classic_round(["red-3"], ["red-3"], ["nope"]), None),
        ([1, 2], "validation-error"),
    ]
    for body, code in cases:
        answer = client.post(url, json=body, headers=auth)
        assert answer.status_code == 422, (body, answer.text)
        assert code is None or answer.json()["code"] == code, answer.json()
    same = {**ROUND_A, "options": {"speed": False, "alliance": False, "tiebreak": True}}
    assert client.post(url, json=same, headers=auth).status_code == 201
    bad = client.post(url, content=b"{", headers={**auth, "Content-Type": "application/json"})
    assert bad.status_code == 400


def test_creation_refusals(client: Client, accounts: Accounts) -> None:
    owner = accounts.new()
    three = [{"name": n} for n in "ABC"]
    cases = [
        ({"ruleset": "numwars", "players": [{"name": "A"}, {"name": "B"}]}, "bad-player-count"),
        ({"ruleset": "numwars-classic", "players": [{"name": " "}] * 3}, "bad-name"),
        ({"ruleset": "numwars-classic", "players": [*three[:2], {"name": " b"}]}, "duplicate-name"),
        (
            {"ruleset": "numwars-classic", "players": three, "options": {"x": 1}},
            "bad-option",
        ),
        (
            {"ruleset": "numking", "players": three, "planned_rounds": 13},
            "bad-request",
        ),
        (
            {
                "ruleset": "numwars-classic",
                "players": [{"name": n, "account": "nobody-x"} for n in "ABC"],
            },
            "unknown-account",
        ),
        (
            {
                "ruleset": "numwars-classic",
                "players": [{"name": n, "account": owner.pseudo.upper()} for n in "ABC"],
            },
            "duplicate-account",
        ),
    ]
    for body, code in cases:
        answer = client.post("/v1/scoresheets", json=body, headers=owner.auth)
        assert answer.status_code == 422, (body, answer.text)
        assert answer.json()["code"] == code, answer.json()
    unknown = client.post(
        "/v1/scoresheets",
        json={
            "ruleset": "numwars-classic",
            "players": [{"name": n, "account": "nobody-x"} for n in "ABC"],
        },
    ).json()
    assert unknown["errors"][0]["field"] == "players[0].account"
    options = {"ruleset": "numwars-classic", "players": three, "options": {"x": 1, "speed": "a"}}
    french = {**owner.auth, "Accept-Language": "fr"}
    bad = client.post("/v1/scoresheets", json=options, headers=french).json()
    assert sorted(e["field"] for e in bad["errors"]) == ["options.speed", "options.x"], bad
    assert "Expected" not in bad["detail"] and "Object contains" not in bad["detail"], bad
    assert "nobody-x" in unknown["errors"][0]["message"]


# --- numking: cards and streaks derived --------------------------------------------------------


def test_numking_derives_cards_and_streaks(client: Client, accounts: Accounts) -> None:
    owner = accounts.new()
    sheet = create(client, {"ruleset": "numking", "players": [{"name": n} for n in "ABC"]}, owner)
    url = f"/v1/scoresheets/{sheet['id']}"
    rounds = [
        king((1, 1), (0, 0), (1, 0)),
        king((1, 1), (2, 1), (0, 0)),
        king((3, 3), (0, 0), (0, 0)),
    ]
    for body in rounds:
        assert client.post(f"{url}/rounds", json=body, headers=owner.auth).status_code == 201
    read = client.get(url, headers=owner.auth).json()
    check_sheet(client, read)
    assert [r["input"]["cards"] for r in read["rounds"]] == [1, 2, 3]
    streaks = [[p["streak"] for p in r["input"]["players"]] for r in read["rounds"]]
    after = [[p["streak"] for p in r["scores"]["players"]] for r in read["rounds"]]
    assert streaks[0] == [0, 0, 0] and streaks[1:] == after[:-1]
    # sent and different: refused; sent and equal: taken
    wrong_cards = client.post(
        f"{url}/rounds", json=king((0, 0), (0, 0), (0, 0), cards=3), headers=owner.auth
    )
    assert wrong_cards.status_code == 422 and wrong_cards.json()["code"] == "cards-mismatch"
    body = king((0, 0), (0, 0), (0, 0), cards=4)
    body["players"][0]["streak"] = after[-1][0] + 1
    wrong = client.post(f"{url}/rounds", json=body, headers=owner.auth)
    assert wrong.status_code == 422 and wrong.json()["code"] == "streak-mismatch"
    assert wrong.json()["errors"][0]["field"] == "players[0].streak"
    body["players"][0]["streak"] = after[-1][0]
    assert client.post(f"{url}/rounds", json=body, headers=owner.auth).status_code == 201
    # replacing round 1 re-derives every later streak
    answer = client.put(
        f"{url}/rounds/1",
        json=king((1, 0), (0, 1), (1, 0)),
        headers=versioned(client, url, owner.auth),
    )
    assert answer.status_code == 200, answer.text
    read = client.get(url, headers=owner.auth).json()
    check_sheet(client, read)
    for previous, current in zip(read["rounds"], read["rounds"][1:], strict=False):
        assert [p["streak"] for p in current["input"]["players"]] == [
            p["streak"] for p in previous["scores"]["players"]
        ]
    # deleting round 2 renumbers: round 3 (3 tricks) becomes round 2 (2 cards): refused
    refused = client.delete(f"{url}/rounds/2", headers=versioned(client, url, owner.auth))
    assert refused.status_code == 422, refused.text
    assert client.get(url, headers=owner.auth).json()["rounds"] == read["rounds"]
    assert (
        client.delete(f"{url}/rounds/4", headers=versioned(client, url, owner.auth)).status_code
        == 204
    )
    assert (
        client.delete(f"{url}/rounds/3", headers=versioned(client, url, owner.auth)).status_code
        == 204
    )
    fits = king((0, 0), (1, 1), (0, 0))  # fits round 1 too
    assert (
        client.put(
            f"{url}/rounds/2", json=fits, headers=versioned(client, url, owner.auth)
        ).status_code
        == 200
    )
    assert (
        client.delete(f"{url}/rounds/1", headers=versioned(client, url, owner.auth)).status_code
        == 204
    )
    read = client.get(url, headers=owner.auth).json()
    check_sheet(client, read)
    assert [r["input"]["cards"] for r in read["rounds"]] == [1]
    assert [p["streak"] for p in read["rounds"][0]["input"]["players"]] == [0, 0, 0]


# --- planned rounds, tie-breaks -----------------------------------------------------------------


def test_planned_rounds_then_sheet_finished(client: Client) -> None:
    sheet = create(
        client,
        {
            "ruleset": "numwars-classic",
            "players": [{"name": n} for n in "ABC"],
            "planned_rounds": 2,
            "options": {"tiebreak": False},
        },
    )
    url, auth = f"/v1/scoresheets/{sheet['id']}", bearer(sheet["token"])
    assert client.post(f"{url}/rounds", json=ROUND_A, headers=auth).json()["finished"] is False
    last = client.post(f"{url}/rounds", json=ROUND_B, headers=auth).json()
    assert last["finished"] is True and last["winners"]
    best = max(last["totals"])
    assert last["winners"] == [i for i, t in enumerate(last["totals"]) if t == best]
    over = client.post(f"{url}/rounds", json=ROUND_C, headers=auth)
    assert over.status_code == 409 and over.json()["code"] == "sheet-finished"
    more = client.patch(url, json={"planned_rounds": 3}, headers=auth)
    assert more.status_code == 200 and more.json()["finished"] is False
    assert client.post(f"{url}/rounds", json=ROUND_C, headers=auth).status_code == 201
    fewer = client.patch(url, json={"planned_rounds": 2}, headers=auth)
    assert fewer.status_code == 409 and fewer.json()["code"] == "sheet-finished"
    renamed = client.patch(
        url, json={"players": [{"name": "X"}, {"name": "Y"}, {"name": "Z"}]}, headers=auth
    )
    assert [p["name"] for p in renamed.json()["players"]] == ["X", "Y", "Z"]
    twice = client.patch(
        url,
        json={"players": [{"name": "X"}, {"name": "Y"}, {"name": "x"}]},
        headers={**auth, "Accept-Language": "fr"},
    )
    assert twice.status_code == 422 and twice.json()["code"] == "duplicate-name", twice.text
    (error,) = twice.json()["errors"]
    assert error["field"] == "players[2].name" and "s’appelle déjà" in error["message"]
    kept = client.get(url, headers=auth).json()
    assert [p["name"] for p in kept["players"]] == ["X", "Y", "Z"]  # nothing written


TIE = classic_round(["red-5"], ["blue-5"], [])
WIN_0 = classic_round(["red-12"], ["blue-3"], [])


def test_classic_tie_break_rounds(client: Client) -> None:
    sheet = create(
        client,
        {
            "ruleset": "numwars-classic",
            "players": [{"name": n} for n in "ABC"],
            "planned_rounds": 1,
        },
    )
    url, auth = f"/v1/scoresheets/{sheet['id']}", bearer(sheet["token"])
    first = client.post(f"{url}/rounds", json=TIE, headers=auth).json()
    assert first["totals"][0] == first["totals"][1] > first["totals"][2]
    assert first["finished"] is False  # the tie calls for a tie-break round
    second = client.post(f"{url}/rounds", json=TIE, headers=auth).json()
    assert second["finished"] is False and second["n"] == 2 and second["dealer"] == 1
    third = client.post(f"{url}/rounds", json=WIN_0, headers=auth).json()
    assert third["finished"] is True and third["winners"] == [0]
    assert third["totals"] == first["totals"]  # tie-break rounds stay out of the totals
    over = client.post(f"{url}/rounds", json=TIE, headers=auth)
    assert over.status_code == 409 and over.json()["code"] == "sheet-finished"
    # a correction that ends the match before the recorded tie-break rounds: refused
    ended = client.put(f"{url}/rounds/1", json=WIN_0, headers=versioned(client, url, auth))
    assert ended.status_code == 409 and ended.json()["code"] == "sheet-finished"
    read = client.get(url, headers=auth).json()
    check_sheet(client, read)
    assert read["winners"] == [0] and read["leader"] == 0


def test_a_numking_sheet_refuses_a_round_past_its_plan(client: Client, accounts: Accounts) -> None:
    owner = accounts.new()
    sheet = create(
        client,
        {"ruleset": "numking", "players": [{"name": n} for n in "ABC"], "planned_rounds": 1},
        owner,
    )
    url = f"/v1/scoresheets/{sheet['id']}/rounds"
    assert client.post(url, json=king((1, 1), (0, 0), (0, 0)), headers=owner.auth).json()[
        "finished"
    ]
    over = client.post(url, json=king((0, 0), (0, 0), (2, 2)), headers=owner.auth)
    assert over.status_code == 409 and over.json()["code"] == "sheet-finished"


# --- access ---------------------------------------------------------------------------------------


def test_community_sheets_need_a_session(client: Client) -> None:
    for ruleset in ("numking", "numwin"):
        answer = client.post(
            "/v1/scoresheets",
            json={"ruleset": ruleset, "players": [{"name": "A"}, {"name": "B"}, {"name": "C"}]},
        )
        assert answer.status_code == 401 and answer.json()["code"] == "community-locked"
        assert answer.headers["www-authenticate"] == "Bearer"
    wrong = client.post(
        "/v1/scoresheets",
        json={"ruleset": "numwars", "players": [{"name": n} for n in "ABCD"]},
        headers=bearer("not-a-session"),
    )
    assert wrong.status_code == 401 and wrong.json()["code"] == "unauthorized"


def test_sheet_token_edits_and_claim_moves_it_to_an_account(
    client: Client, accounts: Accounts
) -> None:
    sheet = create(client, {"ruleset": "numwars", "players": [{"name": n} for n in "ABCD"]})
    url, token = f"/v1/scoresheets/{sheet['id']}", sheet["token"]
    assert len(token) >= 32
    assert (
        client.post(f"{url}/rounds", json=NUMWARS_ROUND, headers=bearer(token)).status_code == 201
    )
    assert client.get(url).status_code == 404  # no token: nothing to see
    assert client.get(url, headers=bearer("x" * 43)).status_code == 401
    assert client.post(f"{url}/rounds", json=NUMWARS_ROUND).status_code == 401
    other = create(client, {"ruleset": "numwars", "players": [{"name": n} for n in "ABCD"]})
    assert client.get(url, headers=bearer(other["token"])).status_code == 401
    ada, bo = accounts.new(), accounts.new()
    assert client.post(f"{url}/claim", json={"token": token}).status_code == 401
    assert client.post(f"{url}/claim", json={"token": "wrong"}, headers=ada.auth).status_code == 404
    claimed = client.post(f"{url}/claim", json={"token": token}, headers=ada.auth)
    assert claimed.status_code == 200 and claimed.json()["owner"] == ada.pseudo
    # the token edits no more; the owner's session does; another account sees nothing
    assert client.get(url, headers=bearer(token)).status_code == 401
    assert client.delete(f"{url}/rounds/1", headers=bearer(token)).status_code == 401
    assert client.post(f"{url}/claim", json={"token": token}, headers=bo.auth).status_code == 404
    assert client.get(url, headers=bo.auth).json()["code"] == "not-found"
    assert client.patch(url, json={"planned_rounds": 5}, headers=bo.auth).status_code == 404
    assert client.get(url, headers=ada.auth).status_code == 200
    assert client.delete(url, headers=bo.auth).status_code == 404
    assert client.delete(url, headers=ada.auth).status_code == 204
    assert client.get(url, headers=ada.auth).status_code == 404


def test_named_accounts_read_and_confirm(client: Client, accounts: Accounts) -> None:
    owner, named, stranger = accounts.new(), accounts.new(), accounts.new()
    sheet = create(
        client,
        {
            "ruleset": "numwars-classic",
            "players": [
                {"name": "Me", "account": owner.pseudo},
                {"name": "Pal", "account": named.pseudo.lower()},
                {"name": "Cy"},
            ],
        },
        owner,
    )
    url = f"/v1/scoresheets/{sheet['id']}"
    assert [p["confirmed"] for p in sheet["players"]] == [True, False, False]
    assert [p["account"] for p in sheet["players"]] == [owner.pseudo, named.pseudo, None]
    assert client.get(url, headers=named.auth).status_code == 200
    assert client.get(url, headers=stranger.auth).status_code == 404
    refused = client.post(f"{url}/rounds", json=ROUND_A, headers=named.auth)
    assert refused.status_code == 403 and refused.json()["code"] == "not-owner"
    assert client.post(f"{url}/confirm", headers=stranger.auth).status_code == 404
    assert client.post(f"{url}/confirm").status_code == 401
    confirmed = client.post(f"{url}/confirm", headers=named.auth)
    assert confirmed.status_code == 200
    assert [p["confirmed"] for p in confirmed.json()["players"]] == [True, True, False]
    # a later change of the rounds needs a new confirmation (the owner's stays)
    assert client.post(f"{url}/rounds", json=ROUND_A, headers=owner.auth).status_code == 201
    read = client.get(url, headers=named.auth).json()
    assert [p["confirmed"] for p in read["players"]] == [True, False, False]


def test_malformed_ids_and_missing_sheets_are_404(client: Client, accounts: Accounts) -> None:
    owner = accounts.new()
    for sheet_id in ("nope", "0" * 32, "é" * 10):
        answer = client.get(f"/v1/scoresheets/{sheet_id}", headers=owner.auth)
        assert answer.status_code == 404 and answer.json()["code"] == "not-found"
        assert (
            client.post(f"/v1/scoresheets/{sheet_id}/confirm", headers=owner.auth).status_code
            == 404
        )


@pytest.mark.parametrize("ruleset", ["numwars", "numwars-classic", "numking", "numwin"])
def test_the_spec_documents_each_round_body(client: Client, ruleset: str) -> None:
    spec = client.get("/openapi.json").json()
    body = spec["paths"]["/v1/scoresheets/{sheet_id}/rounds"]["post"]["requestBody"]
    refs = [o["$ref"] for o in body["content"]["application/json"]["schema"]["anyOf"]]
    names = {"numwars": "NumWarsRoundIn", "numwars-classic": "ClassicRoundIn"}
    names |= {"numking": "NumKingRoundIn", "numwin": "NumWinRoundIn"}
    assert f"#/components/schemas/{names[ruleset]}" in refs


def test_a_sheet_answers_its_labels_in_the_callers_language(client: Client) -> None:
    """Stored rounds keep each line's kind and parameters (api-contract.md, "Sheets"): the
    same stored round reads in English and in French, each naming its language; a refusal
    too."""
    from engine.core.texts import KINDS

    sheet = create(client, {"ruleset": "numwars-classic", "players": [{"name": n} for n in "ABC"]})
    url, auth = f"/v1/scoresheets/{sheet['id']}", bearer(sheet["token"])
    body = {
        "players": [
            {"captured": ["rainbow-14", "shadow-14", "red-8", "blue-8"]},
            {"captured": []},
            {"captured": []},
        ]
    }
    added = client.post(f"{url}/rounds", json=body, headers={**auth, "accept-language": "fr"})
    assert added.status_code == 201, added.text
    assert added.headers["content-language"] == "fr"
    french_lines = added.json()["scores"]["players"][0]["breakdown"]
    english = client.get(url, headers=auth)
    french = client.get(url, headers={**auth, "accept-language": "fr"})
    assert english.headers["content-language"] == "en"
    assert french.headers["content-language"] == "fr"
    assert "accept-language" in french.headers["vary"].lower()
    en_lines = english.json()["rounds"][0]["scores"]["players"][0]["breakdown"]
    fr_lines = french.json()["rounds"][0]["scores"]["players"][0]["breakdown"]
    assert fr_lines == french_lines
    assert [line["kind"] for line in en_lines] == ["value-group", "trump-pair"]
    for en_line, fr_line in zip(en_lines, fr_lines, strict=True):
        kind = KINDS[en_line["kind"]]
        assert en_line["label"] == kind.en.format(**en_line["params"])
        assert fr_line["label"] == kind.fr.format(**fr_line["params"]) != en_line["label"]
    assert english.json()["totals"] == french.json()["totals"]
    refused = client.post(
        f"{url}/rounds",
        json={"players": [{"captured": ["red-99"]}, {"captured": []}, {"captured": []}]},
        headers={**auth, "accept-language": "fr"},
    )
    assert refused.status_code == 422 and refused.headers["content-language"] == "fr"
    assert "n’existe pas" in refused.json()["detail"], refused.text
