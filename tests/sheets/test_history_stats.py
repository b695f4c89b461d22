"""`GET /v1/me/history` (newest first, opaque keyset cursor) and `GET /v1/me/stats`, which must
always equal a recomputation from the sheets' rounds (a hypothesis property)."""

from __future__ import annotations

import json
import secrets
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from litestar.testing import TestClient

from engine.numwars import NumWars
from engine.numwars.cards import BOMB_HOLDER, OUTCOME_ROLES
from engine.numwars_classic import NumWarsClassic
from tests.sheets.conftest import Account, Accounts, sql, versioned
from tests.sheets.test_sheets import ROUND_A, ROUND_B, ROUND_C, create

Client = TestClient[Any]


def insert_game(
    url: str, account: Account, status: str, won: bool, at: datetime, joined: bool = True
) -> str:
    game_id = secrets.token_hex(16)
    result = (
        {
            "rounds": [{"players": [{"seat": 0, "score": 7, "breakdown": []}], "winners": [0]}],
            "totals": [7, 3],
            "winners": [0] if won else [1],
        }
        if status == "over"
        else None
    )
    sql(
        url,
        "INSERT INTO games (id, ruleset, options, rules_version, seed, salt, seed_commitment,"
        " players, status, version, event_seq, result, creator_id, created_at, updated_at)"
        " VALUES ($1, 'numwin', '{}'::jsonb, 1, 1, 's', 'c', 2, $2, 0, 0, $3::jsonb, NULL, $4, $4)",
        game_id,
        status,
        None if result is None else json.dumps(result),
        at,
    )
    for seat in (0, 1):
        sql(
            url,
            "INSERT INTO game_seats (game_id, seat, name, token_hash, account_id, joined)"
            " VALUES ($1, $2, 'n', $3, $4, $5)",
            game_id,
            seat,
            secrets.token_hex(32),
            account.id if seat == 0 else None,
            joined if seat == 0 else False,
        )
    return game_id


def test_history_pages_newest_first(client: Client, accounts: Accounts, pg_head: str) -> None:
    me, other = accounts.new(), accounts.new()
    assert me.id is not None
    players = [{"name": "Me", "account": me.pseudo}, {"name": "B"}, {"name": "C"}]
    own = [
        create(client, {"ruleset": "numwars-classic", "players": players, "planned_rounds": 1}, me)
        for _ in range(3)
    ]
    url = f"/v1/scoresheets/{own[0]['id']}/rounds"
    assert client.post(url, json=ROUND_A, headers=me.auth).json()["finished"] is True
    theirs = create(client, {"ruleset": "numwars-classic", "players": players}, other)
    hidden = create(
        client, {"ruleset": "numwars-classic", "players": [{"name": n} for n in "BCDE"]}, other
    )
    now = datetime.now(UTC)
    won = insert_game(pg_head, me, "over", True, now - timedelta(days=1))
    active = insert_game(pg_head, me, "active", False, now - timedelta(days=2))
    unjoined = insert_game(pg_head, me, "over", True, now, joined=False)
    items: list[dict[str, Any]] = []
    cursor = None
    pages = 0
    while True:
        query = f"?limit=2&cursor={cursor}" if cursor else "?limit=2"
        page = client.get(f"/v1/me/history{query}", headers=me.auth)
        assert page.status_code == 200, page.text
        items.extend(page.json()["items"])
        pages += 1
        cursor = page.json()["next_cursor"]
        if cursor is None:
            break
    ids = [i["id"] for i in items]
    assert pages == 3 and len(ids) == len(set(ids)) == 6
    assert set(ids) == {s["id"] for s in own} | {theirs["id"], won, active}
    assert hidden["id"] not in ids and unjoined not in ids
    moments = [datetime.fromisoformat(i["at"]) for i in items]
    assert moments == sorted(moments, reverse=True)
    by_id = {i["id"]: i for i in items}
    assert by_id[won] == {**by_id[won], "kind": "game", "finished": True, "won": True}
    assert by_id[active]["finished"] is False and by_id[active]["won"] is False
    first = by_id[own[0]["id"]]
    assert first["kind"] == "scoresheet" and first["finished"] is True
    whole = client.get("/v1/me/history", headers=me.auth).json()
    assert [i["id"] for i in whole["items"]] == ids and whole["next_cursor"] is None
    for bad in ("nope", "W10", "eyJ4IjoxfQ", "%00"):
        answer = client.get(f"/v1/me/history?cursor={bad}", headers=me.auth)
        assert answer.status_code == 422, (bad, answer.text)
    assert client.get("/v1/me/history?limit=0", headers=me.auth).status_code == 422
    assert client.get("/v1/me/history?limit=101", headers=me.auth).status_code == 422
    assert client.get("/v1/me/history").status_code == 401
    assert client.get("/v1/me/stats").status_code == 401


