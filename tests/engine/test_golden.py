"""Golden records (issue 9, "A rules version that protects old games"): every committed match
replays, at its recorded rules version, to the same deals, round scores, totals and winners.

A failure means a change alters how a recorded (stored) game replays: bump the ruleset's
`rules_version` and keep the old behaviour for the old version (engine/core/match.py, "Rules
versions"), or, for a deliberate change no stored game can see, regenerate with
`python -m tests.engine.golden` and review the diff.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from engine.core.match import MatchRecord, replay
from engine.registry import RULESETS
from tests.engine import golden

FILES = golden.golden_files()
ENTRIES = [
    pytest.param(path, i, data, id=f"{path.stem}-{i}")
    for path in FILES
    for i, data in enumerate(json.loads(path.read_text(encoding="utf-8"))["matches"])
]
HOW = (
    "bump rules_version (engine/core/match.py, 'Rules versions') and keep the old behaviour "
    f"for old records, or regenerate deliberately with `{golden.REGENERATE}`"
)


def test_every_ruleset_has_golden_records_of_its_current_version() -> None:
    names = {p.name for p in FILES}
    for rid, cls in RULESETS.items():
        assert f"{rid}.v{cls.rules_version}.json" in names, (
            f"no golden records: {golden.REGENERATE}"
        )


def test_golden_records_cover_the_plan() -> None:
    """Least, middle and largest player counts; option sets; a tie-break where there is one."""
    for rid, cls in RULESETS.items():
        path = golden.GOLDEN_DIR / f"{rid}.v{cls.rules_version}.json"
        matches = json.loads(path.read_text(encoding="utf-8"))["matches"]
        counts = {m["record"]["players"] for m in matches}
        assert {cls.min_players, cls.max_players} <= counts and len(counts) >= 3
        if rid in ("numwars", "numwars-classic"):
            assert any(m["tiebreak_rounds"] > 0 for m in matches)
    # the current versions' files are small enough to review (an older version's file is
    # frozen: it was reviewed when it was current, and only has to keep replaying)
    current = [
        golden.GOLDEN_DIR / f"{rid}.v{cls.rules_version}.json" for rid, cls in RULESETS.items()
    ]
    assert sum(p.stat().st_size for p in current) < 400_000


@pytest.mark.parametrize(("path", "index", "data"), ENTRIES)
def test_golden_match_replays_identically(path: Path, index: int, data: dict[str, Any]) -> None:
    record = msgspec.convert(data["record"], type=MatchRecord)
    where = (
        f"{path.name} match {index} ({record.players} players, options {record.options}, "
        f"rules_version {record.rules_version})"
    )
    try:
        match = replay(record)
    except Exception as exc:  # the message must say what to do, whatever broke
        pytest.fail(f"{where} no longer replays ({exc}): {HOW}")
    assert match.is_over, f"{where} is no longer over after its actions: {HOW}"
    got = golden.summary(match)
    for key, expected in data.items():
        if key == "record":
            continue
        assert got[key] == expected, f"{where}: {key} differ: {HOW}"
    again = msgspec.json.decode(msgspec.json.encode(match.record()))
    assert again == data["record"], f"{where}: record differs: {HOW}"
