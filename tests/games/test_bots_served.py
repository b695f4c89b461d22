"""Never stuck, exactly once (issue 25): two served processes and a SIGKILL.

Process A (`NUMRULES_BOT_HOLD=true`: it never plays a bot move itself, which makes "died
after committing the human action, before the bot's reply" deterministic) creates a
numwars-classic game of one person and two bots and applies the person's exchange, leaving
both bots' exchanges owed; A is SIGKILLed. Two replicas, B and C, then start with a fast
sweep (`FOR UPDATE SKIP LOCKED`), their bots thinking in a process pool as in production;
nobody reads the game. The sweeps play the owed moves and the bots' chain on until the
person is to act. The log is then exactly the one a single process makes (each owed move
once, none twice: the row lock and the version check), computed here with the engine.
"""

from __future__ import annotations

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
from api.games.bots import move_seed
from api.games.service import bot_seat
from engine import registry
from engine.bots import choose
from engine.core.actions import Action
from engine.core.match import Match
from tests.api.process import ServeProcess
from tests.pg import own_database

FAST = {
    "NUMRULES_PASSWORD_HASH_TIME_COST": "1",
    "NUMRULES_PASSWORD_HASH_MEMORY_KIB": "8192",
    "NUMRULES_RATE_LIMIT_PER_MINUTE": "0",
    "NUMRULES_BOT_SAMPLES": "2",
    "NUMRULES_BOT_SECONDS": "0.05",
}


@pytest.fixture
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("bots-served")


@pytest.fixture(scope="module")
def own_head() -> Iterator[str]:
    """A migrated database of this module's own: on the run's shared one, another test's
    in-process app (its bot sweep) could play the owed moves before the replicas do."""
    with own_database() as url:
        migrations.upgrade(url)
        yield url


@pytest.fixture
def replicas(own_head: str, logs: Path) -> Iterator[list[ServeProcess]]:
    started: list[ServeProcess] = []
    try:
        yield started
    finally:
        for served in started:
            if served.process is not None and served.process.poll() is None:
                served.terminate()


async def bot_actions(url: str, game_id: str) -> dict[int, list[str]]:
    """Each seat's logged action types, read from the database itself."""
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            rows = await conn.execute(
                text(
                    "SELECT seat, action->>'type' AS kind FROM game_actions "
                    "WHERE game_id = :g ORDER BY seq"
                ),
                {"g": game_id},
            )
            seen: dict[int, list[str]] = {}
            for row in rows:
                seen.setdefault(row.seat, []).append(row.kind)
            return seen
    finally:
        await engine.dispose()


async def the_log(url: str, game_id: str) -> list[tuple[int, dict[str, Any]]]:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            rows = await conn.execute(
                text("SELECT seat, action FROM game_actions WHERE game_id = :g ORDER BY seq"),
                {"g": game_id},
            )
            return [(r.seat, {k: v for k, v in r.action.items() if k != "v"}) for r in rows]
    finally:
        await engine.dispose()


async def seeds(url: str, game_id: str) -> tuple[int, int]:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            row = (
                await conn.execute(
                    text("SELECT seed, bot_seed FROM games WHERE id = :g"), {"g": game_id}
                )
            ).one()
            return int(row.seed), int(row.bot_seed)
    finally:
        await engine.dispose()


def expected_log(
    seed: int, bot_seed: int, human: tuple[int, dict[str, Any]]
) -> list[tuple[int, dict[str, Any]]]:
    """The log one process alone makes: the person's action, then each owed bot move once,
    chosen as the server chooses it (`basic` and `random` read no clock), until none is owed."""
    rules = registry.make("numwars-classic")
    match = Match(rules, 3, seed)
    match.apply(human[0], msgspec.convert(human[1], Action))
    log = [human]
    levels = [None, "basic", "random"]
    while (seat := bot_seat(match, levels)) is not None:
        level = levels[seat]
        assert level is not None
        action = choose(
            rules, match.view(seat), level=level, seed=move_seed(bot_seed, len(log), seat)
        )
        match.apply(seat, action)
        log.append((seat, msgspec.to_builtins(action)))
    return log


