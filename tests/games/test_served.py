"""Stored games served for real, on PostgreSQL: concurrent requests over HTTP, two server
processes sharing one database (an action on one reaches an event stream on the other through
LISTEN/NOTIFY), stream tickets and what the server logs, a server killed with SIGKILL and
restarted, a fault injected before a commit; and one whole match on SQLite.

The served processes are `python -m uvicorn api.app:app` (access log on), each writing its
stdout and stderr to a file the tests read. Every race is fired with `asyncio.gather` over an
`httpx.AsyncClient` with a connection per request, so the requests reach the server together.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from api.app import create_app
from api.db import migrations
from api.games import routes
from api.games.service import PROGRESS_EVERY, GameService
from api.ops.settings import Settings
from engine import registry
from engine.core.actions import Action, Snap
from engine.core.formats import encode_checkpoint
from engine.core.match import Match, MatchRecord, replay
from engine.numwin.cards import DECK, may_pair
from tests.accounts.conftest import account_body
from tests.api.process import ServeProcess
from tests.api.serving import serve
from tests.games.driver import Table
from tests.games.host import async_host, host
from tests.pg import asyncpg_dsn

#: How long an event may take to go from an action on one server to a stream on another.
DELIVERY_SECONDS = 10.0
PLAYERS3 = [{"name": "Ada"}, {"name": "Bo"}, {"name": "Cy"}]


# -- served processes -------------------------------------------------------------------------


class Server(ServeProcess):
    """`python -m uvicorn api.app:app` (not `numrules serve`: the app as any ASGI server
    runs it) on a free port, in a process of its own, on `database_url`; its output goes to
    `log` (appended across restarts)."""

    def command(self) -> list[str]:
        # (a stream left open does not hold a test's teardown: 2 s to finish, as `serve` does)
        return [
            *(sys.executable, "-m", "uvicorn", "api.app:app", "--port", str(self.port)),
            *("--timeout-graceful-shutdown", "2"),
        ]

    def start(self) -> Server:
        super().start()
        return self

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.terminate(15)


@pytest.fixture(scope="module")
def servers(pg_head: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Server]]:
    """Two server processes, A and B, on the run's PostgreSQL database."""
    logs = tmp_path_factory.mktemp("served")
    started: list[Server] = []
    try:
        for name in ("a", "b"):
            started.append(Server(pg_head, logs / f"{name}.log").start())
        yield started
    finally:
        for server in started:
            server.stop()


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def builtins(value: Any) -> Any:
    return msgspec.to_builtins(value)


async def create(client: httpx.AsyncClient, ruleset: str, players: int, seed: int) -> Any:
    body = {"ruleset": ruleset, "players": PLAYERS3[:players], "seed": seed}
    if players > len(PLAYERS3):
        body["players"] = [{"name": f"P{i}"} for i in range(players)]
    response = await client.post("/v1/games", json=body, headers=await async_host(client))
    assert response.status_code == 201, response.text
    return response.json()


async def all_seqs(client: httpx.AsyncClient, game_id: str, tokens: list[str]) -> list[int]:
    """Every event seq any viewer (the spectator, each seat) is shown, each viewer's list
    checked to increase strictly."""
    seen: set[int] = set()
    for token in [None, *tokens]:
        headers = {} if token is None else auth(token)
        response = await client.get(f"/v1/games/{game_id}/events?after=0", headers=headers)
        assert response.status_code == 200, response.text
        page = response.json()
        assert not page["more"]
        seqs = [e["seq"] for e in page["events"]]
        assert seqs == sorted(set(seqs)), seqs
        seen.update(seqs)
    return sorted(seen)


def expected_events(events: list[Any], first: int, seat: int | None) -> list[dict[str, Any]]:
    """The engine's events as a viewer is sent them, numbered from `first`."""
    return [
        {"seq": first + i, **builtins(e)}
        for i, e in enumerate(events)
        if seat is None or e.visible(seat)
    ]


# -- 1. racing actions ------------------------------------------------------------------------


async def test_twenty_racing_actions_of_one_seat_apply_exactly_one(servers: list[Server]) -> None:
    """20 simultaneous actions of the seat to act (both legal bids, some with the right
    If-Match): one is applied, every other is refused as a status (409/412), never a 5xx; the
    game is at version 1 and its event log has no gap nor duplicate."""
    seed = 31
    shadow = Match(registry.make("numking", {}), 3, seed)
    (seat,) = shadow.actors()
    legal = [builtins(a) for a in shadow.legal_actions(seat)]
    assert len(legal) >= 2, legal
    async with httpx.AsyncClient(base_url=servers[0].url, timeout=30) as client:
        game = await create(client, "numking", 3, seed)
        tokens = [s["token"] for s in game["seats"]]
        path = f"/v1/games/{game['id']}"
        bodies = []
        for i in range(20):
            headers = auth(tokens[seat])
            if i % 3 == 2:
                headers["If-Match"] = '"0"'
            bodies.append((legal[i % len(legal)], headers))
        random.Random(seed).shuffle(bodies)
        answers = await asyncio.gather(
            *(client.post(f"{path}/actions", json=b, headers=h) for b, h in bodies)
        )
        statuses = [a.status_code for a in answers]
        assert statuses.count(200) == 1, statuses
        assert set(statuses) <= {200, 409, 412, 422}, statuses
        winner = statuses.index(200)
        for answer, (_, headers) in zip(answers, bodies, strict=True):
            if answer.status_code == 200:
                continue
            problem = answer.json()
            assert answer.headers["content-type"].startswith("application/problem+json")
            if answer.status_code == 412:
                assert "If-Match" in headers and problem["code"] == "version-mismatch"
                assert answer.headers["etag"] == '"1"'
            elif answer.status_code == 409:
                assert problem["reason"] == "not-your-turn", problem
        # the one applied is the winner's action, as the engine applies it
        events = shadow.apply(seat, msgspec.convert(bodies[winner][0], Action))
        won = answers[winner].json()
        assert won["version"] == 1
        opened = len(shadow.round_start_events())  # round 1's start and deals: logged first
        assert won["events"] == expected_events(events, opened + 1, seat)
        assert won["view"] == builtins(shadow.view(seat))
        for viewer in [None, 0, 1, 2]:
            headers = {} if viewer is None else auth(tokens[viewer])
            now = await client.get(path, headers=headers)
            assert now.status_code == 200 and now.headers["etag"] == '"1"'
            assert now.json()["version"] == 1
            assert now.json()["view"] == builtins(shadow.view(viewer))
        assert await all_seqs(client, game["id"], tokens) == list(
            range(1, opened + len(events) + 1)
        )


async def test_a_retry_storm_with_one_idempotency_key_applies_once(servers: list[Server]) -> None:
    """The same action with the same Idempotency-Key sent 12 times at once: all 200, one
    applied and 11 replays of its answer; version 1."""
    seed = 32
    shadow = Match(registry.make("numking", {}), 3, seed)
    (seat,) = shadow.actors()
    action = builtins(shadow.legal_actions(seat)[0])
    async with httpx.AsyncClient(base_url=servers[1].url, timeout=30) as client:
        game = await create(client, "numking", 3, seed)
        token = game["seats"][seat]["token"]
        headers = {**auth(token), "Idempotency-Key": "storm-1"}
        path = f"/v1/games/{game['id']}"
        answers = await asyncio.gather(
            *(client.post(f"{path}/actions", json=action, headers=headers) for _ in range(12))
        )
        assert [a.status_code for a in answers] == [200] * 12, [a.text for a in answers]
        replayed = [a.headers.get("idempotent-replayed") for a in answers]
        assert replayed.count(None) == 1 and replayed.count("true") == 11, replayed
        first = answers[replayed.index(None)].json()
        assert all(a.json() == first for a in answers)  # (jsonb reorders the replays' keys)
        assert answers[0].json()["version"] == 1
        assert (await client.get(path)).json()["version"] == 1
        shadow.apply(seat, msgspec.convert(action, Action))
        assert (await client.get(path, headers=auth(token))).json()["view"] == builtins(
            shadow.view(seat)
        )


