"""Turn clocks across replicas (issue 26): two served processes on one PostgreSQL database,
each sweeping the passed deadlines (`FOR UPDATE SKIP LOCKED`), with a 2-second clock.

Every seat reads the game, then, once the exchange's deadline has passed, many late moves
come at once (real concurrent HTTP requests to both replicas, with and without `If-Match`):
every one is 409 `turn-timed-out`, and the timeouts are applied exactly once each. Nobody
reads the game afterwards: the sweeps alone time the next turns out. The log is then the
one a single process makes (tests/games/test_clocks.py's `timed_out_log`), the `timeout`
events one per turn, the timeouts counter served, and the export, marked `timeout`,
replays to the same match. One SQLite process applies a timeout with its sweep.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from api.db import migrations
from engine import registry
from engine.core.actions import Action
from engine.core.match import Match, MatchRecord, replay
from tests.api.process import ServeProcess
from tests.games.test_clocks import SEED, timed_out_log

FAST = {
    "NUMRULES_PASSWORD_HASH_TIME_COST": "1",
    "NUMRULES_PASSWORD_HASH_MEMORY_KIB": "8192",
    "NUMRULES_RATE_LIMIT_PER_MINUTE": "0",
    "NUMRULES_BOT_WORKERS": "0",
    "NUMRULES_CLOCK_SWEEP_SECONDS": "0.5",
}
SECONDS = 2


@pytest.fixture
def replicas() -> Iterator[list[ServeProcess]]:
    started: list[ServeProcess] = []
    try:
        yield started
    finally:
        for served in started:
            if served.process is not None and served.process.poll() is None:
                served.terminate()


async def _rows(url: str, sql: str, game_id: str) -> list[Any]:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            return list(await conn.execute(text(sql), {"g": game_id}))
    finally:
        await engine.dispose()


async def _log(url: str, game_id: str) -> list[tuple[int, dict[str, Any]]]:
    rows = await _rows(
        url, "SELECT seat, action FROM game_actions WHERE game_id = :g ORDER BY seq", game_id
    )
    out = []
    for r in rows:
        action = r.action if isinstance(r.action, dict) else msgspec.json.decode(r.action)
        out.append((r.seat, {k: v for k, v in action.items() if k != "v"}))
    return out


async def _bot_seed(url: str, game_id: str) -> int:
    rows = await _rows(url, "SELECT bot_seed FROM games WHERE id = :g", game_id)
    return int(rows[0].bot_seed)


async def _late_moves(
    urls: list[str], game_id: str, moves: list[tuple[str, dict[str, Any]]]
) -> list[httpx.Response]:
    """Each seat's move sent to each replica, with `If-Match: "0"` and without, all at once."""
    async with httpx.AsyncClient(timeout=30) as http:
        sends = []
        for url in urls:
            for token, action in moves:
                for if_match in ({"If-Match": '"0"'}, {}):
                    headers = {"Authorization": f"Bearer {token}", **if_match}
                    sends.append(
                        http.post(f"{url}/v1/games/{game_id}/actions", json=action, headers=headers)
                    )
        return list(await asyncio.gather(*sends))


