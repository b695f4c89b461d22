"""Stored games end to end on PostgreSQL (issue 11, "Must show"): whole seeded matches of every
ruleset at its smallest, middle and largest player counts, each seat driven through HTTP by a
random action from the `legal_actions` of its own view; every answer held to the engine's own
match, no card hidden from a viewer in anything it receives, no token in any answer or log
line; then the export replayed offline and as a new game."""

from __future__ import annotations

import hashlib
import logging
import random
from typing import Any

import msgspec
import pytest

from engine import registry
from engine.core.match import MatchRecord, replay
from tests.games.driver import Table


def _counts(ruleset: str) -> list[int]:
    cls = registry.RULESETS[ruleset]
    low, high = cls.min_players, cls.max_players
    return sorted({low, (low + high) // 2, high})


CASES = [
    pytest.param(ruleset, players, id=f"{ruleset}-{players}p")
    for ruleset in registry.RULESETS
    for players in _counts(ruleset)
]


@pytest.mark.parametrize(("ruleset", "players"), CASES)
def test_a_whole_match_through_http(
    games: Any, ruleset: str, players: int, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    seed = 1000 * players + len(ruleset)
    table = Table(games, ruleset, players, seed)
    final = table.play_out(random.Random(seed))
    # the deal was fixed in advance: the revealed seed and salt give the commitment
    digest = hashlib.sha256(f"{final['seed']}:{final['salt']}".encode()).hexdigest()
    assert final["seed"] == seed and digest == table.created["seed_commitment"]
    # the export replays offline to the same result and the same final views
    export = table.get("/export")
    assert export.status_code == 200
    record = MatchRecord.from_export(export.text)
    again = replay(record)
    assert msgspec.to_builtins(again.result()) == final["result"]
    for viewer in [None, *range(players)]:
        assert msgspec.to_builtins(again.view(viewer)) == table.view(viewer)["view"]
    # no token, nor its hash, in any answer but the creation's, nor in any log line
    secrets = table.tokens + [hashlib.sha256(t.encode()).hexdigest() for t in table.tokens]
    later = "\n".join(table.bodies[1:])
    logs = "\n".join(r.getMessage() for r in caplog.records)
    assert not [s for s in secrets if s in later or s in logs]


@pytest.mark.parametrize("ruleset", list(registry.RULESETS))
def test_the_export_fed_to_a_new_game_reaches_the_same_result(games: Any, ruleset: str) -> None:
    players = registry.RULESETS[ruleset].min_players
    seed = 4242
    first = Table(games, ruleset, players, seed)
    final = first.play_out(random.Random(7), every=1000)
    export = first.get("/export").json()
    second = Table(games, ruleset, players, seed)
    for entry in export["actions"]:
        response = second.post("/actions", entry["seat"], json=entry["action"])
        assert response.status_code == 200, response.text
        assert response.json()["version"] == entry["seq"]
    again = second.get("").json()
    assert again["status"] == "over" and again["result"] == final["result"]