async def test_reads_racing_actions_see_one_version(servers: list[Server]) -> None:
    """Spectator reads fired together with each action: every answer's view is the engine's
    view at the answer's own `version` (never the next version's under the old number)."""
    seed = 33
    shadow = Match(registry.make("numking", {}), 3, seed)
    views = {0: builtins(shadow.view(None))}
    rng = random.Random(seed)
    wrong: list[int] = []
    async with httpx.AsyncClient(base_url=servers[0].url, timeout=30) as client:
        game = await create(client, "numking", 3, seed)
        tokens = [s["token"] for s in game["seats"]]
        path = f"/v1/games/{game['id']}"
        for version in range(1, 31):
            (seat,) = shadow.actors()
            action = rng.choice(shadow.legal_actions(seat))
            shadow.apply(seat, action)
            views[version] = builtins(shadow.view(None))
            post = client.post(f"{path}/actions", json=builtins(action), headers=auth(tokens[seat]))
            answers = await asyncio.gather(post, *(client.get(path) for _ in range(8)))
            assert answers[0].status_code == 200, answers[0].text
            for read in answers[1:]:
                body = read.json()
                assert read.headers["etag"] == f'"{body["version"]}"'
                if body["view"] != views[body["version"]]:
                    wrong.append(body["version"])
    assert not wrong, f"{len(wrong)} reads showed another version's view: {wrong}"


# -- 2. the numwin snap race --------------------------------------------------------------------


def right_claims(match: Match) -> dict[int, Snap]:
    """Each seat's first legal snap of its own card that pairs the discard top (a right claim:
    it wins the discard and closes the window), by seat."""
    state: Any = match.round
    if not state.snap_open or not state.discard:
        return {}
    top = DECK[state.discard[-1]]
    claims: dict[int, Snap] = {}
    for seat in range(match.players):
        for action in match.legal_actions(seat):
            if (
                isinstance(action, Snap)
                and action.owner is None
                and may_pair(DECK[state.comb[seat][action.position]], top)
            ):
                claims.setdefault(seat, action)
    return claims


def snap_race(players: int, wanted: int) -> tuple[int, list[tuple[int, Action]], dict[int, Snap]]:
    """A seed and random actions (no snaps) leading to a state where at least `wanted` seats
    hold a right claim at once: the engine alone searches, in well under a second."""
    for seed in range(500):
        match = Match(registry.make("numwin", {}), players, seed)
        rng = random.Random(seed)
        path: list[tuple[int, Action]] = []
        for _ in range(300):
            if match.is_over:
                break
            claims = right_claims(match)
            if len(claims) >= wanted:
                return seed, path, claims
            seat = rng.choice(match.actors())
            legal = [a for a in match.legal_actions(seat) if not isinstance(a, Snap)]
            if not legal:
                continue
            action = rng.choice(legal)
            match.apply(seat, action)
            path.append((seat, action))
    raise AssertionError(f"no numwin state with {wanted} right claims at once ({players}p)")


@pytest.mark.parametrize(("players", "wanted"), [(2, 2), (3, 3), (4, 3)])
async def test_simultaneous_snaps_one_claim_wins(
    servers: list[Server], players: int, wanted: int
) -> None:
    """Seats that each hold a card pairing the fresh discard claim it at the same moment: one
    claim wins (200), every other is 409 `wrong-phase` (the window closed) or 422; the game
    moved by one version, the winner's, and its log has no gap."""
    seed, path, claims = snap_race(players, wanted)
    async with httpx.AsyncClient(base_url=servers[players % 2].url, timeout=30) as client:
        game = await create(client, "numwin", players, seed)
        tokens = [s["token"] for s in game["seats"]]
        shadow = Match(registry.make("numwin", {}), players, seed)
        url = f"/v1/games/{game['id']}/actions"
        event_seq = len(shadow.round_start_events())  # logged at creation
        for seat, action in path:
            event_seq += len(shadow.apply(seat, action))
            answer = await client.post(url, json=builtins(action), headers=auth(tokens[seat]))
            assert answer.status_code == 200, answer.text
        version = len(path)
        for seat, claim in claims.items():  # each seat's own view offers its claim
            mine = await client.get(f"/v1/games/{game['id']}", headers=auth(tokens[seat]))
            assert builtins(claim) in mine.json()["view"]["legal_actions"]
        seats = list(claims)
        answers = await asyncio.gather(
            *(client.post(url, json=builtins(claims[s]), headers=auth(tokens[s])) for s in seats)
        )
        statuses = [a.status_code for a in answers]
        assert statuses.count(200) == 1, [a.text for a in answers]
        for answer in answers:
            if answer.status_code == 409:
                assert answer.json()["reason"] == "wrong-phase", answer.text
            else:
                assert answer.status_code in (200, 422), answer.text
        winner = seats[statuses.index(200)]
        events = shadow.apply(winner, claims[winner])
        assert events[0].kind == "snap" and events[0].seat == winner
        won = answers[statuses.index(200)].json()
        assert won["version"] == version + 1
        assert won["events"] == expected_events(events, event_seq + 1, winner)
        for viewer in [None, *range(players)]:
            headers = {} if viewer is None else auth(tokens[viewer])
            now = (await client.get(f"/v1/games/{game['id']}", headers=headers)).json()
            assert now["version"] == version + 1
            assert now["view"] == builtins(shadow.view(viewer))
        total = event_seq + len(events)
        assert await all_seqs(client, game["id"], tokens) == list(range(1, total + 1))


# -- 3. two processes, one database: event streams ----------------------------------------------


async def sse(response: httpx.Response) -> AsyncIterator[dict[str, str]]:
    """The messages of a `text/event-stream` (field → value); comments are left out."""
    fields: dict[str, str] = {}
    async for line in response.aiter_lines():
        if not line:
            if fields:
                yield fields
                fields = {}
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        fields[name] = f"{fields[name]}\n{value}" if name in fields else value
    if fields:
        yield fields


async def next_message(messages: AsyncIterator[dict[str, str]]) -> dict[str, str]:
    async with asyncio.timeout(DELIVERY_SECONDS):
        return await anext(messages)


async def act(
    client: httpx.AsyncClient, game_id: str, token: str, shadow: Match, seat: int, action: Action
) -> list[Any]:
    events = shadow.apply(seat, action)
    answer = await client.post(
        f"/v1/games/{game_id}/actions", json=builtins(action), headers=auth(token)
    )
    assert answer.status_code == 200, answer.text
    return events


async def random_step(
    client: httpx.AsyncClient, game: Any, shadow: Match, rng: random.Random
) -> list[Any]:
    """One random legal action of a random actor, sent to the server and the shadow."""
    seat = rng.choice(shadow.actors())
    action = rng.choice(shadow.legal_actions(seat))
    return await act(client, game["id"], game["seats"][seat]["token"], shadow, seat, action)


