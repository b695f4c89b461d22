"""A hot action announced to the event streams of the process that committed it
(api.games.fanout `Fanout.announce`, `GameService._announce`), on PostgreSQL, served for real.

The streams of that process are handed what their next read of the log would find (the game's
row after the action, its events), instead of reading it, and the commit's own NOTIFY (its
payload names the version) wakes nobody there. What they are handed must be what the database
holds, column for column, at every action, clocked games included; another process's actions
(hot ones, whose NOTIFY names a version this process never announced, and locked ones) still
reach them, in order, each version shown once; a notification lost on the way costs a delay
(the streams' keep-alive read), not a version.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest

from api.app import create_app
from api.games import routes
from api.games.formats import stored_event_out
from api.games.repository import UNREAD_COLUMNS
from api.ops.settings import Settings
from engine import registry
from engine.core.match import Match
from tests.api.serving import serve
from tests.games.test_served import act, auth, create, game_messages, sse
from tests.pg import asyncpg_dsn

#: The columns a read of a game takes that a write does not set as this process sees them:
#: the database's clocks.
_CLOCKS = {"updated_at", "db_now"}


async def _stored(conn: Any, game_id: str, after: int) -> tuple[dict[str, Any], list[Any]]:
    """The game's row (its JSON columns decoded, as the service's reads decode them) and its
    event rows after `after`, read straight from the database."""
    for kind in ("json", "jsonb"):
        await conn.set_type_codec(kind, encoder=json.dumps, decoder=json.loads, schema="pg_catalog")
    row = dict(await conn.fetchrow("SELECT * FROM games WHERE id = $1", game_id))
    events = await conn.fetch(
        "SELECT seq, visibility, payload FROM game_events WHERE game_id = $1 AND seq > $2 "
        "ORDER BY seq",
        game_id,
        after,
    )
    return row, [(e["seq"], e["visibility"], e["payload"]) for e in events]


def _check_written(written: Any, row: dict[str, Any], events: list[Any]) -> None:
    game, rows, decoded = written.read
    handed = game._asdict()
    for name, value in row.items():
        if name in _CLOCKS or name in UNREAD_COLUMNS:  # not read
            continue
        assert handed[name] == value, (name, handed[name], value)
    assert [(r.seq, r.visibility, r.payload) for r in rows] == events
    assert [msgspec.to_builtins(e) for e in decoded] == [
        msgspec.to_builtins(stored_event_out(seq, payload)) for seq, _, payload in events
    ]


def _late_notifications(fanout: Any, delay: float = 0.3) -> None:
    """The fanout's NOTIFYs handled `delay` s late, so that each hot action's own comes after
    its announcement."""
    handle = fanout._on_notify

    def late(*args: Any) -> None:
        asyncio.get_running_loop().call_later(delay, handle, *args)

    fanout._on_notify = late


def _notifications_first(store: Any) -> None:
    """Each hot write's answer held until the fanout has handled its own NOTIFY (its payload
    names the game and the version written), as happens by itself about two times in three at
    16 games: the NOTIFY must not wake the streams (they would read what they are about to be
    handed)."""
    fanout, handle, write = store.fanout, store.fanout._on_notify, store.repository.append_hot
    handled: set[str] = set()
    arrived = asyncio.Event()

    def noted(*args: Any) -> None:
        handle(*args)
        handled.add(args[-1])
        arrived.set()

    async def held(row: Any, move: Any, digest: str) -> bool:
        done = bool(await write(row, move, digest))
        async with asyncio.timeout(10):
            while done and f"{row.id} {row.version + 1}" not in handled:
                arrived.clear()
                await arrived.wait()
        return done

    fanout._on_notify = noted
    store.repository.append_hot = held


async def _listening(fanout: Any, game_id: str, store: Any = None) -> None:
    """Until the process LISTENs on the game's channel, and the read that LISTEN's own
    wake-up makes its streams do is over: with `store`, until no shared read is under way
    and none began for 0.3 s (a fixed 0.1 s was once too short on a loaded machine, and
    that read was counted among the actions')."""
    async with asyncio.timeout(10):
        while game_id not in fanout.listening:
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.1)
        if store is None:
            return
        seen = -1
        while store.shared_reads != seen or store._flights:
            seen = store.shared_reads
            await asyncio.sleep(0.3)