def test_games_count_in_stats(client: Client, accounts: Accounts, pg_head: str) -> None:
    me = accounts.new()
    now = datetime.now(UTC)
    insert_game(pg_head, me, "over", True, now)
    insert_game(pg_head, me, "over", False, now)
    insert_game(pg_head, me, "active", False, now)
    insert_game(pg_head, me, "over", True, now, joined=False)
    stats = client.get("/v1/me/stats", headers=me.auth).json()["rulesets"]
    assert stats == {
        "numwin": {
            "played": 2,
            "won": 1,
            "win_rate": 0.5,
            "average_round_score": 7.0,
            "best_round_score": 7,
        }
    }


# --- the stats property --------------------------------------------------------------------------

CLASSIC_DECK = NumWarsClassic().deck(3).cards
NUMWARS_DECK = NumWars().deck(4).cards


@st.composite
def classic_round(draw: st.DrawFn, players: int) -> dict[str, Any]:
    owners = draw(
        st.lists(st.integers(0, players), min_size=len(CLASSIC_DECK), max_size=len(CLASSIC_DECK))
    )
    return {
        "players": [
            {"captured": [c for c, o in zip(CLASSIC_DECK, owners, strict=True) if o == p]}
            for p in range(players)
        ]
    }


@st.composite
def numwars_round(draw: st.DrawFn, players: int) -> dict[str, Any]:
    owners = draw(
        st.lists(st.integers(0, players), min_size=len(NUMWARS_DECK), max_size=len(NUMWARS_DECK))
    )
    roles = draw(st.permutations(["poseur", "complice", "demineur", "agent"]))
    # an outcome the table's roles allow, the Bomb in the pile it sends it to
    outcome = draw(st.sampled_from([o for o, need in OUTCOME_ROLES.items() if need <= set(roles)]))
    owners[NUMWARS_DECK.index("bomb")] = roles.index(BOMB_HOLDER[outcome])
    return {
        "players": [
            {
                "captured": [c for c, o in zip(NUMWARS_DECK, owners, strict=True) if o == p],
                "role": roles[p],
            }
            for p in range(players)
        ],
        "bomb_outcome": outcome,
    }


@st.composite
def numking_round(draw: st.DrawFn, players: int, n: int) -> dict[str, Any]:
    """Bids, and tricks that add up to at most the round's n tricks (fewer: annulled)."""
    bids = []
    left = n
    for _ in range(players):
        tricks = draw(st.integers(0, left))
        left -= tricks
        bids.append({"bid": draw(st.integers(0, n)), "tricks": tricks})
    return {"players": draw(st.permutations(bids))}


@st.composite
def sheet_plan(draw: st.DrawFn) -> dict[str, Any]:
    ruleset = draw(st.sampled_from(["numwars-classic", "numwars", "numking"]))
    players = 4 if ruleset == "numwars" else 3
    planned = draw(st.integers(1, 3))
    played = draw(st.integers(1, planned))
    rounds = []
    for n in range(1, played + 1):
        if ruleset == "numwars-classic":
            rounds.append(draw(classic_round(players)))
        elif ruleset == "numwars":
            rounds.append(draw(numwars_round(players)))
        else:
            rounds.append(draw(numking_round(players, n)))
    return {
        "ruleset": ruleset,
        "players": players,
        "planned": planned,
        "rounds": rounds,
        "position": draw(st.integers(0, players - 1)),
        "named": draw(st.booleans()),
        "mine": draw(st.booleans()),
        "confirm": draw(st.booleans()),
    }


