"""Open tables and rematches (issue 26; api-contract.md, "Turn clocks, open tables, rematch"
and its settled edge cases), on PostgreSQL through the app: open seats at creation, the
waiting game that refuses play, claims (the same token again, one seat per account), leaving,
starting (on the last claim, or with bots), cancelling, lapsing, the open tables' list, and
the rematch (seats rotated, accounts and bots kept, each seat's token once)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from litestar.testing import TestClient
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from api.app import create_app
from api.db import migrations
from api.http.tokens import token_hash
from api.ops.settings import Settings
from tests.accounts.conftest import auth, sign_up
from tests.games.driver import Table
from tests.games.host import host, host_pseudo

PASSWORD = "a long enough password"


def _open_game(
    games: TestClient[Any], ruleset: str = "numwars-classic", **extra: Any
) -> dict[str, Any]:
    body = {
        "ruleset": ruleset,
        "players": [{"name": "Ada"}, {"open": True}, {"open": True, "name": "Cy"}],
        **extra,
    }
    created = games.post("/v1/games", json=body, headers=host(games))
    assert created.status_code == 201, created.text
    game: dict[str, Any] = created.json()
    return game


def _player(games: TestClient[Any]) -> tuple[str, dict[str, str]]:
    account = sign_up(games)
    return account["pseudo"], auth(account["token"])


def _claim(games: TestClient[Any], game_id: str, seat: int, session: dict[str, str]) -> Any:
    return games.post(f"/v1/games/{game_id}/seats/{seat}/claim", headers=session)


def _sql(games: TestClient[Any], statement: str, **values: Any) -> list[Any]:
    url = games.app.state.db.url.render_as_string(hide_password=False)

    async def run() -> list[Any]:
        engine = create_async_engine(url)
        try:
            async with engine.begin() as conn:
                result = await conn.execute(text(statement), values)
                return list(result.all()) if result.returns_rows else []
        finally:
            await engine.dispose()

    return asyncio.run(run())


# -- creation -------------------------------------------------------------------------------


def test_open_seats_need_the_creators_session_and_no_seed(games: TestClient[Any]) -> None:
    body = {
        "ruleset": "numwars-classic",
        "players": [{"name": "Ada"}, {"open": True}, {"name": "Bo"}, {"open": True}],
    }
    anonymous = games.post("/v1/games", json=body)
    assert anonymous.status_code == 401, anonymous.text
    assert "session" in anonymous.json()["detail"]
    seeded = games.post("/v1/games", json={**body, "seed": 7}, headers=host(games))
    assert seeded.status_code == 422, seeded.text
    assert seeded.json()["errors"][0]["field"] == "seed"
    for bad, field in (
        ({"open": True, "bot": "basic"}, "players[1].bot"),
        ({"open": True, "account": host_pseudo(games)}, "players[1].account"),
        ({}, "players[1].name"),
    ):
        players = [{"name": "Ada"}, bad, {"name": "Bo"}]
        refused = games.post(
            "/v1/games",
            json={"ruleset": "numwars-classic", "players": players},
            headers=host(games),
        )
        assert refused.status_code == 422, refused.text
        assert refused.json()["errors"][0]["field"] == field


def test_a_waiting_game_deals_and_plays_nothing(games: TestClient[Any]) -> None:
    game = _open_game(games)
    assert game["status"] == "waiting"
    assert game["open_seats"] == [1, 2]
    assert "seeded_by_creator" not in game
    seats = game["seats"]
    assert seats[0]["token"] and "token" not in seats[1] and "token" not in seats[2]
    assert seats[1]["open"] is True and seats[2]["name"] == "Cy"
    ada = auth(seats[0]["token"])
    read = games.get(f"/v1/games/{game['id']}", headers=ada)
    assert read.status_code == 200, read.text
    shown = read.json()
    assert shown["status"] == "waiting" and shown["open_seats"] == [1, 2]
    assert shown["seat"] == 0
    assert shown["view"]["actors"] == [] and shown["view"].get("hand") is None
    assert [p.get("open", False) for p in shown["players"]] == [False, True, True]
    events = games.get(f"/v1/games/{game['id']}/events", headers=ada).json()
    assert events["events"] == [] and events["status"] == "waiting"
    acted = games.post(f"/v1/games/{game['id']}/actions", json={"type": "draw"}, headers=ada)
    assert acted.status_code == 409, acted.text
    assert acted.json()["code"] == "game-waiting" and acted.json()["reason"] == "game-waiting"
    hinted = games.post(f"/v1/games/{game['id']}/hint", headers=ada)
    assert hinted.status_code == 409 and hinted.json()["code"] == "game-waiting"
    exported = games.get(f"/v1/games/{game['id']}/export")
    assert exported.status_code == 409 and exported.json()["code"] == "game-active"


def test_a_creators_seed_is_said(games: TestClient[Any]) -> None:
    body = {"ruleset": "numwars-classic", "players": [{"name": n} for n in "ABC"], "seed": 5}
    created = games.post("/v1/games", json=body, headers=host(games)).json()
    assert created["seeded_by_creator"] is True
    assert games.get(f"/v1/games/{created['id']}").json()["seeded_by_creator"] is True


# -- claims, leaving, starting ----------------------------------------------------------------


def test_claims_start_the_game_on_the_last_seat(games: TestClient[Any]) -> None:
    game = _open_game(games)
    gid = game["id"]
    bo_pseudo, bo = _player(games)
    first = _claim(games, gid, 1, bo)
    assert first.status_code == 201, first.text
    claimed = first.json()
    assert claimed["seat"] == 1 and claimed["status"] == "waiting"
    assert claimed["token"].startswith("nrg_")
    again = _claim(games, gid, 1, bo)
    assert again.status_code == 200, again.text
    assert again.json()["token"] == claimed["token"]  # the same session: the same token
    other_seat = _claim(games, gid, 2, bo)
    assert other_seat.status_code == 409 and other_seat.json()["code"] == "already-seated"
    _, cy = _player(games)
    taken = _claim(games, gid, 1, cy)
    assert taken.status_code == 409 and taken.json()["code"] == "seat-taken"
    read = games.get(f"/v1/games/{gid}").json()
    assert read["players"][1]["name"] == bo_pseudo and read["open_seats"] == [2]
    last = _claim(games, gid, 2, cy)
    assert last.status_code == 201, last.text
    assert last.json()["status"] == "active"
    started = games.get(f"/v1/games/{gid}", headers=auth(last.json()["token"])).json()
    assert started["status"] == "active" and "open_seats" not in started
    assert started["players"][2]["name"] == "Cy"  # opened with a name: kept
    assert started["view"]["hand"] and started["view"]["actors"]
    kinds = [e["kind"] for e in games.get(f"/v1/games/{gid}/events").json()["events"]]
    assert kinds[0] == "round-start"
    by_session = games.get(f"/v1/games/{gid}", headers=bo).json()  # the claim joined the seat
    assert by_session["seat"] == 1 and by_session["view"]["hand"]
    late = _claim(games, gid, 1, bo)  # still its seat: 200, its token
    assert late.status_code == 200 and late.json()["token"] == claimed["token"]
    leave = games.post(f"/v1/games/{gid}/seats/1/leave", headers=bo)
    assert leave.status_code == 409 and leave.json()["code"] == "game-started"


def test_another_session_gets_a_fresh_token_for_the_same_seat(games: TestClient[Any]) -> None:
    gid = _open_game(games)["id"]
    account = sign_up(games)
    first = _claim(games, gid, 1, auth(account["token"])).json()
    login = {"login": account["pseudo"], "password": PASSWORD}
    second_session = games.post("/v1/sessions", json=login)
    assert second_session.status_code == 201, second_session.text
    again = _claim(games, gid, 1, auth(second_session.json()["token"]))
    assert again.status_code == 200, again.text
    assert again.json()["seat"] == 1 and again.json()["token"] != first["token"]
    assert games.get(f"/v1/games/{gid}", headers=auth(first["token"])).status_code == 401
    assert games.get(f"/v1/games/{gid}", headers=auth(again.json()["token"])).json()["seat"] == 1


def test_claiming_needs_a_session(games: TestClient[Any]) -> None:
    game = _open_game(games)
    anonymous = games.post(f"/v1/games/{game['id']}/seats/1/claim")
    assert anonymous.status_code == 401
    with_seat_token = _claim(games, game["id"], 1, auth(game["seats"][0]["token"]))
    assert with_seat_token.status_code == 401
    missing = _claim(games, game["id"], 5, _player(games)[1])
    assert missing.status_code == 404


def test_leaving_reopens_the_seat_and_revokes_its_token(games: TestClient[Any]) -> None:
    gid = _open_game(games)["id"]
    _, bo = _player(games)
    token = _claim(games, gid, 2, bo).json()["token"]
    _, cy = _player(games)
    not_mine = games.post(f"/v1/games/{gid}/seats/2/leave", headers=cy)
    assert not_mine.status_code == 403 and not_mine.json()["code"] == "not-your-seat"
    left = games.post(f"/v1/games/{gid}/seats/2/leave", headers=bo)
    assert left.status_code == 200, left.text
    assert left.json() == {"seat": 2, "open": True, "open_seats": [1, 2]}
    assert games.get(f"/v1/games/{gid}", headers=auth(token)).status_code == 401
    read = games.get(f"/v1/games/{gid}").json()
    assert read["open_seats"] == [1, 2] and read["players"][2]["name"] == "Cy"
    assert games.get(f"/v1/games/{gid}", headers=bo).status_code == 401  # no seat of its own
    assert _claim(games, gid, 2, cy).status_code == 201  # open again: someone else takes it


def test_the_creator_starts_with_bots(games: TestClient[Any]) -> None:
    game = _open_game(games)
    gid = game["id"]
    _, bo = _player(games)
    assert _claim(games, gid, 1, bo).status_code == 201
    not_creator = games.post(f"/v1/games/{gid}/start", headers=bo)
    assert not_creator.status_code == 403 and not_creator.json()["code"] == "not-the-creator"
    seat_token = games.post(f"/v1/games/{gid}/start", headers=auth(game["seats"][0]["token"]))
    assert seat_token.status_code == 401
    bare = games.post(f"/v1/games/{gid}/start", headers=host(games))
    assert bare.status_code == 409 and bare.json()["code"] == "seats-open"
    assert "2" in bare.json()["detail"]
    bad = games.post(
        f"/v1/games/{gid}/start", json={"fill_with_bots": "genius"}, headers=host(games)
    )
    assert bad.status_code == 422, bad.text
    started = games.post(
        f"/v1/games/{gid}/start", json={"fill_with_bots": "basic"}, headers=host(games)
    )
    assert started.status_code == 200, started.text
    shown = started.json()
    assert shown["status"] == "active"
    assert shown["players"][2] == {"seat": 2, "name": "Cy", "bot": "basic"}
    again = games.post(f"/v1/games/{gid}/start", headers=host(games))
    assert again.status_code == 409 and again.json()["code"] == "game-started"
    exchange = games.get(f"/v1/games/{gid}", headers=auth(game["seats"][0]["token"])).json()
    assert exchange["view"]["legal_actions"]  # the person may act: the game runs


def test_an_empty_start_body_starts_a_full_table(games: TestClient[Any]) -> None:
    """All seats held (a player left after the others claimed): `start` with no body."""
    body = {"ruleset": "numwars-classic", "players": [{"name": "A"}, {"name": "B"}, {"open": True}]}
    game = games.post("/v1/games", json=body, headers=host(games)).json()
    _, bo = _player(games)
    assert _claim(games, game["id"], 2, bo).json()["status"] == "active"
    started = games.post(f"/v1/games/{game['id']}/start", headers=host(games))
    assert started.status_code == 409 and started.json()["code"] == "game-started"


def test_only_the_creator_cancels_a_waiting_game(games: TestClient[Any]) -> None:
    game = _open_game(games)
    gid = game["id"]
    by_seat = games.post(f"/v1/games/{gid}/abandon", headers=auth(game["seats"][0]["token"]))
    assert by_seat.status_code == 403 and by_seat.json()["code"] == "not-the-creator"
    cancelled = games.post(f"/v1/games/{gid}/abandon", headers=host(games))
    assert cancelled.status_code == 200, cancelled.text
    assert games.get(f"/v1/games/{gid}").json()["status"] == "abandoned"
    never_dealt = games.get(f"/v1/games/{gid}", headers=auth(game["seats"][0]["token"])).json()
    assert never_dealt["seat"] == 0 and never_dealt["view"].get("hand") is None
    late = _claim(games, gid, 1, _player(games)[1])
    assert late.status_code == 409 and late.json()["code"] == "game-over"


def test_leaving_revokes_the_seats_stream_tickets(games: TestClient[Any]) -> None:
    """A ticket taken for a seat before its holder left would show the seat's next holder's
    hand once the game starts: leaving deletes the seat's tickets (the other seats' stay)."""
    game = _open_game(games)
    gid = game["id"]
    _, bo = _player(games)
    assert _claim(games, gid, 1, bo).status_code == 201
    tickets = games.post(f"/v1/games/{gid}/stream-tickets", headers=bo)
    assert tickets.status_code == 201, tickets.text
    ticket = tickets.json()["ticket"]
    ada = games.post(f"/v1/games/{gid}/stream-tickets", headers=auth(game["seats"][0]["token"]))
    assert games.post(f"/v1/games/{gid}/seats/1/leave", headers=bo).status_code == 200
    kept = _sql(games, "SELECT seat FROM stream_tickets WHERE game_id = :g", g=gid)
    assert [row.seat for row in kept] == [0]  # Ada's, not Bo's
    assert ada.status_code == 201
    refused = games.get(f"/v1/games/{gid}/stream", params={"ticket": ticket})
    assert refused.status_code == 401 and refused.json()["code"] == "unauthorized"


def test_a_head_request_leaves_the_ticket_for_the_stream(games: TestClient[Any]) -> None:
    """A link's prefetch (HEAD) of a stream with a ticket answers as the stream would and
    leaves the ticket unused; the stream then uses it up."""
    game = _open_game(games, players=[{"name": "Ada"}, {"name": "Bo"}, {"name": "Cy"}])
    gid, token = game["id"], game["seats"][0]["token"]
    assert games.post(f"/v1/games/{gid}/abandon", headers=auth(token)).status_code == 200
    ticket = games.post(f"/v1/games/{gid}/stream-tickets", headers=auth(token)).json()["ticket"]
    path = f"/v1/games/{gid}/stream"
    past = {"ticket": ticket, "after": 10**6}  # every event sent: 204, the stream ends
    assert games.head(path, params=past).status_code == 204
    assert games.get(path, params=past).status_code == 204
    used = games.get(path, params=past)
    assert used.status_code == 401, used.text


# -- the open tables' list ----------------------------------------------------------------------


def _all_open(games: TestClient[Any], ruleset: str, limit: int) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    cursor = None
    for _ in range(1000):
        params: dict[str, Any] = {"status": "open", "ruleset": ruleset, "limit": limit}
        if cursor is not None:
            params["cursor"] = cursor
        page = games.get("/v1/games", params=params)
        assert page.status_code == 200, page.text
        body = page.json()
        assert len(body["items"]) <= limit
        items += body["items"]
        cursor = body["next_cursor"]
        if cursor is None:
            return items
    raise AssertionError("no last page")


def test_the_open_tables_list_pages_newest_first_without_secrets(games: TestClient[Any]) -> None:
    mine = [_open_game(games, "numwin") for _ in range(3)]
    full = games.post(
        "/v1/games",
        json={"ruleset": "numwin", "players": [{"name": n} for n in "AB"]},
        headers=host(games),
    ).json()
    other = _open_game(games, "numwars-classic")
    _, bo = _player(games)
    claimed = _claim(games, mine[1]["id"], 1, bo).json()
    items = _all_open(games, "numwin", limit=2)
    ids = [i["id"] for i in items]
    assert len(ids) == len(set(ids))  # a page never repeats a game
    assert all(i["ruleset"] == "numwin" for i in items)
    assert full["id"] not in ids and other["id"] not in ids
    positions = [ids.index(g["id"]) for g in mine]
    assert positions == sorted(positions, reverse=True)  # newest first
    stamps = [i["created_at"] for i in items]
    assert stamps == sorted(stamps, reverse=True)
    listed = items[ids.index(mine[1]["id"])]
    assert listed["open_seats"] == [2]
    assert set(listed) == {"id", "ruleset", "options", "players", "open_seats", "created_at"}
    text_body = str(items)
    seeds = _sql(
        games,
        "SELECT seed, salt FROM games WHERE id = ANY(:ids)",
        ids=[g["id"] for g in mine],
    )
    for secret in [
        claimed["token"],
        *(s["token"] for g in mine for s in g["seats"] if "token" in s),
        *(str(s.seed) for s in seeds),
        *(s.salt for s in seeds),
        "hand",
        "token",
        "seed",
        "account",
    ]:
        assert secret not in text_body
    assert other["id"] in [i["id"] for i in _all_open(games, "numwars-classic", limit=100)]


def test_a_waiting_game_lapses(games: TestClient[Any]) -> None:
    game = _open_game(games, "numking")
    gid = game["id"]
    assert gid in [i["id"] for i in _all_open(games, "numking", limit=100)]
    _sql(games, "UPDATE games SET created_at = now() - interval '25 hours' WHERE id = :id", id=gid)
    assert gid not in [i["id"] for i in _all_open(games, "numking", limit=100)]
    claim = _claim(games, gid, 1, _player(games)[1])
    assert claim.status_code == 409 and claim.json()["code"] == "game-over"
    assert games.get(f"/v1/games/{gid}").json()["status"] == "abandoned"


def test_the_list_refuses_what_it_does_not_list(games: TestClient[Any]) -> None:
    for params, code in (
        ({"status": "active"}, "validation-error"),
        ({"status": "open", "ruleset": "chess"}, "enum"),
        ({"status": "open", "limit": 0}, "validation-error"),
        ({"status": "open", "cursor": "nope"}, "bad-cursor"),
    ):
        refused = games.get("/v1/games", params=params)
        assert refused.status_code == 422, (params, refused.text)
        problem = refused.json()
        codes = {problem["code"], *(e.get("code") for e in problem.get("errors", []))}
        assert code in codes, refused.text


# -- rematch ----------------------------------------------------------------------------------


def _finished(games: TestClient[Any], seed: int | None = None) -> dict[str, Any]:
    """Ada (bound to the host's account, joined), a basic bot and Cy, abandoned."""
    players = [
        {"name": "Ada", "account": host_pseudo(games)},
        {"name": "Bot", "bot": "basic"},
        {"name": "Cy"},
    ]
    body: dict[str, Any] = {"ruleset": "numwars-classic", "players": players, "options": {}}
    if seed is not None:
        body["seed"] = seed
    game: dict[str, Any] = games.post("/v1/games", json=body, headers=host(games)).json()
    joined = games.post(f"/v1/games/{game['id']}/seats/0/join", headers=host(games))
    assert joined.status_code == 200, joined.text
    return game


def test_a_rematch_rotates_seats_and_keeps_accounts_and_bots(games: TestClient[Any]) -> None:
    old = _finished(games, seed=11)
    gid = old["id"]
    ada, cy = auth(old["seats"][0]["token"]), auth(old["seats"][2]["token"])
    too_soon = games.post(f"/v1/games/{gid}/rematch", headers=ada)
    assert too_soon.status_code == 409 and too_soon.json()["code"] == "game-active"
    assert games.post(f"/v1/games/{gid}/rematch").status_code == 401
    assert games.post(f"/v1/games/{gid}/abandon", headers=ada).status_code == 200
    made = games.post(f"/v1/games/{gid}/rematch", headers=ada)
    assert made.status_code == 201, made.text
    new = made.json()
    assert made.headers["location"] == f"/v1/games/{new['id']}"
    assert new["id"] != gid and new["status"] == "active"
    assert "seeded_by_creator" not in new  # a fresh seed, never the creator's
    assert [(s["seat"], s["name"], s.get("bot")) for s in new["seats"]] == [
        (0, "Bot", "basic"),
        (1, "Cy", None),
        (2, "Ada", None),
    ]
    assert new["seats"][2]["account"] == host_pseudo(games)
    assert [("token" in s) for s in new["seats"]] == [False, False, True]
    assert new["options"] == old["options"]
    assert games.get(f"/v1/games/{gid}").json()["rematch"] == new["id"]
    fresh = games.get(f"/v1/games/{new['id']}").json()
    assert fresh["seed_commitment"] != old["seed_commitment"]
    # the account stays bound: its session acts for its new seat
    assert games.get(f"/v1/games/{new['id']}", headers=host(games)).json()["seat"] == 2
    ada_token = new["seats"][2]["token"]
    assert games.get(f"/v1/games/{new['id']}", headers=auth(ada_token)).json()["seat"] == 2
    again = games.post(f"/v1/games/{gid}/rematch", headers=ada)
    assert again.status_code == 200 and again.json()["id"] == new["id"]
    assert all("token" not in s for s in again.json()["seats"])
    by_session = games.post(f"/v1/games/{gid}/rematch", headers=host(games))
    assert by_session.status_code == 200 and all(
        "token" not in s for s in by_session.json()["seats"]
    )
    cy_first = games.post(f"/v1/games/{gid}/rematch", headers=cy)
    assert cy_first.status_code == 200, cy_first.text
    tokens = [s.get("token") for s in cy_first.json()["seats"]]
    assert tokens[0] is None and tokens[2] is None and tokens[1]
    assert games.get(f"/v1/games/{new['id']}", headers=auth(tokens[1])).json()["seat"] == 1
    cy_again = games.post(f"/v1/games/{gid}/rematch", headers=cy)
    assert all("token" not in s for s in cy_again.json()["seats"])
    stranger = games.post(f"/v1/games/{gid}/rematch", headers=_player(games)[1])
    assert stranger.status_code == 401


def test_a_rematch_keeps_the_creation_options(games: TestClient[Any]) -> None:
    body = {
        "ruleset": "numwars-classic",
        "players": [{"name": n} for n in "ABC"],
        "options": {"alliance": False, "hints": False},
    }
    old = games.post("/v1/games", json=body, headers=host(games)).json()
    a = auth(old["seats"][0]["token"])
    assert games.post(f"/v1/games/{old['id']}/abandon", headers=a).status_code == 200
    new = games.post(f"/v1/games/{old['id']}/rematch", headers=a).json()
    assert new["options"] == old["options"]
    seat = next(s for s in new["seats"] if "token" in s)
    hint = games.post(f"/v1/games/{new['id']}/hint", headers=auth(seat["token"]))
    assert hint.status_code == 409 and hint.json()["code"] == "hints-off"


@pytest.mark.parametrize("n", [8])
def test_concurrent_rematches_make_one_game(games: TestClient[Any], n: int) -> None:
    """Many calls at once (threads of the test client share the app): one game, one 201."""
    from concurrent.futures import ThreadPoolExecutor

    old = _finished(games)
    ada = auth(old["seats"][0]["token"])
    assert games.post(f"/v1/games/{old['id']}/abandon", headers=ada).status_code == 200
    with ThreadPoolExecutor(n) as pool:
        answers = list(
            pool.map(
                lambda i: games.post(
                    f"/v1/games/{old['id']}/rematch",
                    headers=auth(old["seats"][2 * (i % 2)]["token"]),
                ),
                range(n),
            )
        )
    assert sorted(a.status_code for a in answers) == [200] * (n - 1) + [201]
    assert len({a.json()["id"] for a in answers}) == 1
    tokens = [s["token"] for a in answers for s in a.json()["seats"] if "token" in s]
    assert len(tokens) == len(set(tokens)) == 2  # Ada's once, Cy's once


def test_a_rematch_after_the_game_is_over(games: TestClient[Any]) -> None:
    """The ordinary case: a match played to its end, then the rematch by a seat's token."""
    table = Table(games, "numwars-classic", 3, seed=31)
    table.play_out(random.Random(31), every=10_000)
    assert table.get("").json()["status"] == "over"
    made = games.post(f"/v1/games/{table.id}/rematch", headers=table.auth(1))
    assert made.status_code == 201, made.text
    new = made.json()
    assert [s["name"] for s in new["seats"]] == [
        table.created["seats"][i]["name"] for i in (1, 2, 0)
    ]
    assert [("token" in s) for s in new["seats"]] == [True, False, False]  # old seat 1 → 0
    assert table.get("").json()["rematch"] == new["id"]
    assert "seeded_by_creator" not in new  # the first game's seed was the creator's


def test_open_tables_on_the_embedded_sqlite(sqlite_url: str) -> None:
    """The default database (one process): create, list, claim to the start, a lapsed table
    abandoned on access (the read lets its connection go before the write), a rematch."""
    from api.app import create_app
    from api.db import migrations
    from api.ops.settings import Settings
    from tests.pg import FAST_HASHES

    migrations.upgrade(sqlite_url)
    app = create_app(Settings(database_url=sqlite_url, check_db_on_start=True, **FAST_HASHES))
    with TestClient(app) as client:
        game = _open_game(client)
        gid = game["id"]
        listed = client.get("/v1/games", params={"status": "open"}).json()
        assert [i["id"] for i in listed["items"]] == [gid]
        _, bo = _player(client)
        _, cy = _player(client)
        assert _claim(client, gid, 1, bo).status_code == 201
        assert _claim(client, gid, 2, cy).json()["status"] == "active"
        assert client.get("/v1/games").json()["items"] == []
        ada = auth(game["seats"][0]["token"])
        assert client.post(f"/v1/games/{gid}/abandon", headers=ada).status_code == 200
        rematch = client.post(f"/v1/games/{gid}/rematch", headers=bo)
        assert rematch.status_code == 201, rematch.text
        assert [("token" in s) for s in rematch.json()["seats"]] == [True, False, False]
        lapsing = _open_game(client)
        app.state.games.waiting_hours = 1e-9
        read = client.get(f"/v1/games/{lapsing['id']}")
        assert read.status_code == 200 and read.json()["status"] == "abandoned"


def test_bots_wait_for_the_start_then_play(games: TestClient[Any]) -> None:
    """A bot seated at creation plays nothing while the table waits, and its first move once
    the last open seat is claimed."""
    import time

    players = [{"name": "Ada"}, {"name": "Bot", "bot": "basic"}, {"open": True}]
    body = {"ruleset": "numwars-classic", "players": players}
    game = games.post("/v1/games", json=body, headers=host(games)).json()
    gid = game["id"]
    time.sleep(0.3)
    assert games.get(f"/v1/games/{gid}/events").json()["events"] == []
    assert games.get(f"/v1/games/{gid}").json()["version"] == 0
    assert _claim(games, gid, 2, _player(games)[1]).json()["status"] == "active"
    deadline = time.monotonic() + 60
    while True:
        read = games.get(f"/v1/games/{gid}").json()
        if read["version"] > 0:  # the bot's exchange (its events are its own)
            break
        assert time.monotonic() < deadline, read
        time.sleep(0.05)


def test_a_table_that_never_started_has_no_rematch(games: TestClient[Any]) -> None:
    """A claimer could otherwise undo the creator's cancel (or a lapse) with a rematch: the
    table came back open (an attack found it)."""
    game = _open_game(games)
    gid = game["id"]
    _, bo = _player(games)
    assert _claim(games, gid, 1, bo).status_code == 201
    assert games.post(f"/v1/games/{gid}/abandon", headers=host(games)).status_code == 200
    for credential in (bo, auth(game["seats"][0]["token"])):
        refused = games.post(f"/v1/games/{gid}/rematch", headers=credential)
        assert refused.status_code == 409, refused.text
        assert refused.json()["code"] == "never-started"
    assert "rematch" not in games.get(f"/v1/games/{gid}").json()
    listed = games.get("/v1/games", params={"status": "open", "limit": 100}).json()["items"]
    assert gid not in [item["id"] for item in listed]


def test_the_creator_ends_a_game_of_bots_only(games: TestClient[Any]) -> None:
    """A table of open seats only, filled with bots by its creator, who holds no seat: the
    creator's session ends it (nobody else could), and still no seat's credential of another
    game does."""
    body = {"ruleset": "numwars-classic", "players": [{"open": True}] * 3}
    game = games.post("/v1/games", json=body, headers=host(games)).json()
    started = games.post(
        f"/v1/games/{game['id']}/start", json={"fill_with_bots": "random"}, headers=host(games)
    )
    assert started.status_code == 200, started.text
    names = [p["name"] for p in started.json()["players"]]
    assert names == ["Robot 1", "Robot 2", "Robot 3"]  # one word in French and English
    _, stranger = _player(games)
    refused = games.post(f"/v1/games/{game['id']}/abandon", headers=stranger)
    assert refused.status_code == 401, refused.text
    ended = games.post(f"/v1/games/{game['id']}/abandon", headers=host(games))
    assert ended.status_code == 200, ended.text
    assert games.get(f"/v1/games/{game['id']}").json()["status"] in ("abandoned", "over")


def test_a_claimers_pseudo_never_repeats_a_name_at_the_table(games: TestClient[Any]) -> None:
    """A seat opened without a name takes its claimer's pseudo, told apart by its place when
    another player already has that name (case and spaces aside)."""
    pseudo, bo = _player(games)
    body = {"ruleset": "numwars-classic", "players": [{"name": pseudo.upper()}, {"open": True}]}
    body["players"].append({"open": True, "name": "Cy"})
    game = games.post("/v1/games", json=body, headers=host(games)).json()
    assert _claim(games, game["id"], 1, bo).status_code == 201
    names = [p["name"] for p in games.get(f"/v1/games/{game['id']}").json()["players"]]
    assert names[:2] == [pseudo.upper(), f"{pseudo} (2)"]


def test_a_seats_events_are_never_cached(games: TestClient[Any]) -> None:
    """A seat's page of events holds its private `deal` (its hand): `no-store`, as every
    other answer holding a hand (an attack found it cacheable); the public page may be kept."""
    body = {"ruleset": "numwars-classic", "players": [{"name": n} for n in ("A", "B", "C")]}
    game = games.post("/v1/games", json=body).json()
    seat = games.get(f"/v1/games/{game['id']}/events", headers=auth(game["seats"][0]["token"]))
    assert any(e["kind"] == "deal" for e in seat.json()["events"])
    assert "no-store" in seat.headers["cache-control"]
    public = games.get(f"/v1/games/{game['id']}/events")
    assert not any(e["kind"] == "deal" for e in public.json()["events"])


def test_an_action_checks_the_token_before_the_body(games: TestClient[Any]) -> None:
    """Authentication, then existence, then the body: a made-up token with a bad body is 401
    (an attack got 422), an unknown game 404, a seat's own token the body's 422."""
    body = {"ruleset": "numwars-classic", "players": [{"name": n} for n in ("A", "B", "C")]}
    game = games.post("/v1/games", json=body).json()
    bad = {"kind": "x"}
    made_up = games.post(
        f"/v1/games/{game['id']}/actions", json=bad, headers=auth("nrg_" + "x" * 43)
    )
    assert made_up.status_code == 401, made_up.text
    unknown = games.post("/v1/games/" + "0" * 32 + "/actions", json=bad, headers=auth("nrg_y"))
    assert unknown.status_code == 404, unknown.text
    seat = auth(game["seats"][0]["token"])
    refused = games.post(f"/v1/games/{game['id']}/actions", json=bad, headers=seat)
    assert refused.status_code == 422, refused.text


@pytest.fixture(params=["postgresql", "sqlite"])
def either(request: pytest.FixtureRequest) -> Iterator[TestClient[Any]]:
    """A client of the app on the run's PostgreSQL database, or on a SQLite file of its own."""
    if request.param == "postgresql":
        yield request.getfixturevalue("games")
        return
    url = request.getfixturevalue("sqlite_url")
    migrations.upgrade(url)
    with TestClient(create_app(Settings(database_url=url, rate_limit_per_minute=0))) as client:
        yield client


def test_a_stream_ticket_opens_only_while_its_holder_holds_the_seat(
    either: TestClient[Any],
) -> None:
    """A stream ticket opens its stream (a HEAD checks it and leaves it unused) only while the
    token it was asked with still holds the seat, on either database: the seat's token until a
    claim from another session replaces it; a session of the account that claimed the seat
    until it expires or logs out (another session's claim leaves it the account's)."""
    games = either
    game_id = _open_game(games)["id"]
    pseudo, first = _player(games)
    claimed = _claim(games, game_id, 1, first)
    assert claimed.status_code == 201, claimed.text
    old_token = auth(claimed.json()["token"])

    def ticket(headers: dict[str, str]) -> str:
        asked = games.post(f"/v1/games/{game_id}/stream-tickets", headers=headers)
        assert asked.status_code == 201, asked.text
        return str(asked.json()["ticket"])

    def opens(ticket: str) -> int:
        return games.head(f"/v1/games/{game_id}/stream?ticket={ticket}").status_code

    by_token, by_session = ticket(old_token), ticket(first)
    assert (opens(by_token), opens(by_session)) == (200, 200)
    logged_in = games.post("/v1/sessions", json={"login": pseudo, "password": PASSWORD})
    assert logged_in.status_code == 201, logged_in.text
    second = auth(logged_in.json()["token"])
    again = _claim(games, game_id, 1, second)  # another device: a fresh token, the old revoked
    assert again.status_code == 200, again.text
    assert (opens(by_token), opens(ticket(auth(again.json()["token"])))) == (401, 200)
    assert opens(by_session) == 200  # the first session is still the account's
    by_first, by_second = ticket(first), ticket(second)
    past = datetime(2000, 1, 1, tzinfo=UTC)
    expired = _sql(
        games,
        "UPDATE account_sessions SET expires_at = :past WHERE token_hash = :digest",
        past=past,
        digest=token_hash(first["Authorization"].removeprefix("Bearer ")),
    )
    assert expired == []
    assert (opens(by_first), opens(by_second)) == (401, 200)
    assert games.delete("/v1/sessions/current", headers=second).status_code == 204
    assert opens(by_second) == 401