async def test_two_replicas_apply_each_timeout_once_and_refuse_every_late_move(
    pg_head: str, tmp_path: Path, replicas: list[ServeProcess]
) -> None:
    replicas.append(ServeProcess(pg_head, tmp_path / "a.log", **FAST).start())
    replicas.append(ServeProcess(pg_head, tmp_path / "b.log", **FAST).start())
    a, b = replicas
    body = {
        "ruleset": "numwars-classic",
        "players": [{"name": n} for n in "ABC"],
        "seed": SEED,
        "clock": {"turn_seconds": SECONDS, "on_timeout": "auto"},
    }
    with httpx.Client(timeout=30) as http:
        created = http.post(f"{a.url}/v1/games", json=body)
        assert created.status_code == 201, created.text
        game = created.json()
        game_id = game["id"]
        tokens = [s["token"] for s in game["seats"]]
        moves = []
        for token in tokens:  # every seat reads the game at version 0
            seen = http.get(
                f"{b.url}/v1/games/{game_id}", headers={"Authorization": f"Bearer {token}"}
            ).json()
            assert seen["version"] == 0 and seen["deadline"] == game["deadlines"][0]["at"]
            moves.append((token, seen["view"]["legal_actions"][0]))
    time.sleep(SECONDS + 0.05)
    answers = await _late_moves([a.url, b.url], game_id, moves)
    assert len(answers) == 12
    for answer in answers:
        assert answer.status_code == 409, answer.text
        assert answer.json()["code"] == "turn-timed-out", answer.text

    bot_seed = await _bot_seed(pg_head, game_id)
    expected = timed_out_log(bot_seed, 12, SECONDS)
    exchange = 15  # each of the three seats' five passes
    assert (await _log(pg_head, game_id))[:exchange] == expected[:exchange]
    # nobody reads the game now: only the sweeps time the play's turns out
    deadline = time.monotonic() + 30
    while len(log := await _log(pg_head, game_id)) < exchange + 2:
        assert time.monotonic() < deadline, log
        time.sleep(0.2)
    time.sleep(1.0)  # both sweeps pass again: nothing applied twice
    log = await _log(pg_head, game_id)
    assert log == expected[: len(log)]

    with httpx.Client(timeout=30) as http:
        auth = {"Authorization": f"Bearer {tokens[0]}"}
        abandoned = http.post(f"{a.url}/v1/games/{game_id}/abandon", headers=auth)
        assert abandoned.status_code == 200, abandoned.text
        events = http.get(f"{b.url}/v1/games/{game_id}/events").json()["events"]
        export = http.get(f"{b.url}/v1/games/{game_id}/export").json()
        metrics = http.get(f"{a.url}/metrics").text + http.get(f"{b.url}/metrics").text
    timeouts = [e for e in events if e["kind"] == "timeout"]
    # one `timeout` per turn: 3 exchanges, then one per trick's play
    assert len(timeouts) == 3 + (len(export["actions"]) - exchange)
    versions = [e["data"]["version"] for e in timeouts]
    assert versions == sorted(set(versions))
    # the counter is served (which replica applied the timeouts varies: in a whole run, the
    # in-process app of the other tests sweeps the same database too)
    assert "# TYPE numrules_clock_timeouts_total counter" in metrics
    log = await _log(pg_head, game_id)
    assert [(a["seat"], a["action"]) for a in export["actions"]] == log
    assert all(a["timeout"] for a in export["actions"])
    replayed = replay(MatchRecord.from_export(msgspec.json.encode(export)))
    match = Match(registry.make("numwars-classic"), 3, SEED)
    for seat, action in log:
        match.apply(seat, msgspec.convert(action, Action))
    assert replayed.snapshot() == match.snapshot()
    for served in replicas:
        assert "Traceback" not in served.output(), served.output()[-3000:]


def test_one_sqlite_process_sweeps_its_deadlines(
    sqlite_url: str, tmp_path: Path, replicas: list[ServeProcess]
) -> None:
    migrations.upgrade(sqlite_url)
    served = ServeProcess(sqlite_url, tmp_path / "s.log", **FAST).start()
    replicas.append(served)
    body = {
        "ruleset": "numwars-classic",
        "players": [{"name": n} for n in "ABC"],
        "seed": SEED,
        "clock": {"turn_seconds": 1, "on_timeout": "abandon"},
    }
    with httpx.Client(base_url=served.url, timeout=30) as http:
        created = http.post("/v1/games", json=body)
        assert created.status_code == 201, created.text
        game_id = created.json()["id"]
        deadline = time.monotonic() + 10
        status = "SELECT status FROM games WHERE id = :g"
        while asyncio.run(_rows(sqlite_url, status, game_id))[0].status != "abandoned":
            # nobody reads it: the sweep abandons it
            assert time.monotonic() < deadline
            time.sleep(0.2)
        events = http.get(f"/v1/games/{game_id}/events").json()["events"]
    assert [e["kind"] for e in events if e["kind"] == "timeout"] == ["timeout"]
    assert "Traceback" not in served.output(), served.output()[-3000:]