@contextlib.asynccontextmanager
async def _two_processes(
    pg_head: str,
) -> AsyncIterator[tuple[Any, httpx.AsyncClient, httpx.AsyncClient, str]]:
    """Two processes, A and B, on one database, served for real: A's app, a client of each
    and B's base URL."""
    first, second = (create_app(Settings(database_url=pg_head)) for _ in range(2))
    with serve(first) as (host_a, port_a), serve(second) as (host_b, port_b):
        base_b = f"http://{host_b}:{port_b}"
        async with (
            httpx.AsyncClient(base_url=f"http://{host_a}:{port_a}", timeout=30) as on_a,
            httpx.AsyncClient(base_url=base_b, timeout=30) as on_b,
        ):
            yield first, on_a, on_b, base_b


@contextlib.asynccontextmanager
async def _stream(
    client: httpx.AsyncClient, game_id: str, token: str | None
) -> AsyncIterator[AsyncIterator[dict[str, str]]]:
    headers = {} if token is None else auth(token)
    path = f"/v1/games/{game_id}/stream?view=true"
    async with client.stream("GET", path, headers=headers) as response:
        assert response.status_code == 200
        yield sse(response)


@pytest.mark.parametrize("notified", ["late", "first"])
@pytest.mark.parametrize("clocked", [False, True], ids=["plain", "clocked"])
async def test_a_hot_action_is_handed_to_its_processs_streams_as_stored(
    pg_head: str, clocked: bool, notified: str
) -> None:
    """Twenty actions of a Num Wars game, each answered by the process its streams are on: a
    seat's stream and a spectator's show each version's events and game (what `GET` answers
    them), none of them reads the log (`shared_reads` stays put), and what they were handed
    is the database's row and events at that version; whether each action's own NOTIFY
    reaches the process after its announcement (`late`) or before the statement's answer
    (`first`: before `Fanout.pending`, each of them woke the streams to read the log)."""
    app = create_app(Settings(database_url=pg_head))
    seed = 61
    shadow = Match(registry.make("numwars", {}), 4, seed)
    with serve(app) as (host, port):
        async with httpx.AsyncClient(base_url=f"http://{host}:{port}", timeout=30) as client:
            body: dict[str, Any] = {
                "ruleset": "numwars",
                "players": [{"name": f"P{i}"} for i in range(4)],
                "seed": seed,
            }
            if clocked:  # each action moves the deadlines
                body["clock"] = {"turn_seconds": 3600, "on_timeout": "auto"}
            created = await client.post("/v1/games", json=body)
            assert created.status_code == 201, created.text
            game = created.json()
            game_id, tokens = game["id"], [s["token"] for s in game["seats"]]
            store = app.state.games
            if notified == "late":
                _late_notifications(store.fanout)
            else:
                _notifications_first(store)
            conn = await asyncpg.connect(asyncpg_dsn(pg_head))
            try:
                async with (
                    _stream(client, game_id, tokens[0]) as seat0,
                    _stream(client, game_id, None) as spectator,
                ):
                    first = [await game_messages(m, 0) for m in (seat0, spectator)]
                    opened = first[0][0][-1]["seq"]  # the round's start and deals
                    for token in tokens:  # each seat's view read once: its token known here
                        got = await client.get(f"/v1/games/{game_id}", headers=auth(token))
                        assert got.status_code == 200, got.text
                    await _listening(store.fanout, game_id, store)
                    before = store.shared_reads
                    streamed: dict[str | None, list[Any]] = {tokens[0]: [], None: []}
                    for version in range(1, 21):
                        seat = shadow.actors()[0]
                        action = shadow.legal_actions(seat)[0]
                        await act(client, game_id, tokens[seat], shadow, seat, action)
                        written = store.fanout.written[game_id]
                        row, events = await _stored(conn, game_id, written.after)
                        assert row["version"] == version
                        _check_written(written, row, events)
                        for token, messages in ((tokens[0], seat0), (None, spectator)):
                            sent, shown = await game_messages(messages, version)
                            streamed[token] += sent
                            headers = {} if token is None else auth(token)
                            got = await client.get(f"/v1/games/{game_id}", headers=headers)
                            assert shown == got.json()
                    assert store.shared_reads == before  # no stream read the log
                    assert store.fanout.announced[game_id] == 20
                    for token, sent in streamed.items():  # every event, once, in order
                        headers = {} if token is None else auth(token)
                        path = f"/v1/games/{game_id}/events?after={opened}"
                        logged = (await client.get(path, headers=headers)).json()["events"]
                        assert sent == logged and logged
                for _ in range(100):  # the streams gone, their game's entries go with them
                    if not store.fanout.watched(game_id):
                        break
                    await asyncio.sleep(0.05)
                for kept in (store.fanout.announced, store.fanout.written, store.fanout.rows):
                    assert game_id not in kept
            finally:
                await conn.close()


