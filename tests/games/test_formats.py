"""Stored formats with a version (issue 22; STYLE 16): rows written by the code before stored
documents carried a version (tests/fixtures/stored/v0-*.json, dumped from games played
through the API on PostgreSQL) still decode, and a game loaded from them plays on to the same
views and results; a row with a field a newer replica added is read without error (a rolling
deploy), while the request bodies keep refusing unknown fields."""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import random
import uuid
from pathlib import Path
from typing import Any

import asyncpg
import msgspec
import pytest
from litestar import Litestar

from api.games.formats import decode_answer, stored_event_out
from api.games.service import PROGRESS_EVERY
from api.http.tokens import SEAT_PREFIX, new_id, new_token, token_hash
from engine import registry
from engine.core.actions import Action
from engine.core.formats import decode_action, decode_checkpoint
from engine.core.match import Match, MatchRecord, replay
from engine.core.texts import KINDS
from tests.engine.test_invariants import _unique_codes
from tests.games.driver import Table

STORED = Path(__file__).parent.parent / "fixtures" / "stored"
#: Every pinned format's game rows: v0 (before versions), v1-events (versioned documents, events
#: with an untyped `data`, before typed events and the round-1 `round-start` and `deal`).
V0_GAMES = sorted(STORED.glob("*-game-*.json"))


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _unversioned(document: dict[str, Any]) -> dict[str, Any]:
    """A stored document without its format version (v1 rows carry ``v``; v0 rows do not)."""
    return {k: v for k, v in document.items() if k != "v"}


def _record(fixture: dict[str, Any], upto: int | None = None) -> MatchRecord:
    game = fixture["game"]
    return MatchRecord(
        ruleset=game["ruleset"],
        options=game["options"],
        rules_version=game["rules_version"],
        seed=game["seed"],
        players=game["players"],
        actions=[(a["seat"], decode_action(a["action"])) for a in fixture["actions"][:upto]],
    )


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


def _insert(url: str, fixture: dict[str, Any]) -> tuple[str, list[str]]:
    """The fixture's rows as a new game (its own id, fresh seat tokens); the JSON columns
    exactly as dumped."""
    game, game_id = fixture["game"], new_id()
    tokens = [new_token(SEAT_PREFIX) for _ in fixture["seats"]]
    _sql(
        url,
        [
            (
                "INSERT INTO games (id, ruleset, options, rules_version, seed, salt,"
                " seed_commitment, players, status, version, event_seq, result, checkpoint,"
                " created_at, updated_at) VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7, $8, $9, $10,"
                " $11, $12::jsonb, $13, now(), now())",
                [
                    (
                        game_id,
                        game["ruleset"],
                        json.dumps(game["options"]),
                        game["rules_version"],
                        game["seed"],
                        game["salt"],
                        game["seed_commitment"],
                        game["players"],
                        game["status"],
                        game["version"],
                        game["event_seq"],
                        None if game["result"] is None else json.dumps(game["result"]),
                        game["checkpoint"],
                    )
                ],
            ),
            (
                "INSERT INTO game_seats (game_id, seat, name, token_hash, joined)"
                " VALUES ($1, $2, $3, $4, false)",
                [
                    (game_id, s["seat"], s["name"], token_hash(t))
                    for s, t in zip(fixture["seats"], tokens, strict=True)
                ],
            ),
            (
                "INSERT INTO game_actions (game_id, seq, seat, action, created_at)"
                " VALUES ($1, $2, $3, $4::jsonb, now())",
                [
                    (game_id, a["seq"], a["seat"], json.dumps(a["action"]))
                    for a in fixture["actions"]
                ],
            ),
            (
                "INSERT INTO game_events (game_id, seq, kind, visibility, payload)"
                " VALUES ($1, $2, $3, $4::jsonb, $5::jsonb)",
                [
                    (
                        game_id,
                        e["seq"],
                        e["kind"],
                        None if e["visibility"] is None else json.dumps(e["visibility"]),
                        json.dumps(e["payload"]),
                    )
                    for e in fixture["events"]
                ],
            ),
            (
                "INSERT INTO idempotency_keys (game_id, seat, key, request_hash, status, response,"
                " created_at) VALUES ($1, $2, $3, $4, $5, $6::jsonb, now())",
                [
                    (
                        game_id,
                        k["seat"],
                        k["key"],
                        k["request_hash"],
                        k["status"],
                        json.dumps(k["response"]),
                    )
                    for k in fixture["idempotency_keys"]
                ],
            ),
        ],
    )
    return game_id, tokens


