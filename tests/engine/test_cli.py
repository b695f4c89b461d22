"""The `numrules` console script: simulate and play work for every ruleset, whole matches
included, and every bad argument is one line on stderr with exit status 2."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from api.cli import main
from engine import registry
from engine.core.events import PlayEvent, TrickEvent
from engine.core.rng import Rng
from engine.registry import RULESETS
from engine.simulate import pick

ROOT = Path(__file__).resolve().parents[2]
#: The compiled build this run tests (deploy/test.sh's second pass), if any.
BUILD_DIR = os.environ.get("NUMRULES_BUILD_DIR")


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
        "numrules play: error: argument --players: Num Wars is played by 3 to 8 players, not 2"
    ]


def test_simulate_rejects_bad_options() -> None:
    with pytest.raises(SystemExit):
        main(["simulate", "--ruleset", "numwars", "--players", "4", "--options", "[1]"])


def _trick_lines(out: str) -> list[list[str]]:
    return [
        line.split("→ trick: ", 1)[1].rsplit("; ", 1)[0].split(", ")
        for line in out.splitlines()
        if "→ trick: " in line
    ]


@pytest.mark.parametrize("ruleset", ["numwars-classic", "numwars", "numking"])
def test_play_prints_tricks_in_play_order(ruleset: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Each trick line lists its cards as they were played (from the leader on), not in the
    canonical order of the `trick` event; numking's `infinity` with its declared value."""
    assert main(["play", "--ruleset", ruleset, "--players", "4", "--seed", "5"]) == 0
    printed = _trick_lines(capsys.readouterr().out)
    match = registry.make(ruleset).new_match(players=4, seed=5)
    rng = Rng(5)
    expected: list[list[str]] = []
    canonical: list[list[str]] = []
    trick: list[str] = []
    while not match.is_over:
        for event in match.apply(*pick(match, rng)):
            if isinstance(event, PlayEvent):
                declared = event.data.declared
                trick += [
                    c if declared is msgspec.UNSET else f"{c} ({declared})" for c in event.cards
                ]
            elif isinstance(event, TrickEvent):
                expected.append(trick)
                canonical.append(list(event.cards))
                trick = []
    assert printed == expected
    assert any(
        [c.split(" ")[0] for c in p] != c for p, c in zip(expected, canonical, strict=True)
    ), "some trick's play order differs from the canonical order (else this test shows nothing)"


def test_play_and_simulate_say_which_engine(capsys: pytest.CaptureFixture[str]) -> None:
    """In this process the engine is already imported: the one this run tests."""
    kind = "compiled" if BUILD_DIR else "source"
    assert main(["play", "--ruleset", "numwin", "--players", "2", "--seed", "1"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert f"; {kind} engine (" in first
    assert main(["simulate", "--ruleset", "numking", "--players", "3", "--rounds", "2"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["engine"] == kind
    assert Path(stats["engine_path"]) == Path(sys.modules["engine"].__file__ or "").parent


SIMULATE = ["simulate", "--ruleset", "numwars-classic", "--players", "3", "--rounds", "2"]


def _simulate(build: Path | str) -> tuple[dict[str, object], str]:
    """`numrules simulate` in a fresh process with NUMRULES_BUILD_DIR=`build`."""
    proc = subprocess.run(
        [sys.executable, "-m", "api.cli", *SIMULATE],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=ROOT,
        env={**os.environ, "NUMRULES_BUILD_DIR": str(build)},
    )
    assert proc.returncode == 0, proc.stderr
    stats: dict[str, object] = json.loads(proc.stdout)
    return stats, proc.stderr


def _copy_engine(to: Path) -> Path:
    shutil.copytree(ROOT / "engine", to / "engine", ignore=shutil.ignore_patterns("__pycache__"))
    return to


def test_simulate_without_a_build_runs_the_source_and_says_why(tmp_path: Path) -> None:
    stats, err = _simulate(tmp_path / "nothing")
    assert stats["engine"] == "source"
    assert Path(str(stats["engine_path"])) == ROOT / "engine"
    assert f"no compiled build in {tmp_path / 'nothing'}" in err


def test_a_stale_build_is_not_used(tmp_path: Path) -> None:
    """A build made before the last change to the rules would run old rules: refused."""
    build = _copy_engine(tmp_path)
    changed = build / "engine" / "core" / "events.py"
    changed.write_text(changed.read_text() + "\n# changed\n")
    stats, err = _simulate(build)
    assert stats["engine"] == "source" and Path(str(stats["engine_path"])) == ROOT / "engine"
    assert "engine/core/events.py" in err and "deploy/build-mypyc.sh" in err


def test_a_current_build_is_imported_first(tmp_path: Path) -> None:
    """A current build is what runs; here a copy without compiled kernels, so `source` (the
    compiled build's own run below says `compiled`)."""
    build = _copy_engine(tmp_path)
    stats, err = _simulate(build)
    assert Path(str(stats["engine_path"])) == build / "engine" and err == ""
    assert stats["engine"] == "source"


@pytest.mark.skipif(not BUILD_DIR, reason="a pure-Python run (NUMRULES_BUILD_DIR unset)")
def test_the_compiled_build_is_used_and_said(tmp_path: Path) -> None:
    stats, err = _simulate(str(BUILD_DIR))
    assert stats["engine"] == "compiled" and err == ""
    assert Path(str(stats["engine_path"])).resolve() == (Path(str(BUILD_DIR)) / "engine").resolve()