async def test_an_action_on_one_server_reaches_a_stream_on_the_other(
    servers: list[Server],
) -> None:
    """A seat's stream open on B gets, within seconds, the events of actions sent to A (NOTIFY
    on commit, LISTEN on B) that this seat may see, its own hidden draws included, `id:` = the
    event's seq; `Last-Event-ID` resumes after it; an abandoned game's stream ends with
    `event: end`, and a reconnection then gets 204."""
    a, b = servers
    seed = 34
    shadow = Match(registry.make("numwin", {}), 3, seed)
    rng = random.Random(seed)
    watcher = 0
    async with (
        httpx.AsyncClient(base_url=a.url, timeout=30) as on_a,
        httpx.AsyncClient(base_url=b.url, timeout=30) as on_b,
    ):
        game = await create(on_a, "numwin", 3, seed)
        game_id, tokens = game["id"], [s["token"] for s in game["seats"]]
        stream_path = f"/v1/games/{game_id}/stream"
        delivered: list[dict[str, Any]] = []
        opening = shadow.round_start_events()  # logged at creation: the stream starts with them
        event_seq = len(opening)
        async with on_b.stream("GET", stream_path, headers=auth(tokens[watcher])) as stream:
            assert stream.status_code == 200
            assert stream.headers["content-type"].startswith("text/event-stream")
            messages = sse(stream)
            for expected in expected_events(opening, 1, watcher):
                message = await next_message(messages)
                assert json.loads(message["data"]) == expected
                delivered.append(expected)
            for _ in range(6):  # each action's events arrive before the next is sent
                started = time.monotonic()
                events = await random_step(on_a, game, shadow, rng)
                wanted = expected_events(events, event_seq + 1, watcher)
                event_seq += len(events)
                assert wanted, "every numwin action makes a public event"
                for expected in wanted:
                    message = await next_message(messages)
                    assert message["id"] == str(expected["seq"]), message
                    assert message["event"] == expected["kind"]
                    assert json.loads(message["data"]) == expected
                    delivered.append(expected)
                assert time.monotonic() - started < DELIVERY_SECONDS
        private = [e for e in delivered if e["to"] == [watcher]]
        assert private, "the watcher's own draw shows on its stream"
        assert len(delivered) < event_seq, "another seat's hidden draw does not"

        # more actions while nobody listens, then a reconnection with Last-Event-ID
        for _ in range(4):
            event_seq += len(await random_step(on_a, game, shadow, rng))
        resume_after = delivered[-1]["seq"]
        listed = await on_a.get(
            f"/v1/games/{game_id}/events?after={resume_after}", headers=auth(tokens[watcher])
        )
        later = listed.json()["events"]
        assert later and all(e["seq"] > resume_after for e in later)
        resume = {**auth(tokens[watcher]), "Last-Event-ID": str(resume_after)}
        async with on_b.stream("GET", stream_path, headers=resume) as stream:
            assert stream.status_code == 200
            messages = sse(stream)
            got = [await next_message(messages) for _ in later]
        assert [int(m["id"]) for m in got] == [e["seq"] for e in later]
        assert [json.loads(m["data"]) for m in got] == later

        # abandoned on A: the stream open on B ends with `event: end`
        resume = {**auth(tokens[watcher]), "Last-Event-ID": str(event_seq)}
        async with on_b.stream("GET", stream_path, headers=resume) as stream:
            assert stream.status_code == 200
            messages = sse(stream)
            abandoned = await on_a.post(f"/v1/games/{game_id}/abandon", headers=auth(tokens[2]))
            assert abandoned.status_code == 200, abandoned.text
            end = await next_message(messages)
            assert end == {"event": "end", "data": "abandoned"}, end
            with pytest.raises(StopAsyncIteration):
                await next_message(messages)
        again = await on_b.get(stream_path, headers=resume)
        assert again.status_code == 204 and again.content == b""
        # from the start: every event the seat may see, then the end
        async with on_b.stream("GET", stream_path, headers=auth(tokens[watcher])) as stream:
            replayed = [m async for m in sse(stream)]
        everything = await on_a.get(f"/v1/games/{game_id}/events", headers=auth(tokens[watcher]))
        listed_all = everything.json()["events"]
        assert listed_all[: len(delivered)] == delivered
        assert replayed[-1] == {"event": "end", "data": "abandoned"}
        assert [json.loads(m["data"]) for m in replayed[:-1]] == listed_all
        assert [int(m["id"]) for m in replayed[:-1]] == [e["seq"] for e in listed_all]


