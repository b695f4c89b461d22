"""`NUMRULES_MAX_STREAMS` holds under a burst (issue 21, item 4): 200 concurrent opens of one
game's event stream against a served app with a cap of 20, over real HTTP (a connection per
request, fired together with `asyncio.gather`). The cap was checked before the stream
registered, so a burst of 60 … 200 opens held 35 – 36 streams under a cap of 20.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
import time
from typing import Any

import httpx

from api.app import create_app
from api.ops.settings import Settings
from tests.api.serving import serve
from tests.api.test_rate_limit_buckets import client_from

CAP = 20
BURST = 200
PLAYERS = [{"name": "Ada"}, {"name": "Bo"}, {"name": "Cy"}]


class Sampler:
    """Reads the server's own count of streams (`Fanout.streams`, what /metrics reports) every
    millisecond from a thread of its own, and keeps the highest."""

    def __init__(self, fanout: Any) -> None:
        self.fanout = fanout
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self.fanout.streams)
            time.sleep(0.001)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(5)


def _metric(text: str) -> int:
    found = re.search(r"^numrules_sse_streams (\d+(?:\.\d+)?)$", text, re.M)
    assert found, text
    return int(float(found.group(1)))


async def test_a_burst_of_opens_never_holds_more_streams_than_the_cap(pg_head: str) -> None:
    """At most `CAP` of 200 concurrent opens get a stream, every other one is a 503 problem
    `too-many-streams` with Retry-After, the server never counts more than `CAP`, and every
    slot is free again once the clients are gone."""
    app = create_app(Settings(database_url=pg_head, max_streams=CAP))
    limits = httpx.Limits(max_connections=BURST + 10, max_keepalive_connections=0)
    with serve(app) as (host, port):
        fanout = app.state.games.fanout
        base = f"http://{host}:{port}"
        async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as client:
            created = await client.post(
                "/v1/games", json={"ruleset": "numwars-classic", "players": PLAYERS}
            )
            assert created.status_code == 201, created.text
            path = f"/v1/games/{created.json()['id']}/stream"

            with Sampler(fanout) as sampler:
                async with contextlib.AsyncExitStack() as stack:
                    opened = await asyncio.gather(
                        *(
                            stack.enter_async_context(client.stream("GET", path))
                            for _ in range(BURST)
                        )
                    )
                    held = [r for r in opened if r.status_code == 200]
                    refused = [r for r in opened if r.status_code != 200]
                    for response in refused:
                        await response.aread()
                    metrics = (await client.get("/metrics")).text
                    during = fanout.streams

            assert 1 <= len(held) <= CAP, len(held)
            assert sampler.peak <= CAP, sampler.peak
            assert during == len(held) and _metric(metrics) == len(held)
            assert len(held) + len(refused) == BURST
            for response in refused:
                assert response.status_code == 503, response.text
                assert response.headers["content-type"] == "application/problem+json"
                assert response.json()["code"] == "too-many-streams"
                assert int(response.headers["retry-after"]) >= 1

            # the clients are gone: every slot is given back, and the cap's worth opens again
            deadline = time.monotonic() + 10
            while fanout.streams and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            assert fanout.streams == 0
            assert _metric((await client.get("/metrics")).text) == 0
            async with contextlib.AsyncExitStack() as stack:
                again = await asyncio.gather(
                    *(stack.enter_async_context(client.stream("GET", path)) for _ in range(CAP))
                )
                assert [r.status_code for r in again] == [200] * CAP


async def test_a_refused_or_failed_open_gives_its_slot_back(pg_head: str) -> None:
    """Opens that end before streaming (an unknown game: 404; a bad ticket: 401; a finished
    game: 204) hold no slot once answered, whatever the order of the checks."""
    app = create_app(Settings(database_url=pg_head, max_streams=2))
    with serve(app) as (host, port):
        fanout = app.state.games.fanout
        async with httpx.AsyncClient(base_url=f"http://{host}:{port}", timeout=30) as client:
            created = await client.post(
                "/v1/games", json={"ruleset": "numwars-classic", "players": PLAYERS}
            )
            game = created.json()
            token = game["seats"][0]["token"]
            assert (await client.get("/v1/games/nope/stream")).status_code == 404
            assert (
                await client.get(f"/v1/games/{game['id']}/stream?ticket=bogus")
            ).status_code == 401
            abandoned = await client.post(
                f"/v1/games/{game['id']}/abandon", headers={"Authorization": f"Bearer {token}"}
            )
            assert abandoned.status_code == 200, abandoned.text
            ended = await client.get(f"/v1/games/{game['id']}/stream?after=1000")
            assert ended.status_code == 204, ended.text
            for _ in range(5):  # each of these held a slot while it was answered
                assert (await client.get("/v1/games/nope/stream")).status_code == 404
            assert fanout.streams == 0


async def test_one_client_cannot_take_every_stream(pg_head: str) -> None:
    """An attacker held every stream of a process from one address (anonymous spectator
    streams of a game of its own, kept open by the keep-alives), and every player elsewhere
    was refused 503. One client network holds at most `NUMRULES_MAX_STREAMS_PER_NETWORK`;
    the others still open theirs."""
    app = create_app(Settings(database_url=pg_head, max_streams=CAP, max_streams_per_network=5))
    with serve(app) as (host, port):
        base = f"http://{host}:{port}"
        async with (
            client_from(base, "127.0.0.91") as attacker,
            client_from(base, "127.0.0.92") as player,
            contextlib.AsyncExitStack() as stack,
        ):
            own = await attacker.post(
                "/v1/games", json={"ruleset": "numwars-classic", "players": PLAYERS}
            )
            path = f"/v1/games/{own.json()['id']}/stream"
            opened = await asyncio.gather(
                *(stack.enter_async_context(attacker.stream("GET", path)) for _ in range(CAP))
            )
            statuses = [r.status_code for r in opened]
            assert statuses.count(200) == 5 and statuses.count(503) == CAP - 5, statuses
            for response in opened:
                if response.status_code == 503:
                    await response.aread()
                    assert response.json()["code"] == "too-many-streams"
            game = await player.post(
                "/v1/games", json={"ruleset": "numwars-classic", "players": PLAYERS}
            )
            seat = {"Authorization": f"Bearer {game.json()['seats'][0]['token']}"}
            mine = await stack.enter_async_context(
                player.stream("GET", f"/v1/games/{game.json()['id']}/stream", headers=seat)
            )
            assert mine.status_code == 200
            assert app.state.games.fanout.streams == 6