def recompute(sheets: list[dict[str, Any]], me: Account) -> dict[str, Any]:
    """The stats from the sheets as read: finished (every planned round played; no tie-break
    here) sheets on which `me` is a confirmed player; the highest total wins."""
    groups: dict[str, list[tuple[bool, list[int], list[tuple[str, int]]]]] = {}
    for sheet in sheets:
        positions = [
            i
            for i, p in enumerate(sheet["players"])
            if p["account"] == me.pseudo and p["confirmed"]
        ]
        if len(sheet["rounds"]) != sheet["planned_rounds"] or not positions:
            continue
        totals = [0] * len(sheet["players"])
        scores, roles = [], []
        for r in sheet["rounds"]:
            by_seat = {p["seat"]: p["score"] for p in r["scores"]["players"]}
            for seat, score in by_seat.items():
                totals[seat] += score
            for position in positions:
                scores.append(by_seat[position])
                if sheet["ruleset"] == "numwars":
                    roles.append((r["input"]["players"][position]["role"], by_seat[position]))
        won = any(totals[p] == max(totals) for p in positions)
        groups.setdefault(sheet["ruleset"], []).append((won, scores, roles))
    out: dict[str, Any] = {}
    for ruleset, group in groups.items():
        scores = [s for _, ss, _ in group for s in ss]
        wins = sum(w for w, _, _ in group)
        entry: dict[str, Any] = {
            "played": len(group),
            "won": wins,
            "win_rate": pytest.approx(wins / len(group)),
            "average_round_score": pytest.approx(sum(scores) / len(scores)),
            "best_round_score": max(scores),
        }
        if ruleset == "numwars":
            by_role: dict[str, list[int]] = {}
            for _, _, roles in group:
                for role, score in roles:
                    by_role.setdefault(role, []).append(score)
            entry["by_role"] = {
                role: {"rounds": len(v), "average_score": pytest.approx(sum(v) / len(v))}
                for role, v in by_role.items()
            }
        out[ruleset] = entry
    return out


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(plans=st.lists(sheet_plan(), min_size=1, max_size=4))
def test_stats_equal_a_recomputation(
    client: Client, accounts: Accounts, plans: list[dict[str, Any]]
) -> None:
    me, other = accounts.new(), accounts.new()
    read = []
    for plan in plans:
        owner = me if plan["mine"] else other
        players: list[dict[str, Any]] = [{"name": f"P{i}"} for i in range(plan["players"])]
        if plan["named"]:
            players[plan["position"]]["account"] = me.pseudo
        options = {"tiebreak": False} if plan["ruleset"] == "numwars-classic" else {}
        sheet = create(
            client,
            {
                "ruleset": plan["ruleset"],
                "players": players,
                "planned_rounds": plan["planned"],
                "options": options,
            },
            owner,
        )
        url = f"/v1/scoresheets/{sheet['id']}"
        for body in plan["rounds"]:
            answer = client.post(f"{url}/rounds", json=body, headers=owner.auth)
            assert answer.status_code == 201, answer.text
        if plan["named"] and plan["confirm"]:
            assert client.post(f"{url}/confirm", headers=me.auth).status_code == 200
        read.append(client.get(url, headers=owner.auth).json())
    stats = client.get("/v1/me/stats", headers=me.auth)
    assert stats.status_code == 200
    assert stats.json()["rulesets"] == recompute(read, me)


def test_another_account_cannot_fill_my_stats(client: Client, accounts: Accounts) -> None:
    me, other = accounts.new(), accounts.new()
    players = [{"name": "Me", "account": me.pseudo}, {"name": "B"}, {"name": "C"}]
    sheet = create(
        client, {"ruleset": "numwars-classic", "players": players, "planned_rounds": 2}, other
    )
    url = f"/v1/scoresheets/{sheet['id']}"
    for body in (ROUND_A, ROUND_B):
        assert client.post(f"{url}/rounds", json=body, headers=other.auth).status_code == 201
    assert client.get("/v1/me/stats", headers=me.auth).json() == {"rulesets": {}, "vs_bots": {}}
    assert client.post(f"{url}/confirm", headers=me.auth).status_code == 200
    counted = client.get("/v1/me/stats", headers=me.auth).json()["rulesets"]
    assert counted["numwars-classic"]["played"] == 1
    # the owner changes a round: my confirmation is cleared, the sheet counts no more
    assert (
        client.put(
            f"{url}/rounds/2", json=ROUND_C, headers=versioned(client, url, other.auth)
        ).status_code
        == 200
    )
    assert client.get("/v1/me/stats", headers=me.auth).json() == {"rulesets": {}, "vs_bots": {}}