async def test_a_bot_move_owed_by_a_killed_process_is_played_once_by_the_sweeps(
    own_head: str, logs: Path, replicas: list[ServeProcess]
) -> None:
    a = ServeProcess(own_head, logs / "a.log", NUMRULES_BOT_HOLD="true", **FAST).start()
    replicas.append(a)
    players = [
        {"name": "Ada"},
        {"name": "Bot 1", "bot": "basic"},
        {"name": "Bot 2", "bot": "random"},
    ]
    with httpx.Client(base_url=a.url, timeout=30) as http:
        created = http.post(
            "/v1/games", json={"ruleset": "numwars-classic", "players": players, "seed": 5}
        )
        assert created.status_code == 201, created.text
        game_id = created.json()["id"]
        auth = {"Authorization": f"Bearer {created.json()['seats'][0]['token']}"}
        view = http.get(f"/v1/games/{game_id}", headers=auth).json()["view"]
        assert view["phase"] == "exchange" and set(view["actors"]) == {0, 1, 2}
        acted = http.post(
            f"/v1/games/{game_id}/actions", json=view["legal_actions"][0], headers=auth
        )
        assert acted.status_code == 200, acted.text
    time.sleep(0.5)  # A holds: nothing of the bots' is played
    kind = view["legal_actions"][0]["type"]  # the exchange's action (`pass`)
    assert await bot_actions(own_head, game_id) == {0: [kind]}
    a.kill()

    sweeping = {**FAST, "NUMRULES_BOT_SWEEP_SECONDS": "0.3"}
    replicas.append(ServeProcess(own_head, logs / "b.log", **sweeping).start())
    replicas.append(ServeProcess(own_head, logs / "c.log", **sweeping).start())
    deadline = time.monotonic() + 60
    while True:  # nobody reads the game: only the sweeps can play the owed moves
        seen = await bot_actions(own_head, game_id)
        if 1 in seen and 2 in seen:
            break
        assert time.monotonic() < deadline, f"the owed bot moves were never played: {seen}"
        time.sleep(0.2)
    with httpx.Client(base_url=replicas[1].url, timeout=30) as http:
        while (game := http.get(f"/v1/games/{game_id}", headers=auth).json())["view"]["actors"] != [
            0
        ]:  # the bots chain on to the person's turn
            assert time.monotonic() < deadline, game
            time.sleep(0.2)
        time.sleep(1.0)  # both sweeps pass again: nothing may be played twice
        seen = await bot_actions(own_head, game_id)
        logged = await the_log(own_head, game_id)
        assert logged == expected_log(*await seeds(own_head, game_id), logged[0]), seen
        assert sum(map(len, seen.values())) == game["version"]
        assert http.get(f"/v1/games/{game_id}").json()["version"] == game["version"]
        metrics = http.get("/metrics").text
    # the think time is measured where the moves were played (B or C)
    with httpx.Client(base_url=replicas[2].url, timeout=30) as http:
        metrics += http.get("/metrics").text
    # the metric is served (which replica's sweep played the moves, and so counts them, varies)
    assert "# TYPE numrules_bot_think_seconds histogram" in metrics
    for served in replicas[1:]:
        assert "Traceback" not in served.output(), served.output()[-3000:]
    # stopped as a deployment stops them (SIGTERM), they leave none of their bots' processes
    # behind: uvicorn raises the signal again after the shutdown, which skips the
    # interpreter's own joining of process pools (`Thinker.close` joins them itself)
    pools = [pid for served in replicas[1:] for pid in children(served)]
    assert pools, "the bots thought in no process"
    for served in replicas[1:]:
        served.terminate()
    deadline = time.monotonic() + 10
    while left := [pid for pid in pools if Path(f"/proc/{pid}").exists() and not zombie(pid)]:
        assert time.monotonic() < deadline, f"processes left behind: {left}"
        time.sleep(0.1)


def children(served: ServeProcess) -> list[int]:
    """The pids of the served process's children (from /proc)."""
    assert served.process is not None
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == served.process.pid:
            found.append(int(stat.parent.name))
    return found


def zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True
