"""The `numrules` console script: simulate and play work for every ruleset."""

from __future__ import annotations

import json

import pytest

from api.cli import main
from engine.registry import RULESETS


@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_simulate_prints_statistics(ruleset: str, capsys: pytest.CaptureFixture[str]) -> None:
    players = 4
    assert main(["simulate", "--ruleset", ruleset, "--players", str(players), "--rounds", "5"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["ruleset"] == ruleset and stats["rounds"] == 5
    assert len(stats["mean_score_by_seat"]) == players
    assert sum(stats["wins_by_seat"]) >= 5  # every round has at least one winner
    assert stats["actions"] > 0 and stats["rounds_per_second"] > 0


@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_simulate_is_deterministic(ruleset: str, capsys: pytest.CaptureFixture[str]) -> None:
    outputs = []
    for _ in range(2):
        main(["simulate", "--ruleset", ruleset, "--players", "3", "--rounds", "3", "--seed", "9"])
        stats = json.loads(capsys.readouterr().out)
        for timing in ("seconds", "rounds_per_second", "actions_per_second"):
            stats.pop(timing)
        outputs.append(stats)
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_play_prints_a_round(ruleset: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--ruleset", ruleset, "--players", "4", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert out.count("seat ") >= 4 and "scores: " in out
    scores = json.loads(out.split("scores: ", 1)[1])
    assert len(scores["players"]) == 4


def test_simulate_rejects_bad_options() -> None:
    with pytest.raises(SystemExit):
        main(["simulate", "--ruleset", "numwars", "--players", "4", "--options", "[1]"])
