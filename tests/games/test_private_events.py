"""Each seat's own private events on its stream (issue 23): a client that only reads its
Server-Sent Events, and never GETs the game, knows its hand through a whole round — round
1's `round-start` and its `deal` first, then what it passed and received in the exchange and
what it played, then round 2's deal — while no other seat's stream, and no spectator's, ever
carries a card hidden from that viewer. Served for real (a server process) on PostgreSQL."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack
from typing import Any

import httpx
import msgspec
import pytest

from engine import registry
from engine.core.match import Match
from tests.engine.test_invariants import _hidden, _strings, _unique_codes
from tests.games.host import async_host
from tests.games.test_served import Server, next_message, sse


@pytest.fixture(scope="module")
def server(pg_head: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    started = Server(pg_head, tmp_path_factory.mktemp("private") / "server.log").start()
    try:
        yield started
    finally:
        started.stop()


class StreamClient:
    """A seat (or a spectator: `seat` None) that learns the game from its stream alone: its
    hand is the `deal` of the round, less what it passed and played, plus what it received."""

    def __init__(self, seat: int | None, messages: AsyncIterator[dict[str, str]]) -> None:
        self.seat = seat
        self.messages = messages
        self.events: list[dict[str, Any]] = []
        self.hand: Counter[str] = Counter()
        self.round = 0

    async def read(self, count: int) -> list[dict[str, Any]]:
        got = []
        for _ in range(count):
            message = await next_message(self.messages)
            event = json.loads(message["data"])
            assert message["id"] == str(event["seq"]) and message["event"] == event["kind"]
            got.append(event)
            self.follow(event)
        self.events += got
        return got

    def follow(self, event: dict[str, Any]) -> None:
        kind, data, mine = event["kind"], event["data"], event["seat"] == self.seat
        if kind == "round-start":
            self.round = data["round"]
            self.hand = Counter()
        elif kind == "deal":
            assert mine and event["to"] == [self.seat] and data["round"] == self.round
            self.hand = Counter(event["cards"])
        elif not mine or not event["cards"]:
            return
        elif kind == "play" or (kind == "pass" and event["to"] == [self.seat]):
            self.hand -= Counter(event["cards"])  # numwars: the cards passed, seen by it alone
        elif kind == "exchange" and data.get("action") == "pass":
            self.hand -= Counter(event["cards"])  # numwars-classic: the card passed right
        elif kind == "exchange":  # what it received (numwars; numwars-classic "receive")
            self.hand += Counter(event["cards"])


def _expected(events: list[Any], first: int, viewer: int | None) -> list[dict[str, Any]]:
    return [
        {"seq": first + i, **msgspec.to_builtins(e)}
        for i, e in enumerate(events)
        if e.visible(viewer)
    ]


async def _streams(
    client: httpx.AsyncClient, stack: AsyncExitStack, game: Any, players: int
) -> list[StreamClient]:
    """The spectator's stream, then each seat's (a stream ticket each: no header needed)."""
    clients = []
    for seat in [None, *range(players)]:
        params = {}
        if seat is not None:
            token = game["seats"][seat]["token"]
            ticket = await client.post(
                f"/v1/games/{game['id']}/stream-tickets",
                headers={"Authorization": f"Bearer {token}"},
            )
            assert ticket.status_code == 201, ticket.text
            params["ticket"] = ticket.json()["ticket"]
        response = await stack.enter_async_context(
            client.stream("GET", f"/v1/games/{game['id']}/stream", params=params)
        )
        assert response.status_code == 200
        clients.append(StreamClient(seat, sse(response)))
    return clients


@pytest.mark.parametrize(
    ("ruleset", "players", "options"),
    [("numwars-classic", 3, {}), ("numwars", 4, {"exchange": 2})],
    ids=["numwars-classic-3p", "numwars-4p-exchange-2"],
)
async def test_a_stream_only_client_knows_its_hand_all_round(
    server: Server, ruleset: str, players: int, options: dict[str, Any]
) -> None:
    seed = 23
    rules = registry.make(ruleset, options)
    shadow = Match(rules, players, seed)
    unique = _unique_codes(ruleset, rules, players)
    rng = random.Random(seed)
    async with (
        httpx.AsyncClient(base_url=server.url, timeout=30) as client,
        AsyncExitStack() as stack,
    ):
        body = {
            "ruleset": ruleset,
            "players": [{"name": f"P{i}"} for i in range(players)],
            "seed": seed,
            "options": options,
        }
        created = await client.post("/v1/games", json=body, headers=await async_host(client))
        assert created.status_code == 201, created.text
        game = created.json()
        streams = await _streams(client, stack, game, players)
        opening = shadow.round_start_events()
        for viewer in streams:  # round 1 announced, each seat dealt its own hand only
            got = await viewer.read(len(_expected(opening, 1, viewer.seat)))
            assert got == _expected(opening, 1, viewer.seat)
            assert got[0]["kind"] == "round-start" and got[0]["data"]["round"] == 1
            assert [e["kind"] for e in got[1:]] == ([] if viewer.seat is None else ["deal"])
        seq = len(opening)
        steps = 0
        while shadow.index == 0:  # the whole of round 1, then round 2's start
            seat = rng.choice(shadow.actors())
            action = rng.choice(shadow.legal_actions(seat))
            events = shadow.apply(seat, action)
            hidden = {v.seat: _hidden(ruleset, shadow.round, v.seat) & unique for v in streams}
            answer = await client.post(
                f"/v1/games/{game['id']}/actions",
                json=msgspec.to_builtins(action),
                headers={"Authorization": f"Bearer {game['seats'][seat]['token']}"},
            )
            assert answer.status_code == 200, answer.text
            for viewer in streams:
                wanted = _expected(events, seq + 1, viewer.seat)
                got = await viewer.read(len(wanted))
                assert got == wanted
                if shadow.index == 0:  # nothing the round still hides from this viewer shows
                    leaked = hidden[viewer.seat] & set(_strings(got))
                    assert not leaked, (viewer.seat, leaked)
            seq += len(events)
            steps += 1
            for viewer in streams[1:]:  # each seat's hand, known from its stream alone
                assert viewer.seat is not None
                view = shadow.round.view(viewer.seat)
                assert viewer.hand == Counter(view.hand or []), (viewer.seat, steps)
        assert steps > 3 * players and shadow.index == 1
        for viewer in streams[1:]:  # round 2 started with a fresh deal of its own
            assert viewer.round == 2 and sum(viewer.hand.values()) > 0
        for viewer in streams:  # a deal never reaches another seat or the spectator
            deals = [e for e in viewer.events if e["kind"] == "deal"]
            assert all(e["seat"] == viewer.seat for e in deals)
            assert len(deals) == (0 if viewer.seat is None else 2)
            private = [e for e in viewer.events if e["to"] is not None]
            assert all(viewer.seat in e["to"] for e in private)
        assert all(e["to"] is None for e in streams[0].events)  # the spectator: public only
        for viewer in streams[1:]:  # a seat's dealt hand is on no other stream before play
            dealt = set(next(e for e in viewer.events if e["kind"] == "deal")["cards"]) & unique
            for other in streams:
                if other is not viewer:
                    early = [e for e in other.events if e["seq"] <= len(opening)]
                    assert early and not dealt & set(_strings(early))
