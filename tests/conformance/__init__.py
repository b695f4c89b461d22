"""The conformance cases: the repository's copy, and the upstream folder it is copied from.

`shared/conformance/README.md` asks the suite to run every case against the real application.
The suite reads its own copy (`tests/conformance/cases/`, see `tests.conftest`), so that a
clone runs alone; when the upstream folder is there too, its cases that the copy lacks or holds
otherwise are run as well and `test_upstream.py` fails on each of them until it is copied.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import CONFORMANCE_DIR, UPSTREAM_CONFORMANCE_DIR

#: A case is known by its file and its name: `("numking-score.json", "Exemple 1")`.
CaseKey = tuple[str, str]


def load(folder: Path) -> dict[CaseKey, dict[str, Any]]:
    """Every case of the folder's `*.json` files, by file and name ({} when there is none)."""
    cases: dict[CaseKey, dict[str, Any]] = {}
    for path in sorted(folder.glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8")):
            cases[(path.name, case["name"])] = case
    return cases


def repository_cases() -> dict[CaseKey, dict[str, Any]]:
    """The repository's copy; an empty copy is an error, never a silent pass."""
    cases = load(CONFORMANCE_DIR)
    if not cases:
        raise RuntimeError(f"no conformance cases found in {CONFORMANCE_DIR}")
    return cases


def upstream_changes() -> dict[CaseKey, dict[str, Any]]:
    """The upstream cases that the copy lacks or holds otherwise ({} without upstream)."""
    copy = repository_cases()
    return {
        key: case for key, case in load(UPSTREAM_CONFORMANCE_DIR).items() if copy.get(key) != case
    }
