"""What the stored-games benchmarks share: a throw-away PostgreSQL database, the API server on
it, a small keep-alive HTTP/1.1 client, and the driver that plays games through the API.

The driver plays each game the way a client would: the seat that may act (the first of the
view's `actors`) takes the first of its `legal_actions`, from the view the server returned to
it after its own last action when that view is still current, else from its view read with
`GET /v1/games/{id}` (its token). Games run one after the other in each of `conc` tasks (a
finished game is replaced by a new one, created in the timed window: one `POST /v1/games`
per 320 actions of a four-player Num Wars match).
"""

from __future__ import annotations

import asyncio
import os
import secrets
import subprocess
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import msgspec

from bench import APP_DIR, HOST, PINNED, ROOT, SERVER_CPU, uvicorn

PG = "postgres@127.0.0.1:5432"


def pin_self(cpu: int) -> None:
    if PINNED:
        os.sched_setaffinity(0, {cpu})


def server_env(url: str) -> dict[str, str]:
    """The API's environment: the database, the build first on the path; rate limiting off
    unless the environment sets it (one client address sends everything), logs at WARNING,
    a pool of 20 database connections."""
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(APP_DIR), str(ROOT)]),
        "DATABASE_URL": url,
        "NUMRULES_RATE_LIMIT_PER_MINUTE": os.environ.get("NUMRULES_RATE_LIMIT_PER_MINUTE", "0"),
        "NUMRULES_LOG_LEVEL": os.environ.get("NUMRULES_LOG_LEVEL", "WARNING"),
        # Connections for 16 concurrent games, as the raw-asyncpg baseline's pool of 20 (the
        # default 10 would open and close an overflow connection on most actions).
        "NUMRULES_DB_POOL_SIZE": os.environ.get("NUMRULES_DB_POOL_SIZE", "20"),
    }


@contextmanager
def throwaway_db() -> Iterator[str]:
    """A fresh database migrated to head (`numrules db upgrade`); dropped afterwards."""
    name = f"numrules_bench_{secrets.token_hex(4)}"
    psql = ["psql", "-h", "127.0.0.1", "-U", "postgres", "-qc"]
    subprocess.run([*psql, f"CREATE DATABASE {name}"], check=True)
    url = f"postgresql+asyncpg://{PG}/{name}"
    try:
        subprocess.run(
            [str(ROOT / ".venv/bin/numrules"), "db", "upgrade"],
            env=server_env(url),
            check=True,
            capture_output=True,
        )
        yield url
    finally:
        subprocess.run([*psql, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], check=False)


def serve_api(
    url: str, port: int, workers: int = 1, cpu: int | None = SERVER_CPU
) -> AbstractContextManager[int]:
    """uvicorn with `api.app:app` on `url`; yields its pid (the master's with workers > 1)."""
    return uvicorn("api.app:app", port, server_env(url), workers=workers, cpu=cpu)


class Http:
    """One keep-alive HTTP/1.1 connection (the answers carry Content-Length)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
        assert self.reader is not None
        data = b"" if body is None else msgspec.json.encode(body)
        head = f"{method} {path} HTTP/1.1\r\nHost: {HOST}\r\nContent-Length: {len(data)}\r\n"
        if body is not None:
            head += "Content-Type: application/json\r\n"
        if token is not None:
            head += f"Authorization: Bearer {token}\r\n"
        self.writer.write(head.encode() + b"\r\n" + data)
        status_line = await self.reader.readline()
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        payload = await self.reader.readexactly(length)
        return int(status_line.split()[1]), msgspec.json.decode(payload) if payload else None

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


CREATE = {"ruleset": "numwars", "players": [{"name": f"p{i}"} for i in range(4)]}


async def play_http(
    port: int, conc: int, duration: float, create: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Actions per second and POST latencies (ms) of `conc` concurrent game loops."""
    lat: list[float] = []
    gets = 0
    games = 0
    deadline = time.perf_counter() + duration

    async def loop() -> None:
        nonlocal gets, games
        http = Http(port)
        try:
            while time.perf_counter() < deadline:
                status, game = await http.request("POST", "/v1/games", create or CREATE)
                assert status == 201, (status, game)
                gid, tokens = game["id"], [s["token"] for s in game["seats"]]
                view, fresh, version = game["view"], -1, 0
                while view["actors"] and time.perf_counter() < deadline:
                    seat = view["actors"][0]
                    if fresh != seat:
                        status, got = await http.request(
                            "GET", f"/v1/games/{gid}", token=tokens[seat]
                        )
                        assert status == 200, (status, got)
                        view = got["view"]
                        gets += 1
                    t0 = time.perf_counter()
                    status, ans = await http.request(
                        "POST",
                        f"/v1/games/{gid}/actions",
                        view["legal_actions"][0],
                        tokens[seat],
                    )
                    lat.append((time.perf_counter() - t0) * 1e3)
                    assert status == 200, (status, ans)
                    assert ans["version"] == version + 1
                    version, view, fresh = ans["version"], ans["view"], seat
                games += 1
        finally:
            http.close()

    t0 = time.perf_counter()
    await asyncio.gather(*(loop() for _ in range(conc)))
    wall = time.perf_counter() - t0
    return summary(lat, wall, games=games, gets=gets)


def pct(values: list[float], p: float) -> float:
    """The p-th percentile, as boardgame.io's bench.js takes it (no interpolation)."""
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(p / 100 * len(s)))]


def summary(lat: list[float], wall: float, **extra: Any) -> dict[str, Any]:
    return {
        "actions": len(lat),
        "wall_s": wall,
        "actions_per_s": len(lat) / wall,
        "p50_ms": pct(lat, 50),
        "p99_ms": pct(lat, 99),
        **extra,
    }
