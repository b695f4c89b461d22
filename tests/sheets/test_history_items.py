"""`GET /v1/me/history` items carry what a list screen shows (issue 23): the ruleset's name, the
players' names, the totals, the account's own players and score, the winners, for sheets and
games alike, read for the whole page at once (the statements a page runs do not grow with its
length); and "play first, sign up afterwards": claiming an anonymous sheet with `player`
counts it in the claimer's history and stats."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from litestar.testing import TestClient
from sqlalchemy import event

from tests.sheets.conftest import Accounts
from tests.sheets.test_history_stats import insert_game
from tests.sheets.test_sheets import NUMWARS_ROUND, ROUND_A, ROUND_B, bearer, create

Client = TestClient[Any]


def history(client: Client, headers: dict[str, str], limit: int = 100) -> list[dict[str, Any]]:
    answer = client.get(f"/v1/me/history?limit={limit}", headers=headers)
    assert answer.status_code == 200, answer.text
    return list(answer.json()["items"])


def test_items_show_names_totals_score_and_winners(
    client: Client, accounts: Accounts, pg_head: str
) -> None:
    me = accounts.new()
    players = [{"name": "Bo"}, {"name": "Me", "account": me.pseudo}, {"name": "Cy"}]
    finished = create(
        client, {"ruleset": "numwars-classic", "players": players, "planned_rounds": 2}, me
    )
    url = f"/v1/scoresheets/{finished['id']}"
    for body in (ROUND_A, ROUND_B):
        assert client.post(f"{url}/rounds", json=body, headers=me.auth).status_code == 201
    sheet = client.get(url, headers=me.auth).json()
    assert sheet["finished"] is True
    four = [{"name": n} for n in ("Bo", "Cy", "Di", "Ed")]
    watching = create(client, {"ruleset": "numwars-classic", "players": four}, me)
    over = insert_game(pg_head, me, "over", True, datetime.now(UTC) + timedelta(days=1))
    active = insert_game(pg_head, me, "active", False, datetime.now(UTC) + timedelta(days=2))
    items = {i["id"]: i for i in history(client, me.auth)}
    assert items[finished["id"]] == {
        **items[finished["id"]],
        "ruleset": "numwars-classic",
        "ruleset_name": "Num Wars (classic edition)",
        "players": ["Bo", "Me", "Cy"],
        "seats": [1],
        "totals": sheet["totals"],
        "score": sheet["totals"][1],
        "winners": sheet["winners"],
        "won": 1 in sheet["winners"],
        "finished": True,
    }
    # a sheet the account owns without playing on it, before its first round
    assert items[watching["id"]] == {
        **items[watching["id"]],
        "players": ["Bo", "Cy", "Di", "Ed"],
        "seats": [],
        "totals": [0, 0, 0, 0],
        "score": None,
        "winners": [],
        "finished": False,
    }
    # games: by seat; totals and winners once over, null and empty before
    assert items[over] == {
        **items[over],
        "kind": "game",
        "ruleset_name": "Num Win",
        "players": ["n", "n"],
        "seats": [0],
        "totals": [7, 3],
        "score": 7,
        "winners": [0],
        "won": True,
    }
    assert items[active] == {
        **items[active],
        "seats": [0],
        "totals": None,
        "score": None,
        "winners": [],
        "finished": False,
    }


def test_a_page_runs_the_same_statements_whatever_its_length(
    client: Client, accounts: Accounts, pg_head: str
) -> None:
    """One page of many items reads them together: as many statements as a page of one."""
    me = accounts.new()
    players = [{"name": "Me", "account": me.pseudo}, {"name": "B"}, {"name": "C"}]
    for _ in range(24):
        sheet = create(client, {"ruleset": "numwars-classic", "players": players}, me)
        rounds = f"/v1/scoresheets/{sheet['id']}/rounds"
        assert client.post(rounds, json=ROUND_A, headers=me.auth).status_code == 201
    now = datetime.now(UTC)
    for k in range(12):
        insert_game(pg_head, me, "over" if k % 2 else "active", bool(k % 3), now - timedelta(k))
    statements: list[str] = []

    def count(*args: Any) -> None:
        if "scoresheet" in args[2] or "game" in args[2]:
            statements.append(args[2])

    engine = client.app.state.db.sync_engine
    history(client, me.auth, 1)  # the session looked up and cached
    counts: dict[int, tuple[int, int]] = {}
    event.listen(engine, "before_cursor_execute", count)
    try:
        for limit in (1, 26, 100):  # a sheet; 24 sheets and 2 games; all 36
            statements.clear()
            counts[limit] = len(history(client, me.auth, limit)), len(statements)
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert counts[1][0] == 1 and counts[26][0] == 26 and counts[100][0] == 36
    assert counts[26][1] == counts[100][1] <= 6, counts
    assert counts[1][1] < counts[26][1]  # a page of sheets only reads no games
    many = history(client, me.auth, 100)
    assert {i["kind"] for i in many} == {"scoresheet", "game"}
    assert all(len(i["players"]) in (2, 3) and i["ruleset_name"] for i in many)


def test_a_claim_with_player_counts_in_the_claimers_history_and_stats(
    client: Client, accounts: Accounts
) -> None:
    """Play first, sign up afterwards: an anonymous numwars sheet played to its end, then
    claimed with `player`: that player is the claimer's, and the sheet is in its history
    (with its score) and its stats (by role too)."""
    names = [{"name": n} for n in ("Ann", "Bob", "Cat", "Dan")]
    sheet = create(client, {"ruleset": "numwars", "players": names, "planned_rounds": 1})
    url = f"/v1/scoresheets/{sheet['id']}"
    played = client.post(f"{url}/rounds", json=NUMWARS_ROUND, headers=bearer(sheet["token"]))
    assert played.status_code == 201 and played.json()["finished"] is True
    me = accounts.new()
    assert history(client, me.auth) == []
    claim = {"token": sheet["token"], "player": 2}
    claimed = client.post(f"{url}/claim", json=claim, headers=me.auth)
    assert claimed.status_code == 200, claimed.text
    assert claimed.json()["players"][2] == {"name": "Cat", "account": me.pseudo, "confirmed": True}
    (item,) = history(client, me.auth)
    totals = played.json()["totals"]
    assert item["id"] == sheet["id"] and item["seats"] == [2] and item["score"] == totals[2]
    assert item["won"] is (2 in played.json()["winners"])
    stats = client.get("/v1/me/stats", headers=me.auth).json()["rulesets"]["numwars"]
    assert stats["played"] == 1 and stats["best_round_score"] == totals[2]
    assert stats["by_role"] == {"agent": {"rounds": 1, "average_score": float(totals[2])}}


def test_a_french_history_names_the_rulesets_in_french(client: Client, accounts: Accounts) -> None:
    """A French list screen reads « Num Wars (édition classique) », as `GET /v1/rulesets`
    names it, with `Content-Language: fr` and `Vary: Accept-Language`; English by default."""
    me = accounts.new()
    players = [{"name": "Me", "account": me.pseudo}, {"name": "Bo"}, {"name": "Cy"}]
    sheet = create(client, {"ruleset": "numwars-classic", "players": players}, me)
    french = client.get("/v1/me/history", headers={**me.auth, "Accept-Language": "fr"})
    assert french.status_code == 200, french.text
    assert french.headers["content-language"] == "fr"
    assert "accept-language" in french.headers["vary"].lower()
    names = {i["id"]: i["ruleset_name"] for i in french.json()["items"]}
    catalogue = client.get("/v1/rulesets", headers={"Accept-Language": "fr"}).json()
    french_name = {r["id"]: r["name"] for r in catalogue["rulesets"]}["numwars-classic"]
    assert names[sheet["id"]] == french_name == "Num Wars (édition classique)"
    english = client.get("/v1/me/history", headers=me.auth)
    assert english.headers["content-language"] == "en"
    assert {i["id"]: i["ruleset_name"] for i in english.json()["items"]}[sheet["id"]] == (
        "Num Wars (classic edition)"
    )
