"""Open tables under real concurrency (issue 26, "Must show"): a served process on PostgreSQL,
20 HTTP claims of one seat at once by 20 accounts (exactly one wins, the others are told
`seat-taken`), and rematches asked at once by two processes (one game; each seat's token
once)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.accounts.conftest import account_body, auth
from tests.api.process import ServeProcess

FAST = {
    "NUMRULES_PASSWORD_HASH_TIME_COST": "1",
    "NUMRULES_PASSWORD_HASH_MEMORY_KIB": "8192",
    "NUMRULES_RATE_LIMIT_PER_MINUTE": "0",
}
CLAIMERS = 20


@pytest.fixture
def served(pg_head: str, tmp_path: Path) -> Iterator[list[ServeProcess]]:
    started: list[ServeProcess] = []
    try:
        yield started
    finally:
        for process in started:
            if process.process is not None and process.process.poll() is None:
                process.terminate()


async def _session(http: httpx.AsyncClient) -> dict[str, str]:
    created = await http.post("/v1/accounts", json=account_body())
    assert created.status_code == 201, created.text
    return auth(created.json()["token"])


async def test_twenty_concurrent_claims_of_one_seat_make_one_winner(
    pg_head: str, tmp_path: Path, served: list[ServeProcess]
) -> None:
    server = ServeProcess(pg_head, tmp_path / "serve.log", **FAST).start()
    served.append(server)
    limits = httpx.Limits(max_connections=CLAIMERS + 5)
    async with httpx.AsyncClient(base_url=server.url, timeout=60, limits=limits) as http:
        host = await _session(http)
        body = {
            "ruleset": "numwars-classic",
            "players": [{"name": "Ada"}, {"open": True}, {"name": "Bo"}, {"open": True}],
        }
        created = await http.post("/v1/games", json=body, headers=host)
        assert created.status_code == 201, created.text
        gid = created.json()["id"]
        sessions = await asyncio.gather(*(_session(http) for _ in range(CLAIMERS)))
        path = f"/v1/games/{gid}/seats/1/claim"
        answers = await asyncio.gather(*(http.post(path, headers=s) for s in sessions))
        statuses = sorted(a.status_code for a in answers)
        assert statuses == [201] + [409] * (CLAIMERS - 1), [a.text for a in answers]
        losers = [a.json() for a in answers if a.status_code == 409]
        assert {p["code"] for p in losers} == {"seat-taken"}
        winner = next(i for i, a in enumerate(answers) if a.status_code == 201)
        token = answers[winner].json()["token"]
        again = await asyncio.gather(*(http.post(path, headers=sessions[winner]) for _ in range(2)))
        assert [a.status_code for a in again] == [200, 200]
        assert {a.json()["seat"] for a in again} == {1}
        assert {a.json()["token"] for a in again} == {token}  # the same session: the same token
        read = await http.get(f"/v1/games/{gid}", headers=auth(token))
        assert read.json()["seat"] == 1 and read.json()["open_seats"] == [3]


async def test_concurrent_rematches_on_two_processes_make_one_game(
    pg_head: str, tmp_path: Path, served: list[ServeProcess]
) -> None:
    one = ServeProcess(pg_head, tmp_path / "one.log", **FAST).start()
    served.append(one)
    two = ServeProcess(pg_head, tmp_path / "two.log", **FAST).start()
    served.append(two)
    async with (
        httpx.AsyncClient(base_url=one.url, timeout=60) as a,
        httpx.AsyncClient(base_url=two.url, timeout=60) as b,
    ):
        players = [{"name": n} for n in ("Ada", "Bo", "Cy", "Di")]
        created = await a.post("/v1/games", json={"ruleset": "numwars", "players": players})
        assert created.status_code == 201, created.text
        game: dict[str, Any] = created.json()
        gid = game["id"]
        tokens = [auth(s["token"]) for s in game["seats"]]
        assert (await a.post(f"/v1/games/{gid}/abandon", headers=tokens[0])).status_code == 200
        calls = [
            (a if i % 2 else b).post(f"/v1/games/{gid}/rematch", headers=tokens[i % 4])
            for i in range(16)
        ]
        answers = await asyncio.gather(*calls)
        assert sorted(r.status_code for r in answers) == [200] * 15 + [201]
        assert len({r.json()["id"] for r in answers}) == 1
        given = [
            (s["seat"], s["token"]) for r in answers for s in r.json()["seats"] if "token" in s
        ]
        assert sorted(seat for seat, _ in given) == [0, 1, 2, 3]  # each new seat's token once
        new_id = answers[0].json()["id"]
        for seat, token in given:
            read = await b.get(f"/v1/games/{new_id}", headers=auth(token))
            assert read.json()["seat"] == seat
        assert (await b.get(f"/v1/games/{gid}")).json()["rematch"] == new_id
