"""Drive a stored game through HTTP, seat by seat, beside a shadow match of the engine.

The shadow is the same ruleset, options, player count and seed played by the engine itself
with the same actions: every answer of the server is held to it (views equal, events equal),
and it knows which cards are hidden from whom (tests/engine/test_invariants.py's `_hidden`),
so every body a viewer receives is searched for a card hidden from that viewer.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import msgspec

from engine import registry
from engine.core.actions import Action
from engine.core.match import Match
from tests.engine.test_invariants import _hidden, _strings, _unique_codes
from tests.games.host import host

Client = Any  # litestar TestClient or httpx.Client: .get / .post with headers=


class Table:
    """One stored game and its shadow; `seen` collects every body each viewer received."""

    def __init__(
        self,
        client: Client,
        ruleset: str,
        players: int,
        seed: int,
        options: dict[str, Any] | None = None,
    ) -> None:
        self.client = client
        self.ruleset = ruleset
        self.players = players
        body: dict[str, Any] = {
            "ruleset": ruleset,
            "players": [{"name": f"Player {i}"} for i in range(players)],
            "seed": seed,
        }
        if options:
            body["options"] = options
        created = client.post("/v1/games", json=body, headers=host(client))
        assert created.status_code == 201, created.text
        self.created = created.json()
        self.id: str = self.created["id"]
        self.tokens: list[str] = [s["token"] for s in self.created["seats"]]
        rules = registry.make(ruleset, options or {})
        self.shadow = Match(rules, players, seed)
        self.unique = _unique_codes(ruleset, rules, players)
        self.version = 0
        #: Round 1's `round-start` and each seat's `deal` are logged at creation.
        self.opening = self.shadow.round_start_events()
        self.event_seq = len(self.opening)
        self.bodies: list[str] = [created.text]

    def auth(self, seat: int | None) -> dict[str, str]:
        return {} if seat is None else {"Authorization": f"Bearer {self.tokens[seat]}"}

    def get(self, path: str, seat: int | None = None) -> Any:
        response = self.client.get(f"/v1/games/{self.id}{path}", headers=self.auth(seat))
        self.bodies.append(response.text)
        return response

    def post(self, path: str, seat: int | None, **kwargs: Any) -> Any:
        headers = {**self.auth(seat), **kwargs.pop("headers", {})}
        response = self.client.post(f"/v1/games/{self.id}{path}", headers=headers, **kwargs)
        self.bodies.append(response.text)
        return response

    def assert_hides(self, viewer: int | None, body: Any, state: Any = None) -> None:
        """No card hidden from `viewer` (in `state`, by default the shadow's round) shows."""
        hidden = _hidden(self.ruleset, state or self.shadow.round, viewer) & self.unique
        leaked = hidden & set(_strings(body))
        assert not leaked, (viewer, leaked, str(body)[:400])

    def view(self, seat: int | None) -> dict[str, Any]:
        response = self.get("", seat)
        assert response.status_code == 200, response.text
        game = response.json()
        assert response.headers["etag"] == f'"{game["version"]}"'
        assert game["seat"] == seat and game["version"] == self.version
        expected = msgspec.to_builtins(self.shadow.view(seat))
        assert game["view"] == expected
        self.assert_hides(seat, game["view"])  # `result` holds earlier rounds: public
        return game

    def step(self, rng: random.Random, check_all: bool = False) -> None:
        """One random legal action of a random actor, taken from its own view."""
        seat = rng.choice(self.shadow.actors())
        legal = self.view(seat)["view"]["legal_actions"]
        assert legal, f"seat {seat} may act but has no legal action"
        choice = rng.choice(legal)
        state = self.shadow.round
        events = self.shadow.apply(seat, msgspec.convert(choice, Action))
        response = self.post("/actions", seat, json=choice)
        assert response.status_code == 200, (response.status_code, response.text, choice)
        answer = response.json()
        self.version += 1
        assert answer["version"] == self.version
        expected = []
        for event in events:
            self.event_seq += 1
            if event.visible(seat):
                expected.append({"seq": self.event_seq, **msgspec.to_builtins(event)})
        assert answer["events"] == expected
        assert answer["view"] == msgspec.to_builtins(self.shadow.view(seat))
        # the round's events against the round they came from; a new round's start and the
        # seat's deal against the new round
        cut = next((i for i, e in enumerate(expected) if e["kind"] == "round-start"), None)
        self.assert_hides(seat, expected[:cut], state)
        if cut is not None:
            self.assert_hides(seat, expected[cut:])
        self.assert_hides(seat, answer["view"])
        if check_all:
            self.check_viewers()
            self.probe_refusals(rng)

    def probe_refusals(self, rng: random.Random) -> None:
        """Refused actions: a seat that may not act, and an actor playing a card it does not
        hold. Nothing is applied, and the problem shows no card hidden from the sender (its
        `legal_actions` are its own)."""
        if self.shadow.is_over:
            return
        actors = self.shadow.actors()
        idle = [s for s in range(self.players) if s not in actors]
        probes: list[tuple[int, dict[str, Any]]] = []
        if idle:
            probes.append((rng.choice(idle), {"type": "draw"}))
        probes.append((rng.choice(actors), {"type": "play", "card": "no-such-card"}))
        for seat, action in probes:
            response = self.post("/actions", seat, json=action)
            assert response.status_code in (409, 422), (response.status_code, response.text)
            problem = response.json()
            assert problem["code"] and problem["detail"]
            self.assert_hides(seat, problem)
        assert self.get("").json()["version"] == self.version

    def check_viewers(self) -> None:
        """Every viewer's view and whole event list, held to the shadow and searched."""
        for viewer in [None, *range(self.players)]:
            game = self.view(viewer)
            if game["status"] != "active":
                continue
            events = self.get("/events?after=0", viewer).json()
            assert [e["seq"] for e in events["events"]] == sorted(
                {e["seq"] for e in events["events"]}
            )
            assert all(e["to"] is None or viewer in e["to"] for e in events["events"])
            opening = [
                {"seq": i + 1, **msgspec.to_builtins(e)}
                for i, e in enumerate(self.opening)
                if e.visible(viewer)
            ]
            if events["events"][: len(opening)] and events["events"][0]["seq"] == 1:
                assert events["events"][: len(opening)] == opening  # round 1's start, own hand

    def play_out(
        self,
        rng: random.Random,
        every: int = 25,
        limit: int = 20_000,
        on_step: Callable[[], None] | None = None,
    ) -> dict[str, Any]:
        for count in range(limit):
            if self.shadow.is_over:
                break
            self.step(rng, check_all=count % every == 0)
            if on_step is not None:
                on_step()
        assert self.shadow.is_over, f"not over after {limit} actions"
        final = self.view(None)
        assert final["status"] == "over"
        result = self.shadow.result()
        assert final["result"] == msgspec.to_builtins(result)
        return final