def _table(client: Any, fixture: dict[str, Any], game_id: str, tokens: list[str]) -> Table:
    """The driver's table over a stored game, its shadow the replay of the fixture's log."""
    game = fixture["game"]
    table = Table.__new__(Table)
    table.client = client
    table.ruleset = game["ruleset"]
    table.players = game["players"]
    table.id = game_id
    table.tokens = tokens
    table.shadow = replay(_record(fixture))
    rules = registry.make(game["ruleset"], game["options"])
    table.unique = _unique_codes(game["ruleset"], rules, game["players"])
    table.version = game["version"]
    table.event_seq = game["event_seq"]
    table.bodies = []
    return table


def _bare(result: Any) -> Any:
    """A result as a row stored before breakdown lines had kinds holds it: each line's
    `kind` and `params`, where it has them, checked (the label is the kind's text), then left
    out."""
    if result is None:  # a game still being played
        return None
    for rnd in result["rounds"]:
        for player in rnd["players"]:
            for line in player["breakdown"]:
                if "kind" in line:
                    assert line["label"] == KINDS[line.pop("kind")].render(**line.pop("params"))
    return result


def _unlabelled(result: Any) -> Any:
    """A result without its lines' labels: a stored label keeps the words of its day (Num
    King's "bid 1 met" before texts24's "Bid 1 met"), a replay today says today's; the
    points, cards and everything else still compared."""
    if result is None:
        return None
    result = copy.deepcopy(result)
    for rnd in result["rounds"]:
        for player in rnd["players"]:
            for line in player["breakdown"]:
                line.pop("label")
    return result


@pytest.mark.parametrize("path", V0_GAMES, ids=lambda p: p.stem)
def test_v0_game_rows_decode(path: Path) -> None:
    """Every stored document of today's format decodes with the new codecs, to what it said."""
    fixture = _load(path)
    assert fixture["actions"] and fixture["events"] and fixture["idempotency_keys"]
    for row in fixture["actions"]:
        action = decode_action(row["action"])
        assert decode_action(json.dumps(row["action"])) == action
        assert msgspec.to_builtins(action) == _unversioned(row["action"])  # nothing lost or added
        assert msgspec.convert(_unversioned(row["action"]), Action) == action  # still a valid body
    for row in fixture["events"]:
        out = stored_event_out(row["seq"], row["payload"])
        assert {**_unversioned(row["payload"]), "seq": row["seq"]} == msgspec.to_builtins(out)
    for row in fixture["idempotency_keys"]:
        assert msgspec.to_builtins(decode_answer(row["response"])) == _unversioned(row["response"])
    # the round-start checkpoint resumes the match: with its round's actions, the replay's
    checkpoint = decode_checkpoint(fixture["game"]["checkpoint"])
    assert checkpoint.index >= 1 and checkpoint.v == 1
    game = fixture["game"]
    rules = registry.make(game["ruleset"], game["options"])
    resumed = Match.resume(rules, game["players"], game["seed"], checkpoint, game["rules_version"])
    record = _record(fixture)
    for seat, action in record.actions[checkpoint.actions :]:
        resumed.apply(seat, action)
    whole = replay(record)
    for viewer in [None, *range(game["players"])]:
        assert resumed.view(viewer) == whole.view(viewer)
    assert _unlabelled(_bare(msgspec.to_builtins(whole.result()))) == _unlabelled(game["result"])
    if "export" in fixture:  # today's export replays offline to the stored result
        again = replay(MatchRecord.from_export(json.dumps(fixture["export"])))
        assert _unlabelled(_bare(msgspec.to_builtins(again.result()))) == _unlabelled(
            game["result"]
        )
        assert game["result"] == fixture["export"]["result"]