async def game_messages(
    messages: AsyncIterator[dict[str, str]], version: int
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The events a stream sends up to its next `event: game` message, and that game, which
    must be at `version` (a stream shows every version it catches up with)."""
    events: list[dict[str, Any]] = []
    while True:
        message = await next_message(messages)
        if message.get("event") == "game":
            assert "id" not in message, message  # the events' Last-Event-ID stays theirs
            shown = json.loads(message["data"])
            assert shown["version"] == version, (shown["version"], version)
            return events, shown
        assert message["id"] == str(json.loads(message["data"])["seq"]), message
        events.append(json.loads(message["data"]))


async def test_a_stream_with_view_shows_each_viewer_its_own_game_at_each_version(
    servers: list[Server],
) -> None:
    """`?view=true`: after the events of each version, an `event: game` message holding
    exactly what `GET /v1/games/{id}` answers that viewer at that version (in its language):
    seat 0 streams from A, where the actions are applied (its cache renders it), seat 1 and a
    spectator from B (which reads the game first); each seat sees its own hand and legal
    actions, never another's; the last game (abandoned, seed shown) comes before `end`."""
    a, b = servers
    seed = 35
    shadow = Match(registry.make("numwin", {}), 3, seed)
    rng = random.Random(seed)
    french = {"Accept-Language": "fr"}
    async with (
        httpx.AsyncClient(base_url=a.url, timeout=30) as on_a,
        httpx.AsyncClient(base_url=b.url, timeout=30) as on_b,
    ):
        game = await create(on_a, "numwin", 3, seed)
        game_id, tokens = game["id"], [s["token"] for s in game["seats"]]
        path = f"/v1/games/{game_id}/stream?view=true"
        viewers: list[tuple[int | None, httpx.AsyncClient]] = [(0, on_a), (1, on_b), (None, on_b)]
        heads = [{**french, **({} if v is None else auth(tokens[v]))} for v, _ in viewers]

        async def as_read(viewer: int, version: int) -> Any:
            got = await on_a.get(f"/v1/games/{game_id}", headers=heads[viewer])
            assert got.status_code == 200 and got.json()["version"] == version, got.text
            return got.json()

        async with contextlib.AsyncExitStack() as stack:
            streams = [
                await stack.enter_async_context(client.stream("GET", path, headers=head))
                for (_, client), head in zip(viewers, heads, strict=True)
            ]
            for stream in streams:
                assert stream.status_code == 200
                assert stream.headers["content-language"] == "fr"
            messages = [sse(stream) for stream in streams]
            opening = shadow.round_start_events()
            event_seq, version = len(opening), 0
            sent: list[Any] = opening
            for step in range(8):
                for i, (seat, _) in enumerate(viewers):
                    events, shown = await game_messages(messages[i], version)
                    first = event_seq - len(sent) + 1
                    assert events == [  # a spectator sees the public events only
                        {"seq": first + n, **builtins(e)}
                        for n, e in enumerate(sent)
                        if e.visible(seat)
                    ]
                    assert shown == await as_read(i, version)
                    assert shown["seat"] == seat
                    legal = shown["view"].get("legal_actions")
                    if seat is None:
                        assert legal is None and shown["view"].get("hand") is None
                    else:
                        hand = shadow.view(seat).hand  # type: ignore[attr-defined]
                        assert shown["view"]["hand"] == builtins(hand)
                        assert legal == builtins(shadow.legal_actions(seat))
                if step < 7:
                    sent = await random_step(on_a, game, shadow, rng)
                    event_seq += len(sent)
                    version += 1
            abandoned = await on_a.post(f"/v1/games/{game_id}/abandon", headers=auth(tokens[2]))
            assert abandoned.status_code == 200, abandoned.text
            for i in range(len(viewers)):  # abandoning logs no action: the same version
                events, shown = await game_messages(messages[i], version)
                assert not events
                assert shown["status"] == "abandoned" and shown["seed"] == seed
                assert shown == await as_read(i, version)
                assert await next_message(messages[i]) == {"event": "end", "data": "abandoned"}
        # without `view`, no game message: the events and the end only
        ended = await on_b.get(f"/v1/games/{game_id}/stream", headers=auth(tokens[1]))
        assert ended.status_code == 200 and "event: game" not in ended.text


async def _settled(check: Any, seconds: float = DELIVERY_SECONDS) -> None:
    """Wait until `check()` holds (the server's side of a closed stream ends soon after)."""
    async with asyncio.timeout(seconds):
        while not check():
            await asyncio.sleep(0.05)


async def test_streams_with_view_leave_nothing_behind(pg_head: str) -> None:
    """The watchers a process counts and the views it keeps for them go with the last stream
    of their game, whether the client leaves while the stream waits or reads everything to
    its `end`; a stream of a game over (204) counts nothing."""
    app = create_app(Settings(database_url=pg_head))
    seed = 36
    shadow = Match(registry.make("numking", {}), 3, seed)
    rng = random.Random(seed)
    with serve(app) as (host, port):
        store: GameService = app.state.games  # made at the start
        async with httpx.AsyncClient(base_url=f"http://{host}:{port}", timeout=30) as client:
            game = await create(client, "numking", 3, seed)
            game_id, tokens = game["id"], [s["token"] for s in game["seats"]]
            path = f"/v1/games/{game_id}/stream?view=true"
            async with contextlib.AsyncExitStack() as stack:
                streams = [
                    await stack.enter_async_context(
                        client.stream("GET", path, headers={} if t is None else auth(t))
                    )
                    for t in [tokens[0], tokens[1], None]
                ]
                messages = [sse(stream) for stream in streams]
                for m in messages:
                    await game_messages(m, 0)
                await random_step(client, game, shadow, rng)
                for m in messages:
                    await game_messages(m, 1)
                assert dict(store._watchers[game_id]) == {0: 1, 1: 1, None: 1}
                assert store._views[game_id][0] == 1  # kept when the action was applied
                assert set(store._views[game_id][1]) == {0, 1, None}
            # the clients left while their streams waited for the next action
            await _settled(lambda: game_id not in store._watchers)
            assert game_id not in store._views
            async with client.stream("GET", path, headers=auth(tokens[2])) as stream:
                last = sse(stream)
                await game_messages(last, 1)
                assert dict(store._watchers[game_id]) == {2: 1}
                abandoned = await client.post(
                    f"/v1/games/{game_id}/abandon", headers=auth(tokens[2])
                )
                assert abandoned.status_code == 200
                rest = [m async for m in last]  # read to its end
            assert rest[-1] == {"event": "end", "data": "abandoned"}
            await _settled(lambda: not store._watchers and not store._views)
            after = {**auth(tokens[0]), "Last-Event-ID": str(10**6)}
            ended = await client.get(path, headers=after)
            assert ended.status_code == 204
            assert not store._watchers and not store._views and not store._loading


async def test_a_seats_stream_opened_while_the_game_waited_ends_when_it_starts(
    in_process: str,
) -> None:
    """A seat's stream of a waiting game knows its seat, not the token it opened with: Bo
    opens his seat's stream with `view=true`, leaves the seat, Dee takes it and the game
    starts; Bo's stream ends then (no `end`: a client opens it again with its own credential,
    which Bo no longer has) and never shows him Dee's hand or any event of the game."""
    async with httpx.AsyncClient(base_url=in_process, timeout=30) as client:
        body = {
            "ruleset": "numwars-classic",
            "players": [{"name": "Ada"}, {"open": True}, {"open": True}],
        }
        created = await client.post("/v1/games", json=body, headers=await async_host(client))
        assert created.status_code == 201, created.text
        game_id = created.json()["id"]
        sessions = []
        for _ in range(3):
            account = await client.post("/v1/accounts", json=account_body())
            assert account.status_code == 201, account.text
            sessions.append(auth(account.json()["token"]))
        bo, cy, dee = sessions

        async def claim(seat: int, session: dict[str, str]) -> Any:
            claimed = await client.post(f"/v1/games/{game_id}/seats/{seat}/claim", headers=session)
            assert claimed.status_code == 201, claimed.text
            return claimed.json()

        bo_token = (await claim(1, bo))["token"]
        path = f"/v1/games/{game_id}/stream?view=true"
        async with client.stream("GET", path, headers=auth(bo_token)) as stream:
            assert stream.status_code == 200
            messages = sse(stream)
            waiting = json.loads((await next_message(messages))["data"])
            assert waiting["status"] == "waiting" and waiting["seat"] == 1
            left = await client.post(f"/v1/games/{game_id}/seats/1/leave", headers=bo)
            assert left.status_code == 200, left.text
            await claim(1, dee)
            assert (await claim(2, cy))["status"] == "active"
            async with asyncio.timeout(DELIVERY_SECONDS):
                rest = [m async for m in messages]
        assert rest == [], rest  # ended: no event, no game, no `end`
        again = await client.get(path, headers=auth(bo_token))
        assert again.status_code == 401


async def _rest(messages: AsyncIterator[dict[str, str]]) -> list[dict[str, str]]:
    """What a stream still sends until it ends (it must end within the delivery time)."""
    async with asyncio.timeout(DELIVERY_SECONDS):
        return [m async for m in messages]


async def _step(client: httpx.AsyncClient, game_id: str, tokens: list[str]) -> int:
    """The first actor takes its first legal action; the game's new version."""
    path = f"/v1/games/{game_id}"
    actor = (await client.get(path, headers=auth(tokens[0]))).json()["view"]["actors"][0]
    view = (await client.get(path, headers=auth(tokens[actor]))).json()["view"]
    answer = await client.post(
        f"{path}/actions", json=view["legal_actions"][0], headers=auth(tokens[actor])
    )
    assert answer.status_code == 200, answer.text
    return int(answer.json()["version"])


async def test_a_seats_stream_ends_once_its_credential_no_longer_holds_the_seat(
    in_process: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A seat's stream checks, when it wakes, that the token it was opened with (or its
    ticket was asked with) still holds the seat. Cy's stream of a waiting table, opened with
    his seat token, ends once he leaves the seat, before anyone else takes it. Bo's streams,
    opened with his session and with a ticket asked with it, show the game at each version
    while he is logged in, and end without `end` once he logs out; Ada's, opened with her
    seat token, goes on showing the next version."""
    monkeypatch.setattr(routes, "KEEP_ALIVE_SECONDS", 0.2)
    monkeypatch.setattr(routes, "HOLDER_CHECK_SECONDS", 0.2)
    checks: list[tuple[int, bool]] = []  # (seat, held) of each check the streams make
    holds = GameService.holds

    async def counted(self: GameService, game_id: str, seat: int, digest: str) -> bool:
        held = await holds(self, game_id, seat, digest)
        checks.append((seat, held))
        return held

    monkeypatch.setattr(GameService, "holds", counted)
    async with httpx.AsyncClient(base_url=in_process, timeout=30) as client:
        players = [{"name": "Ada"}, {"open": True}, {"open": True}]
        body = {"ruleset": "numwars-classic", "players": players}
        created = await client.post("/v1/games", json=body, headers=await async_host(client))
        assert created.status_code == 201, created.text
        game_id = created.json()["id"]
        tokens = [created.json()["seats"][0]["token"]]
        bo, cy = [
            auth((await client.post("/v1/accounts", json=account_body())).json()["token"])
            for _ in range(2)
        ]

        async def claim(seat: int, session: dict[str, str]) -> Any:
            claimed = await client.post(f"/v1/games/{game_id}/seats/{seat}/claim", headers=session)
            assert claimed.status_code == 201, claimed.text
            return claimed.json()

        path = f"/v1/games/{game_id}/stream?view=true"
        cy_token = (await claim(2, cy))["token"]
        async with client.stream("GET", path, headers=auth(cy_token)) as stream:
            messages = sse(stream)
            assert json.loads((await next_message(messages))["data"])["status"] == "waiting"
            await _settled(lambda: (2, True) in checks)  # checked meanwhile: still his
            left = await client.post(f"/v1/games/{game_id}/seats/2/leave", headers=cy)
            assert left.status_code == 200, left.text
            assert await _rest(messages) == []  # ended: no game, no `end`
            assert checks[-1] == (2, False)
        tokens.append((await claim(1, bo))["token"])
        tokens.append((await claim(2, cy))["token"])
        ticket = await client.post(f"/v1/games/{game_id}/stream-tickets", headers=bo)
        assert ticket.status_code == 201, ticket.text
        ticketed = f"{path}&ticket={ticket.json()['ticket']}"
        version = (await client.get(f"/v1/games/{game_id}", headers=bo)).json()["version"]
        async with contextlib.AsyncExitStack() as stack:
            opened = [
                await stack.enter_async_context(client.stream("GET", url, headers=head))
                for url, head in [(path, bo), (ticketed, {}), (path, auth(tokens[0]))]
            ]
            assert [s.status_code for s in opened] == [200, 200, 200]
            streams = [sse(s) for s in opened]
            for stream in streams:
                await game_messages(stream, version)
            checks.clear()  # checked meanwhile: still theirs
            await _settled(lambda: {(1, True), (0, True)} <= set(checks))
            version = await _step(client, game_id, tokens)
            for stream in streams:
                _, shown = await game_messages(stream, version)
            assert shown["view"]["seat"] == 0
            logged_out = await client.delete("/v1/sessions/current", headers=bo)
            assert logged_out.status_code == 204, logged_out.text
            assert await _rest(streams[0]) == []
            assert await _rest(streams[1]) == []
            assert (1, False) in checks
            version = await _step(client, game_id, tokens)  # Ada's stream goes on
            await game_messages(streams[2], version)
        again = await client.get(path, headers=bo)
        assert again.status_code == 401


async def test_a_quiet_seats_stream_wakes_for_its_check(
    in_process: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing happens in the game and the keep-alive is a minute away: the stream of a
    session that logs out still ends at its next check (it wakes for it), not at the next
    keep-alive."""
    monkeypatch.setattr(routes, "KEEP_ALIVE_SECONDS", 60.0)
    monkeypatch.setattr(routes, "HOLDER_CHECK_SECONDS", 0.5)
    async with httpx.AsyncClient(base_url=in_process, timeout=30) as client:
        account = await client.post("/v1/accounts", json=account_body())
        assert account.status_code == 201, account.text
        session = auth(account.json()["token"])
        players = [{"name": "Ada"}, {"open": True}, {"open": True}]
        body = {"ruleset": "numwars-classic", "players": players}
        created = await client.post("/v1/games", json=body, headers=await async_host(client))
        assert created.status_code == 201, created.text
        game_id = created.json()["id"]
        claimed = await client.post(f"/v1/games/{game_id}/seats/1/claim", headers=session)
        assert claimed.status_code == 201, claimed.text
        path = f"/v1/games/{game_id}/stream?view=true"
        async with client.stream("GET", path, headers=session) as stream:
            messages = sse(stream)
            assert json.loads((await next_message(messages))["data"])["status"] == "waiting"
            out = await client.delete("/v1/sessions/current", headers=session)
            assert out.status_code == 204, out.text
            started = time.monotonic()
            assert await _rest(messages) == []  # within DELIVERY_SECONDS, far below 60
        assert time.monotonic() - started < DELIVERY_SECONDS


async def test_a_seats_stream_of_a_table_cancelled_before_it_started_ends_with_it(
    in_process: str,
) -> None:
    """A cancelled table never dealt a card, so nothing of a seat changing hands can show:
    its seat's stream shows the last game (abandoned, the spectator's view) and `end`."""
    async with httpx.AsyncClient(base_url=in_process, timeout=30) as client:
        creator = await async_host(client)
        players = [{"name": "Ada"}, {"open": True}, {"open": True}]
        body = {"ruleset": "numwars-classic", "players": players}
        created = await client.post("/v1/games", json=body, headers=creator)
        assert created.status_code == 201, created.text
        game = created.json()
        path = f"/v1/games/{game['id']}/stream?view=true"
        token = game["seats"][0]["token"]
        async with client.stream("GET", path, headers=auth(token)) as stream:
            messages = sse(stream)
            assert json.loads((await next_message(messages))["data"])["status"] == "waiting"
            cancelled = await client.post(f"/v1/games/{game['id']}/abandon", headers=creator)
            assert cancelled.status_code == 200, cancelled.text
            async with asyncio.timeout(DELIVERY_SECONDS):
                rest = [m async for m in messages]
        assert [m["event"] for m in rest] == ["game", "end"], rest
        last = json.loads(rest[0]["data"])
        assert last["status"] == "abandoned" and last["view"].get("hand") is None
        assert rest[1]["data"] == "abandoned"


async def test_a_stream_whose_read_fails_ends_for_its_client_to_open_it_again(
    in_process: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read of the log that fails (the database lost) ends the stream as a shutdown does,
    `end` with the game's status, never a broken response; a warning says so, without the
    error's text."""
    seed = 42
    shadow = Match(registry.make("numking", {}), 3, seed)
    async with httpx.AsyncClient(base_url=in_process, timeout=30) as client:
        game = await create(client, "numking", 3, seed)
        opened = len(shadow.round_start_events())
        path = f"/v1/games/{game['id']}/stream"
        after = {"Last-Event-ID": str(opened)}
        original = GameService.events_for

        async def failing(self: GameService, *args: Any, **kwargs: Any) -> Any:
            if kwargs.get("since") is not None:  # the stream's reads after its first
                raise OSError("the database went away")
            return await original(self, *args, **kwargs)

        with _records("numrules.games") as records:
            async with client.stream("GET", path, headers=after) as stream:
                messages = sse(stream)
                monkeypatch.setattr(GameService, "events_for", failing)
                await random_step(client, game, shadow, random.Random(1))
                async with asyncio.timeout(DELIVERY_SECONDS):
                    rest = [m async for m in messages]
    assert rest[-1] == {"event": "end", "data": "active"}, rest
    said = [r.getMessage() for r in records if r.levelno == logging.WARNING]
    assert any("a stream's read failed (OSError)" in m for m in said), said
    assert not any("went away" in m for m in said)


# -- 4. stream tickets --------------------------------------------------------------------------


async def test_stream_tickets_are_single_use_per_game_and_never_logged(
    servers: list[Server],
) -> None:
    """A ticket opens one stream of its game, as its seat: a second use is 401, another game
    is 401, a ticket with a token is 422; no ticket and no token is in the servers' output,
    whose access log does show the requests (by route template, without the query)."""
    b = servers[1]
    async with httpx.AsyncClient(base_url=b.url, timeout=30) as client:
        x = await create(client, "numwin", 3, 35)
        y = await create(client, "numwin", 3, 36)
        tokens = [s["token"] for g in (x, y) for s in g["seats"]]
        seat = x["seats"][0]
        issued = []
        for _ in range(3):
            answer = await client.post(
                f"/v1/games/{x['id']}/stream-tickets", headers=auth(seat["token"])
            )
            assert answer.status_code == 201, answer.text
            body = answer.json()
            assert body["expires_in"] == 60 and len(body["ticket"]) >= 22
            issued.append(body["ticket"])
        assert len(set(issued)) == 3
        first, second, third = issued
        x_stream = f"/v1/games/{x['id']}/stream"
        # a ticket of X on Y: 401 (and it is not used up by that)
        wrong_game = await client.get(f"/v1/games/{y['id']}/stream", params={"ticket": second})
        assert wrong_game.status_code == 401, wrong_game.text
        assert wrong_game.json()["code"] == "unauthorized"
        # a ticket works once, as its seat: its own hidden draw shows
        shadow = Match(registry.make("numwin", {}), 3, 35)
        rng = random.Random(35)
        for _ in range(8):
            await random_step(client, x, shadow, rng)
        listed = await client.get(f"/v1/games/{x['id']}/events", headers=auth(seat["token"]))
        expected = listed.json()["events"]
        assert [e for e in expected if e["to"] == [0]], "seat 0 drew a card only it sees"
        async with client.stream("GET", x_stream, params={"ticket": first}) as stream:
            assert stream.status_code == 200
            messages = sse(stream)
            got = [json.loads((await next_message(messages))["data"]) for _ in expected]
        assert got == expected
        reused = await client.get(x_stream, params={"ticket": first})
        assert reused.status_code == 401 and reused.json()["code"] == "unauthorized"
        async with client.stream("GET", x_stream, params={"ticket": second}) as stream:
            assert stream.status_code == 200  # the ticket refused on Y still works on X
        both = await client.get(x_stream, params={"ticket": third}, headers=auth(seat["token"]))
        assert both.status_code == 422, both.text
        unknown = await client.get(x_stream, params={"ticket": "A" * 43})
        assert unknown.status_code == 401
    await asyncio.sleep(0.5)  # the access log lines of the last answers
    output = "\n".join(s.output() for s in servers)
    # the app's JSON access lines name the route template, never the path or its query
    assert '"route":"/v1/games/{game_id}/stream","status":401' in output, output[-2000:]
    assert '"route":"/v1/games/{game_id}/stream","status":200' in output
    assert "ticket=" not in output
    leaked = [t for t in [*issued, *tokens] if t in output]
    assert not leaked, f"{len(leaked)} secrets in the servers' output"


# -- stream wake-ups (in-process server, to slow its reads down) ---------------------------


@pytest.fixture
def in_process(pg_head: str) -> Iterator[str]:
    """An app of its own on the run's database, served by uvicorn in a thread of the tests'
    process, so a test can patch the code it runs; yields its base URL."""
    with serve(create_app(Settings(database_url=pg_head))) as (host, port):
        yield f"http://{host}:{port}"


async def test_an_action_during_a_slow_read_of_the_log_is_streamed_at_once(
    in_process: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every read of the stream's log slowed to 0.3 s (a busy database): a second action
    committed while the stream reads the log after the first still reaches it in seconds."""
    original = GameService.events_for

    async def slow_events_for(self: GameService, *args: Any, **kwargs: Any) -> Any:
        page = await original(self, *args, **kwargs)
        await asyncio.sleep(0.3)
        return page

    monkeypatch.setattr(GameService, "events_for", slow_events_for)
    seed = 40
    shadow = Match(registry.make("numking", {}), 3, seed)
    async with httpx.AsyncClient(base_url=in_process, timeout=30) as client:
        game = await create(client, "numking", 3, seed)
        token = game["seats"][0]["token"]
        path = f"/v1/games/{game['id']}/stream"
        opened = len(shadow.round_start_events())  # round 1's start and deals: skipped
        after = {**auth(token), "Last-Event-ID": str(opened)}
        async with client.stream("GET", path, headers=after) as stream:
            messages = sse(stream)
            sent = await random_step(client, game, shadow, random.Random(1))
            await asyncio.sleep(0.1)  # the stream is reading the log after the first
            sent += await random_step(client, game, shadow, random.Random(2))
            wanted = expected_events(sent, opened + 1, 0)
            got = []
            for _ in wanted:
                async with asyncio.timeout(5):
                    got.append(json.loads((await anext(messages))["data"]))
        assert got == wanted


async def test_keep_alives_are_comments_only(
    in_process: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An idle stream gets `: keep-alive` comment blocks, which EventSource ignores: no
    `data:` field (a block with one is dispatched as a message with empty data)."""
    monkeypatch.setattr(routes, "KEEP_ALIVE_SECONDS", 0.2)
    async with httpx.AsyncClient(base_url=in_process, timeout=30) as client:
        game = await create(client, "numking", 3, 41)
        token = game["seats"][0]["token"]
        path = f"/v1/games/{game['id']}/stream"
        idle = {**auth(token), "Last-Event-ID": "4"}  # after round 1's start and 3 deals
        async with client.stream("GET", path, headers=idle) as stream:
            blocks: list[list[str]] = [[]]
            async with asyncio.timeout(5):
                async for line in stream.aiter_lines():
                    if line:
                        blocks[-1].append(line)
                    elif blocks[-1]:
                        if len(blocks) == 2:
                            break
                        blocks.append([])
    assert blocks == [[": keep-alive"], [": keep-alive"]], blocks


async def test_a_stream_asked_to_close_says_close_once(in_process: str) -> None:
    """A stream requested with `Connection: close` answers one `Connection` header, `close`
    (the stream's own `keep-alive` once stood beside the server's `close`)."""
    async with httpx.AsyncClient(base_url=in_process, timeout=30) as client:
        game = await create(client, "numking", 3, 42)
    url = httpx.URL(in_process)
    reader, writer = await asyncio.open_connection(url.host, url.port)
    try:
        writer.write(
            f"GET /v1/games/{game['id']}/stream HTTP/1.1\r\nHost: {url.host}\r\n"
            "Connection: close\r\n\r\n".encode()
        )
        async with asyncio.timeout(10):
            head = await reader.readuntil(b"\r\n\r\n")
    finally:
        writer.close()
    lines = head.decode("latin-1").lower().split("\r\n")
    assert lines[0].startswith("http/1.1 200"), lines[0]
    assert [line for line in lines if line.startswith("connection:")] == ["connection: close"]


# -- 5. a server killed mid-play ----------------------------------------------------------------


def play(
    url: str,
    game_id: str,
    tokens: list[str],
    answered: list[tuple[int, int, Any]],
    posting: threading.Event,
) -> list[str]:
    """Random legal actions, each from its seat's own view, until the server goes away;
    `answered` gets (version, seat, action) of each 200; `posting` is set while an action is
    on its way. Returns the unexpected answers."""
    rng = random.Random(37)
    unexpected: list[str] = []
    with httpx.Client(base_url=url, timeout=10) as client:
        while True:
            try:
                spectator = client.get(f"/v1/games/{game_id}").json()
                seat = rng.choice(spectator["view"]["actors"])
                mine = client.get(f"/v1/games/{game_id}", headers=auth(tokens[seat])).json()
                action = rng.choice(mine["view"]["legal_actions"])
                posting.set()
                answer = client.post(
                    f"/v1/games/{game_id}/actions", json=action, headers=auth(tokens[seat])
                )
                posting.clear()
            except (httpx.TransportError, json.JSONDecodeError):
                return unexpected
            if answer.status_code == 200:
                answered.append((answer.json()["version"], seat, action))
            else:
                unexpected.append(answer.text)


def test_a_server_killed_mid_play_loses_no_answered_action(pg_head: str, tmp_path: Path) -> None:
    """SIGKILL while a client plays: after a restart on the same database every action that
    was answered 200 is in the log (at most one more, applied but never answered), the game
    goes on, and its export replays to exactly the views the server shows."""
    server = Server(pg_head, tmp_path / "crash.log").start()
    try:
        with httpx.Client(base_url=server.url, timeout=10) as host_client:
            created = host_client.post(
                "/v1/games",
                json={"ruleset": "numking", "players": PLAYERS3, "seed": 37},
                headers=host(host_client),
            )
        assert created.status_code == 201
        game_id = created.json()["id"]
        tokens = [s["token"] for s in created.json()["seats"]]
        answered: list[tuple[int, int, Any]] = []
        unexpected: list[str] = []
        posting = threading.Event()
        player = threading.Thread(
            target=lambda: unexpected.extend(play(server.url, game_id, tokens, answered, posting))
        )
        player.start()
        deadline = time.monotonic() + 60
        while len(answered) < 30:
            assert player.is_alive() and time.monotonic() < deadline, unexpected
            time.sleep(0.005)
        posting.wait(10)  # an action on its way: killed before, during or after its commit
        time.sleep(random.Random().uniform(0, 0.004))
        server.kill()
        player.join(20)
        assert not player.is_alive() and not unexpected, unexpected
        server.start()  # a new process, a new port, the same database
        count = len(answered)
        assert [v for v, _, _ in answered] == list(range(1, count + 1))
        base = f"{server.url}/v1/games/{game_id}"
        with httpx.Client(timeout=10) as client:
            version = client.get(base).json()["version"]
            assert count <= version <= count + 1, (count, version)
            for _ in range(5):  # the game goes on from where the log stands
                spectator = client.get(base).json()
                seat = spectator["view"]["actors"][0]
                mine = client.get(base, headers=auth(tokens[seat])).json()
                action = mine["view"]["legal_actions"][0]
                answer = client.post(f"{base}/actions", json=action, headers=auth(tokens[seat]))
                assert answer.status_code == 200, answer.text
                version += 1
                assert answer.json()["version"] == version
                answered.append((version, seat, action))

            def views() -> dict[int | None, Any]:
                return {
                    v: client.get(base, headers={} if v is None else auth(tokens[v])).json()
                    for v in [None, 0, 1, 2]
                }

            playing = views()
            assert client.post(f"{base}/abandon", headers=auth(tokens[0])).status_code == 200
            abandoned = views()
            export = client.get(f"{base}/export")
            assert export.status_code == 200
        actions = export.json()["actions"]
        assert [a["seq"] for a in actions] == list(range(1, version + 1))
        for seq, seat, action in answered:
            assert actions[seq - 1] == {"seq": seq, "seat": seat, "action": action}
        again = replay(MatchRecord.from_export(export.text))
        for viewer in [None, 0, 1, 2]:
            assert abandoned[viewer]["status"] == "abandoned"
            assert abandoned[viewer]["version"] == version
            assert builtins(again.view(viewer)) == playing[viewer]["view"]
            # abandoned: the same view, with nobody left to act
            stopped = {"current_player": None, "actors": []}
            stopped["legal_actions"] = None if viewer is None else []
            assert abandoned[viewer]["view"] == {**playing[viewer]["view"], **stopped}
    finally:
        server.stop()
    output = server.output()
    assert "Application startup complete" in output
    assert not [t for t in tokens if t in output]


async def burst_player(
    url: str,
    game_id: str,
    tokens: list[str],
    answered: list[tuple[int, int, Any]],
    unexpected: list[str],
    seed: int,
) -> None:
    """`play` for one game of a burst, over asyncio, until the server goes away."""
    rng = random.Random(seed)
    async with httpx.AsyncClient(base_url=url, timeout=10) as client:
        while True:
            try:
                seen = await client.get(f"/v1/games/{game_id}")
                if seen.status_code != 200:
                    unexpected.append(f"{seen.status_code} {seen.text}")
                    return
                spectator = seen.json()
                if not spectator["view"]["actors"]:
                    return  # over (never, in the seconds this lasts)
                seat = rng.choice(spectator["view"]["actors"])
                seen = await client.get(f"/v1/games/{game_id}", headers=auth(tokens[seat]))
                if seen.status_code != 200:
                    unexpected.append(f"{seen.status_code} {seen.text}")
                    return
                action = rng.choice(seen.json()["view"]["legal_actions"])
                answer = await client.post(
                    f"/v1/games/{game_id}/actions", json=action, headers=auth(tokens[seat])
                )
            except (httpx.TransportError, json.JSONDecodeError):
                return
            if answer.status_code == 200:
                answered.append((answer.json()["version"], seat, action))
            else:
                unexpected.append(answer.text)


def warned(server: Server) -> list[str]:
    """The server's warning and error lines so far (why it answered what it did)."""
    return [line for line in server.output().splitlines() if '"WARNING"' in line or "ERROR" in line]


async def _logs(url: str, games: list[str]) -> dict[str, list[tuple[int, int, Any]]]:
    """Each game's log (seq, seat, action), read apart from the server."""
    dsn = asyncpg_dsn(url)
    conn = await asyncpg.connect(dsn)
    try:
        rows = await conn.fetch(
            "SELECT game_id, seq, seat, action::text FROM game_actions"
            " WHERE game_id = ANY($1::varchar[]) ORDER BY game_id, seq",
            games,
        )
    finally:
        await conn.close()
    logs: dict[str, list[tuple[int, int, Any]]] = {g: [] for g in games}
    for r in rows:
        stored = json.loads(r["action"])
        assert stored.pop("v") == 1  # the stored format's version, then the action as posted
        logs[r["game_id"]].append((r["seq"], r["seat"], stored))
    return logs


@pytest.mark.parametrize(
    ("group_commit_ms", "hot_actions"),
    [("0", "false"), ("2", "false"), ("1", "true")],
    ids=["locked-alone", "locked-shared-commits", "hot-actions"],
)
def test_a_server_killed_during_a_sixteen_game_burst_loses_no_answered_action(
    pg_head: str, tmp_path: Path, group_commit_ms: str, hot_actions: str
) -> None:
    """SIGKILL while 16 games are played at once (issue 27: every action on the locked path,
    each committing alone or with shared commits, `NUMRULES_GROUP_COMMIT_MS`, the batches of
    several games' actions answered only after their one COMMIT; or, as served by default,
    hot actions, each one statement in autocommit, `NUMRULES_HOT_ACTIONS`, several games'
    in one statement when they come while one is under way): after a restart
    on the same database every action answered 200 is in its game's log at the version it
    was answered with, no action is there twice, each game holds at most the one action that
    was on its way unanswered, and every game goes on."""
    server = Server(
        pg_head,
        tmp_path / "burst.log",
        NUMRULES_GROUP_COMMIT_MS=group_commit_ms,
        NUMRULES_HOT_ACTIONS=hot_actions,
        NUMRULES_DB_POOL_SIZE="10",  # as served by default
    ).start()
    count = 16

    async def burst() -> tuple[list[str], list[list[str]], list[list[Any]], list[str]]:
        async with httpx.AsyncClient(base_url=server.url, timeout=10) as client:
            created = [await create(client, "numking", 3, 900 + g) for g in range(count)]
        games = [c["id"] for c in created]
        tokens = [[s["token"] for s in c["seats"]] for c in created]
        answered: list[list[Any]] = [[] for _ in games]
        unexpected: list[str] = []
        players = [
            asyncio.create_task(burst_player(server.url, g, t, a, unexpected, seed=g_index))
            for g_index, (g, t, a) in enumerate(zip(games, tokens, answered, strict=True))
        ]
        deadline = time.monotonic() + 60
        while min(len(a) for a in answered) < 8:
            assert time.monotonic() < deadline and not unexpected, (unexpected, warned(server))
            assert not any(p.done() for p in players), (unexpected, warned(server))
            await asyncio.sleep(0.005)
        await asyncio.sleep(random.Random().uniform(0, 0.004))
        server.kill()  # actions on their way: killed before, during or after their commits
        await asyncio.wait_for(asyncio.gather(*players), 30)
        return games, tokens, answered, unexpected

    try:
        games, tokens, answered, unexpected = asyncio.run(burst())
        assert not unexpected, unexpected
        server.start()  # a new process, a new port, the same database
        logs = asyncio.run(_logs(pg_head, games))
        with httpx.Client(base_url=server.url, timeout=10) as client:
            for game_id, seat_tokens, mine in zip(games, tokens, answered, strict=True):
                log = logs[game_id]
                assert [v for v, _, _ in mine] == list(range(1, len(mine) + 1))
                assert [seq for seq, _, _ in log] == list(range(1, len(log) + 1))
                assert len(mine) <= len(log) <= len(mine) + 1, (game_id, len(mine), len(log))
                assert log[: len(mine)] == mine  # each answered action, once, where answered
                version = client.get(f"/v1/games/{game_id}").json()["version"]
                assert version == len(log)
                seat = client.get(f"/v1/games/{game_id}").json()["view"]["actors"][0]
                view = client.get(f"/v1/games/{game_id}", headers=auth(seat_tokens[seat]))
                action = view.json()["view"]["legal_actions"][0]
                moved = client.post(
                    f"/v1/games/{game_id}/actions", json=action, headers=auth(seat_tokens[seat])
                )
                assert moved.status_code == 200, moved.text
                assert moved.json()["version"] == version + 1
    finally:
        server.stop()
    output = server.output()
    assert "Application startup complete" in output
    assert "Traceback" not in output


# -- 6. a fault before the commit ---------------------------------------------------------------


async def _database_rows(url: str, game_id: str) -> tuple[int, int, int]:
    """(actions, events, idempotency keys) stored for the game, read apart from the app."""
    dsn = asyncpg_dsn(url)
    conn = await asyncpg.connect(dsn)
    try:
        counts = [
            await conn.fetchval(f"SELECT count(*) FROM {table} WHERE game_id = $1", game_id)
            for table in ("game_actions", "game_events", "idempotency_keys")
        ]
    finally:
        await conn.close()
    return counts[0], counts[1], counts[2]


def test_a_fault_before_the_commit_changes_nothing(
    games: Any, games_app: Litestar, pg_head: str
) -> None:
    """`before_commit` raising: the action answers a 500 problem and leaves the version, the
    events, the rows and the views as they were (no cached match changed either); without
    the fault the same action, with the same Idempotency-Key, is applied as the engine does."""
    store = games_app.state.games
    rng = random.Random(38)
    table = Table(games, "numking", 3, 38)
    for _ in range(4):
        table.step(rng)
    seat = table.shadow.actors()[0]
    action = table.view(seat)["view"]["legal_actions"][-1]
    before = {v: table.get("", v).json() for v in [None, 0, 1, 2]}
    events_before = {v: table.get("/events", v).json() for v in [None, 0, 1, 2]}
    rows = asyncio.run(_database_rows(pg_head, table.id))
    assert rows[0] == 4

    def fault() -> None:
        raise RuntimeError("injected before the commit")

    headers = {"Idempotency-Key": "fault-1"}
    store.before_commit = fault
    try:
        for _ in range(2):
            failed = table.post("/actions", seat, json=action, headers=headers)
            assert failed.status_code == 500, failed.text
            assert failed.headers["content-type"].startswith("application/problem+json")
            assert failed.json()["code"] == "internal-error"
            assert "injected" not in failed.text
    finally:
        store.before_commit = None
    assert asyncio.run(_database_rows(pg_head, table.id)) == rows
    for viewer in [None, 0, 1, 2]:
        assert table.get("", viewer).json() == before[viewer]
        assert table.get("/events", viewer).json() == events_before[viewer]
    table.view(seat)  # still the shadow's view before the action
    # the same action now goes through, applied once, as the engine applies it
    events = table.shadow.apply(seat, msgspec.convert(action, Action))
    applied = table.post("/actions", seat, json=action, headers=headers)
    assert applied.status_code == 200, applied.text
    assert "idempotent-replayed" not in applied.headers
    table.version += 1
    assert applied.json()["version"] == table.version == 5
    assert applied.json()["events"] == expected_events(events, table.event_seq + 1, seat)
    table.event_seq += len(events)
    table.check_viewers()
    actions, stored_events, keys = asyncio.run(_database_rows(pg_head, table.id))
    assert (actions, stored_events, keys) == (5, rows[1] + len(events), rows[2] + 1)


# -- 7. SQLite ----------------------------------------------------------------------------------


def test_a_whole_match_on_sqlite(sqlite_url: str) -> None:
    """The embedded database: migrated, then a whole numwars-classic match for three players
    through HTTP, every answer held to the engine, to its result; the export replays to it."""
    migrations.upgrade(sqlite_url)
    app = create_app(Settings(database_url=sqlite_url))
    with TestClient(app) as client:
        table = Table(client, "numwars-classic", 3, 39)
        final = table.play_out(random.Random(39), every=50)
        assert final["status"] == "over" and final["result"]["winners"]
        export = table.get("/export")
        assert export.status_code == 200
        again = replay(MatchRecord.from_export(export.text))
        assert builtins(again.result()) == final["result"]
        assert len(export.json()["actions"]) == table.version


@contextlib.contextmanager
def _records(name: str) -> Iterator[list[logging.LogRecord]]:
    """The records of logger `name` at DEBUG, by a handler of its own (the app's start
    replaces the root logger's handlers, pytest's capture among them)."""
    records: list[logging.LogRecord] = []
    handler = logging.Handler(logging.DEBUG)
    handler.emit = records.append  # type: ignore[method-assign]
    logger = logging.getLogger(name)
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        yield records
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def test_the_round_progress_on_sqlite(sqlite_url: str) -> None:
    """The embedded database's writes (SQLAlchemy's statement, not PostgreSQL's one): round 1's
    checkpoint at creation, the round's progress every `PROGRESS_EVERY` actions, cleared by
    the action that starts the next round; a cold load resumes from them."""
    import sqlite3

    migrations.upgrade(sqlite_url)
    app = create_app(Settings(database_url=sqlite_url))
    database = sqlite_url.split(":///", 1)[1]

    def stored(game_id: str) -> tuple[Any, Any]:
        with contextlib.closing(sqlite3.connect(database)) as db:
            row = db.execute(
                "SELECT checkpoint, progress FROM games WHERE id = ?", (game_id,)
            ).fetchone()
        return json.loads(row[0]), row[1] and json.loads(row[1])

    with TestClient(app) as client, _records("numrules.games") as records:
        table = Table(client, "numwars-classic", 3, 39)
        rng = random.Random(39)
        assert stored(table.id) == (json.loads(encode_checkpoint(table.shadow.checkpoint())), None)
        while table.version < PROGRESS_EVERY + 2:
            table.step(rng)
        checkpoint, progress = stored(table.id)
        assert checkpoint["actions"] == 0 and progress["actions"] == 0
        assert len(progress["played"]) == PROGRESS_EVERY
        app.state.games._cache.clear()
        table.check_viewers()
        assert any(
            f"{PROGRESS_EVERY} actions from its checkpoint and 2 from the log" in r.getMessage()
            for r in records
        ), records
        while table.shadow.index < 1:
            table.step(rng)
        checkpoint, progress = stored(table.id)
        assert checkpoint["actions"] == table.version and progress is None
        table.step(rng, check_all=True)


async def test_streams_of_one_game_share_their_reads_of_the_log(pg_head: str) -> None:
    """Thirty spectator streams on one game, woken by one action: every stream gets the
    action's events, and they read the log together, not once each (980 streams once made
    one action cost 980 reads and a GET 1.6 s; found by attacking the server)."""
    app = create_app(Settings(database_url=pg_head))
    seed = 41
    shadow = Match(registry.make("numking", {}), 3, seed)
    with serve(app) as (host, port):
        async with httpx.AsyncClient(base_url=f"http://{host}:{port}", timeout=30) as client:
            game = await create(client, "numking", 3, seed)
            path = f"/v1/games/{game['id']}/stream"
            opened = len(shadow.round_start_events())  # round 1's start and deals: skipped
            after = {"Last-Event-ID": str(opened)}
            async with contextlib.AsyncExitStack() as stack:
                streams = [
                    await stack.enter_async_context(client.stream("GET", path, headers=after))
                    for _ in range(30)
                ]
                messages = [sse(s) for s in streams]
                await asyncio.sleep(0.5)  # every stream has read the (empty) log and waits
                store = app.state.games
                before = store.shared_reads
                sent = await random_step(client, game, shadow, random.Random(1))
                wanted = expected_events(sent, opened + 1, None)
                got = await asyncio.gather(
                    *(asyncio.gather(*(next_message(m) for _ in wanted)) for m in messages)
                )
                reads = store.shared_reads - before
    for received in got:
        assert [json.loads(m["data"]) for m in received] == wanted
    assert 1 <= reads <= 5, reads