async def test_a_wake_up_during_a_hot_write_is_not_hidden_by_it(
    pg_head: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game abandoned (by another replica) after a hot action's statement committed and
    before the process announced it, the abandon's wake-up come first: the action is not
    handed to the streams (it would hide the abandon until their 15 s keep-alive read, the
    wake-up cleared by the handed read): they read the log, and end at once."""
    app = create_app(Settings(database_url=pg_head))
    seed = 63
    shadow = Match(registry.make("numwars", {}), 4, seed)
    with serve(app) as (host, port):
        async with httpx.AsyncClient(base_url=f"http://{host}:{port}", timeout=30) as client:
            game = await create(client, "numwars", 4, seed)
            game_id, tokens = game["id"], [s["token"] for s in game["seats"]]
            store = app.state.games
            _late_notifications(store.fanout)  # the action's own NOTIFY comes after all this
            for token in tokens:
                assert (await client.get(f"/v1/games/{game_id}", headers=auth(token))).is_success
            written = store.repository.append_hot

            async def abandoned_meanwhile(row: Any, move: Any, digest: str) -> bool:
                done = await written(row, move, digest)  # committed: then another commit
                other = await asyncpg.connect(asyncpg_dsn(pg_head))
                try:  # as another replica abandons it (the game keeps its version)
                    await other.execute(
                        "UPDATE games SET status = 'abandoned' WHERE id = $1", game_id
                    )
                finally:
                    await other.close()
                store.fanout.publish(game_id)  # its wake-up, come before the announcement
                return bool(done)  # the streams have not run since: `_announce` follows

            async with _stream(client, game_id, None) as spectator:
                await game_messages(spectator, 0)
                await _listening(store.fanout, game_id)
                seat = shadow.actors()[0]
                await act(
                    client, game_id, tokens[seat], shadow, seat, shadow.legal_actions(seat)[0]
                )
                assert (
                    store.fanout.written.get(game_id) is None
                    or store.fanout.written[game_id].after != 0
                )
                monkeypatch.setattr(store.repository, "append_hot", abandoned_meanwhile)
                seat = shadow.actors()[0]
                await act(
                    client, game_id, tokens[seat], shadow, seat, shadow.legal_actions(seat)[0]
                )
                messages: list[dict[str, str]] = []
                async with asyncio.timeout(8):  # well within the 15 s keep-alive
                    while not messages or messages[-1].get("event") != "end":
                        messages.append(await anext(spectator))
                games = [json.loads(m["data"]) for m in messages if m.get("event") == "game"]
                assert games[-1]["status"] == "abandoned", games


async def test_another_processs_actions_still_reach_the_streams(pg_head: str) -> None:
    """A stream on A while the game's actions go to A (hot, announced), then to B (its first
    action locked, the next ones hot: their NOTIFY names versions A never announced), then to
    A again (whose cached match is behind: locked, then hot): the stream shows every version
    once and in order, each as `GET` answers it on A."""
    seed = 62
    shadow = Match(registry.make("numwars", {}), 4, seed)
    rng = random.Random(seed)
    async with _two_processes(pg_head) as (first, on_a, on_b, _base_b):
        game = await create(on_a, "numwars", 4, seed)
        game_id, tokens = game["id"], [s["token"] for s in game["seats"]]
        for client in (on_a, on_b):  # each seat's token known to both processes
            for token in tokens:
                got = await client.get(f"/v1/games/{game_id}", headers=auth(token))
                assert got.status_code == 200, got.text
        async with _stream(on_a, game_id, None) as spectator:
            await game_messages(spectator, 0)
            await asyncio.sleep(0.3)
            version = 0
            for client, count in ((on_a, 4), (on_b, 5), (on_a, 4), (on_b, 1), (on_a, 2)):
                for _ in range(count):
                    seat = rng.choice(shadow.actors())
                    action = rng.choice(shadow.legal_actions(seat))
                    await act(client, game_id, tokens[seat], shadow, seat, action)
                    version += 1
                    _, shown = await game_messages(spectator, version)
                    assert shown == (await on_a.get(f"/v1/games/{game_id}")).json()
            assert first.state.games.fanout.announced[game_id] == version  # A's last: hot


@pytest.mark.parametrize("where", ["another process", "this process, locked"])
async def test_a_lost_notification_costs_a_delay_not_a_version(
    pg_head: str, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """The actions whose only wake-up on A is their NOTIFY (another process's; A's own locked
    ones: a game's first action, its seats' tokens not yet seen there): one that never reaches
    A (a LISTEN connection's notification lost) leaves A's stream to its next keep-alive
    read, which shows that version; then it goes on, every version once and in order, each as
    `GET` answers it on A. With a keep-alive longer than the wait, the stream shows nothing:
    the keep-alive read is what makes up for the lost wake-up (the fanout's docstring)."""
    monkeypatch.setattr(routes, "KEEP_ALIVE_SECONDS", 1.0)
    seed = 63
    shadow = Match(registry.make("numwars", {}), 4, seed)
    async with _two_processes(pg_head) as (first, on_a, on_b, _base_b):
        game = await create(on_a, "numwars", 4, seed)
        game_id, tokens = game["id"], [s["token"] for s in game["seats"]]
        store = first.state.games
        lost: list[str] = []
        handle = store.fanout._on_notify

        def losing_the_first(*args: Any) -> None:  # before the LISTEN: it takes this one
            if not lost:
                lost.append(args[-1])
                return
            handle(*args)

        store.fanout._on_notify = losing_the_first
        client = on_b if where == "another process" else on_a
        async with _stream(on_a, game_id, None) as spectator:
            await game_messages(spectator, 0)
            await _listening(store.fanout, game_id, store)
            for version in (1, 2, 3):
                seat = shadow.actors()[0]
                action = shadow.legal_actions(seat)[0]
                await act(client, game_id, tokens[seat], shadow, seat, action)
                _, shown = await game_messages(spectator, version)
                assert shown == (await on_a.get(f"/v1/games/{game_id}")).json()
                assert [p.partition(" ")[0] for p in lost] == [game_id]
            assert store.fanout.announced.get(game_id) is None  # no hot action of A's


async def test_a_notification_of_the_version_a_refused_hot_write_was_writing_still_wakes(
    pg_head: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A's hot write of version 1 under way when B commits version 1 (the same seat's same
    action, sent to B): A ignores B's NOTIFY of version 1 (its own write names that version,
    `Fanout.pending`), then its write is refused (the game moved) and A's streams read the
    log at once (`Fanout.written_or_not`): the stream shows B's version 1 long before its
    keep-alive read (60 s here), as `GET` answers it on A; A answers its request for the game
    as it stands (a conflict)."""
    monkeypatch.setattr(routes, "KEEP_ALIVE_SECONDS", 60.0)
    seed = 64
    shadow = Match(registry.make("numwars", {}), 4, seed)
    async with _two_processes(pg_head) as (first, on_a, on_b, base_b):
        game = await create(on_a, "numwars", 4, seed)
        game_id, tokens = game["id"], [s["token"] for s in game["seats"]]
        for client in (on_a, on_b):  # each seat's token known to both: both act hot
            for token in tokens:
                got = await client.get(f"/v1/games/{game_id}", headers=auth(token))
                assert got.status_code == 200, got.text
        store = first.state.games
        payloads: list[str] = []
        handle = store.fanout._on_notify

        def noted(*args: Any) -> None:  # before the LISTEN: it takes this one
            payloads.append(args[-1])
            handle(*args)

        store.fanout._on_notify = noted
        seat = shadow.actors()[0]
        action = shadow.legal_actions(seat)[0]
        body = msgspec.to_builtins(action)
        write = store.repository.append_hot
        pending: list[int | None] = []

        async def moved_meanwhile(row: Any, move: Any, digest: str) -> bool:
            async with httpx.AsyncClient(base_url=base_b) as b:
                path = f"/v1/games/{game_id}/actions"
                done = await b.post(path, json=body, headers=auth(tokens[seat]))
                assert done.status_code == 200, done.text
            async with asyncio.timeout(10):
                while not payloads:
                    await asyncio.sleep(0.01)
            pending.append(store.fanout.pending.get(game_id))
            return bool(await write(row, move, digest))

        async with _stream(on_a, game_id, None) as spectator:
            await game_messages(spectator, 0)
            await _listening(store.fanout, game_id, store)
            monkeypatch.setattr(store.repository, "append_hot", moved_meanwhile)
            refused = await on_a.post(
                f"/v1/games/{game_id}/actions", json=body, headers=auth(tokens[seat])
            )
            assert refused.status_code == 409, refused.text
            assert payloads == [f"{game_id} 1"]  # B's hot action, A's write's version
            assert pending == [1]  # so A ignored it
            _, shown = await game_messages(spectator, 1)  # within 10 s, not 60
            assert shown == (await on_a.get(f"/v1/games/{game_id}")).json()