@pytest.mark.parametrize("path", V0_GAMES, ids=lambda p: p.stem)
def test_a_game_loaded_from_v0_rows_plays_on(
    games: Any, games_app: Litestar, pg_head: str, path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Today's rows in the database: read cold (from the checkpoint), their events listed,
    the keyed retry answered as stored, the game played on to the end as the engine plays
    it, the export replayed to its result."""
    fixture = _load(path)
    game_id, tokens = _insert(pg_head, fixture)
    table = _table(games, fixture, game_id, tokens)
    caplog.set_level(logging.DEBUG, logger="numrules.games")
    for viewer in [None, *range(table.players)]:
        assert table.view(viewer)["version"] == fixture["game"]["version"]
    games_log = [r.getMessage() for r in caplog.records if r.name == "numrules.games"]
    assert any("resumed at round" in m for m in games_log), games_log  # the v0 checkpoint
    events = table.get("/events?after=0").json()["events"]
    public = [e for e in fixture["events"] if e["visibility"] is None]
    assert events == [{**_unversioned(e["payload"]), "seq": e["seq"]} for e in public]
    key = fixture["idempotency_keys"][0]
    keyed = fixture["actions"][key["response"]["version"] - 1]
    retry = table.post(
        "/actions",
        keyed["seat"],
        json=_unversioned(keyed["action"]),
        headers={"Idempotency-Key": key["key"]},
    )
    assert retry.status_code == 200, retry.text
    assert retry.headers["idempotent-replayed"] == "true"
    assert retry.json() == _unversioned(key["response"])
    rng = random.Random(path.stem)
    for _ in range(3000):
        if table.shadow.is_over:
            break
        table.step(rng)
    final = table.view(None)
    assert final["status"] == "over"
    # rounds scored before the rows were loaded keep their stored lines (no kinds); rounds
    # scored today carry kinds: the last one, at least
    last = final["result"]["rounds"][-1]["players"]
    if fixture["game"]["status"] != "over":
        assert all("kind" in line for p in last for line in p["breakdown"])
    shadow = msgspec.to_builtins(table.shadow.result())
    if fixture["game"]["status"] != "over":  # a round scored today: today's labels
        assert last == shadow["rounds"][-1]["players"]
    assert _unlabelled(_bare(final["result"])) == _unlabelled(_bare(shadow))
    if fixture["game"]["status"] == "over":  # the stored result, served as it was stored
        assert final["result"] == fixture["game"]["result"]
    export = table.get("/export").json()
    assert export["v"] == 1
    assert [e["action"] for e in export["actions"][: len(fixture["actions"])]] == [
        _unversioned(a["action"]) for a in fixture["actions"]
    ]
    replayed = msgspec.to_builtins(replay(MatchRecord.from_export(export)).result())
    assert _unlabelled(_bare(replayed)) == _unlabelled(final["result"])


def test_rows_with_added_fields_are_read_as_an_older_replica_would(
    games: Any, games_app: Litestar, pg_head: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A rolling deploy: rows a newer replica wrote, with fields this code does not know (an
    action's, an event's, the checkpoint's, the round's progress, a keyed answer's), read cold
    without error, the match resumed from that checkpoint and progress (not the whole log
    replayed instead)."""
    caplog.set_level(logging.DEBUG, logger="numrules.games")
    rng = random.Random(5)
    table = Table(games, "numwars-classic", 3, 77)
    key = f"k-{uuid.uuid4()}"
    while table.shadow.index == 0:
        table.step(rng)
    for _ in range(PROGRESS_EVERY):  # the round's progress stored
        table.step(rng)
    assert table.shadow.index == 1
    seat = table.shadow.actors()[0]
    choice = table.view(seat)["view"]["legal_actions"][0]
    events = table.shadow.apply(seat, msgspec.convert(choice, Action))
    first = table.post("/actions", seat, json=choice, headers={"Idempotency-Key": key})
    assert first.status_code == 200, first.text
    table.version += 1
    table.event_seq += len(events)
    _sql(
        pg_head,
        [
            (
                'UPDATE game_actions SET action = action || \'{"future": 1, "v": 2}\'::jsonb'
                " WHERE game_id = $1",
                [(table.id,)],
            ),
            (
                'UPDATE game_events SET payload = payload || \'{"future": {"a": [1]}}\'::jsonb'
                " WHERE game_id = $1",
                [(table.id,)],
            ),
            (
                "UPDATE games SET checkpoint = left(checkpoint, -1) || ',\"future\":[1,2]}'"
                " WHERE id = $1",
                [(table.id,)],
            ),
            (
                "UPDATE games SET progress = left(progress, -1) || ',\"future\":[3]}'"
                " WHERE id = $1",
                [(table.id,)],
            ),
            (
                "UPDATE idempotency_keys SET response = response || '{\"future\": true}'::jsonb"
                " WHERE game_id = $1",
                [(table.id,)],
            ),
        ],
    )
    store = games_app.state.games
    store._cache.pop(table.id, None)  # a cold read, as another replica's
    # the checkpoint is used, not dropped for the whole log
    stored = asyncio.run(_fetch(pg_head, "SELECT checkpoint FROM games WHERE id = $1", table.id))
    assert '"future":[1,2]' in stored and decode_checkpoint(stored).index >= 1
    for viewer in [None, *range(3)]:
        table.view(viewer)  # equal to the engine's
    games_log = [r.getMessage() for r in caplog.records if r.name == "numrules.games"]
    assert any(
        "resumed at round 2" in m and f"{PROGRESS_EVERY} actions from its checkpoint" in m
        for m in games_log
    ), games_log
    assert not any("replaying" in m for m in games_log), games_log
    page = table.get("/events?after=0", seat).json()
    assert page["events"] and all("future" not in e for e in page["events"])
    retry = table.post("/actions", seat, json=choice, headers={"Idempotency-Key": key})
    assert retry.status_code == 200 and retry.json() == first.json()
    for _ in range(5):
        table.step(rng)
    abandoned = table.post("/abandon", 0).json()
    assert abandoned["status"] == "abandoned"
    exported = table.get("/export").json()
    assert all(
        set(a["action"]) <= {"type", "card", "cards", "declared"} for a in exported["actions"]
    )
    again = replay(MatchRecord.from_export(exported))
    assert again.view(None) == table.shadow.view(None)


async def _fetch(url: str, query: str, *args: Any) -> Any:
    conn = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        return await conn.fetchval(query, *args)
    finally:
        await conn.close()


def test_request_bodies_still_refuse_unknown_fields(games: Any) -> None:
    """Stored types accept unknown fields; the public requests never do (STYLE 8)."""
    table = Table(games, "numwars-classic", 3, 78)
    seat = table.shadow.actors()[0]
    legal = table.view(seat)["view"]["legal_actions"][0]
    refused = table.post("/actions", seat, json={**legal, "future": 1})
    assert refused.status_code == 422, refused.text
    assert refused.json()["code"] == "unknown-field"
    assert table.post("/actions", seat, json={**legal, "v": 1}).status_code == 422
    assert table.get("").json()["version"] == 0
    created = games.post(
        "/v1/games",
        json={"ruleset": "numwars-classic", "players": [{"name": "A"}] * 3, "future": 1},
    )
    assert created.status_code == 422 and created.json()["code"] == "unknown-field"
