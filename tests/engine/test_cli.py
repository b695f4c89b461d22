"""The `numrules` console script: simulate and play work for every ruleset, whole matches
included, and every bad argument is one line on stderr with exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from api.cli import main
from engine import registry
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
def test_play_prints_a_whole_match(ruleset: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`play` prints every round (hands, actions, scores) then the match result."""
    assert main(["play", "--ruleset", ruleset, "--players", "4", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert out.count("seat ") >= 4 and "scores: " in out
    lines = out.splitlines()
    round_scores = [
        json.loads(line.split("scores: ", 1)[1]) for line in lines if " scores: " in line
    ]
    for scores in round_scores:
        assert len(scores["players"]) == 4
    assert lines[-1].startswith("result: ")
    result = json.loads(lines[-1].removeprefix("result: "))
    match = registry.make(ruleset).new_match(players=4, seed=3)
    assert len(result["rounds"]) == len(round_scores) >= match.regular_rounds
    assert result["rounds"] == round_scores
    headers = [line for line in lines if line.startswith("round ") and "(dealer" in line]
    assert len(headers) == match.regular_rounds
    assert len(result["totals"]) == 4 and result["winners"]


def test_play_numking_four_players_is_nine_rounds(capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's example: rounds 1 … 9 (⌊36/4⌋ cards), trick by trick, then the result."""
    assert main(["play", "--ruleset", "numking", "--players", "4", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    for k in range(1, 10):
        assert f"round {k} of 9 (dealer {(k - 1) % 4})" in out
    assert out.count("→ trick:") == sum(range(1, 10))
    result = json.loads(out.splitlines()[-1].removeprefix("result: "))
    assert [len(r["players"]) for r in result["rounds"]] == [4] * 9
    totals = [sum(r["players"][s]["score"] for r in result["rounds"]) for s in range(4)]
    assert result["totals"] == totals


@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_simulate_matches_prints_match_statistics(
    ruleset: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["simulate", "--ruleset", ruleset, "--players", "4", "--matches", "3", "--seed", "2"]
    assert main(argv) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["matches"] == 3 and stats["rounds"] >= 3 * registry.make(ruleset).match_rounds(4)
    assert len(stats["mean_total_by_seat"]) == 4
    assert sum(stats["wins_by_seat"]) >= 3 and stats["matches_per_second"] > 0
    assert main(argv) == 0
    again = json.loads(capsys.readouterr().out)
    for timing in ("seconds", "matches_per_second", "actions_per_second"):
        stats.pop(timing)
        again.pop(timing)
    assert stats == again


BAD_ARGUMENTS = [
    (["play", "--ruleset", "numwars", "--players", "2"], "--players"),
    (["play", "--ruleset", "numking", "--players", "9"], "--players"),
    (["play", "--ruleset", "numking", "--players", "four"], "--players"),
    (["simulate", "--ruleset", "nope", "--players", "4"], "--ruleset"),
    (["simulate", "--ruleset", "numwars", "--players", "4", "--rounds", "0"], "--rounds"),
    (["simulate", "--ruleset", "numwars", "--players", "4", "--rounds", "-2"], "--rounds"),
    (["simulate", "--ruleset", "numwars", "--players", "4", "--matches", "0"], "--matches"),
    (["simulate", "--ruleset", "numwin", "--players", "4", "--matches", "-1"], "--matches"),
    (["play", "--ruleset", "numwin", "--players", "4", "--seed", "-1"], "--seed"),
    (["play", "--ruleset", "numwin", "--players", "4", "--seed", str(2**64)], "--seed"),
    (["play", "--ruleset", "numwars", "--players", "4", "--options", "{bad"], "--options"),
    (["play", "--ruleset", "numwars", "--players", "4", "--options", "[1]"], "--options"),
    (
        ["play", "--ruleset", "numwars", "--players", "4", "--options", '{"exchange": 9}'],
        "--options",
    ),
    (["play", "--ruleset", "numwars", "--players", "4", "--options", '{"nope": 1}'], "--options"),
    (
        [
            "play",
            "--ruleset",
            "numwars-classic",
            "--players",
            "5",
            "--options",
            '{"alliance": true}',
        ],
        "--options",
    ),
    (
        ["play", "--ruleset", "numwin", "--players", "3", "--options", '{"teams": true}'],
        "--options",
    ),
    (
        ["play", "--ruleset", "numking", "--players", "4", "--options", '{"max_cards": 10}'],
        "--options",
    ),
    (["simulate", "--ruleset", "numwars", "--players", "4", "--round", "3"], "--round"),
    (["simulate", "--ruleset", "numking", "--players", "4", "--round", "30"], "--round"),
    (["simulate", "--ruleset", "numking", "--players", "4", "--round", "0"], "--round"),
    (
        ["simulate", "--ruleset", "numking", "--players", "4", "--matches", "2", "--round", "3"],
        "--round",
    ),
    (
        ["simulate", "--ruleset", "numking", "--players", "4", "--matches", "2", "--rounds", "3"],
        "--matches",
    ),
    (["serve", "--port", "70000"], "--port"),
    (["serve", "--workers", "0"], "--workers"),
    (["openapi", "--output", "/nonexistent-dir/spec.json"], "--output"),
    (["bogus"], "command"),
    ([], "command"),
]


@pytest.mark.parametrize(("argv", "culprit"), BAD_ARGUMENTS)
def test_bad_arguments_are_one_line_and_status_2(
    argv: list[str], culprit: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every bad argument: one line on stderr naming the argument, exit status 2, no traceback."""
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("numrules") and ": error: " in lines[0] and culprit in lines[0]
    assert "Traceback" not in captured.err


def test_bad_arguments_from_the_console_script() -> None:
    """The installed script itself (a subprocess): status 2, one line, no traceback."""
    proc = subprocess.run(
        [sys.executable, "-m", "api.cli", "play", "--ruleset", "numwars", "--players", "2"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == [
        "numrules play: error: argument --players: numwars is played by 3 to 8 players, not 2"
    ]


def test_simulate_rejects_bad_options() -> None:
    with pytest.raises(SystemExit):
        main(["simulate", "--ruleset", "numwars", "--players", "4", "--options", "[1]"])
