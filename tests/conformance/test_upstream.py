"""The repository's conformance cases keep up with the upstream folder (../shared/conformance).

Skipped in a clone without that folder (the copy then stands alone); with it, a case added
or changed upstream fails here, named, until it is copied into tests/conformance/cases/.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conformance import load, repository_cases, upstream_changes
from tests.conftest import CONFORMANCE_DIR, UPSTREAM_CONFORMANCE_DIR


def test_the_copy_holds_cases() -> None:
    cases = repository_cases()
    assert len(cases) >= 20, sorted(cases)
    assert all(case["path"].startswith("/v1/rulesets/") for case in cases.values())


@pytest.mark.skipif(
    not UPSTREAM_CONFORMANCE_DIR.is_dir(), reason=f"no upstream folder {UPSTREAM_CONFORMANCE_DIR}"
)
def test_every_upstream_case_is_in_the_copy_unchanged() -> None:
    assert load(UPSTREAM_CONFORMANCE_DIR), f"{UPSTREAM_CONFORMANCE_DIR} holds no case"
    changed = upstream_changes()
    assert not changed, (
        f"copy these cases from {UPSTREAM_CONFORMANCE_DIR} into {CONFORMANCE_DIR}: "
        + ", ".join(f"{file}: {name}" for file, name in sorted(changed))
    )


def test_a_case_missing_or_changed_upstream_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check itself: an upstream folder with one new and one edited case names both."""
    import tests.conformance as conformance

    copy = repository_cases()
    (file, name), case = next(iter(copy.items()))
    edited = {**case, "status": case["status"] + 1}
    upstream = tmp_path / "upstream"
    upstream.mkdir()
    (upstream / file).write_text(json.dumps([edited]), encoding="utf-8")
    (upstream / "new.json").write_text(json.dumps([{**case, "name": "new"}]), encoding="utf-8")
    monkeypatch.setattr(conformance, "UPSTREAM_CONFORMANCE_DIR", upstream)
    assert set(upstream_changes()) == {(file, name), ("new.json", "new")}
    (upstream / file).write_text(json.dumps([case]), encoding="utf-8")
    (upstream / "new.json").unlink()
    assert upstream_changes() == {}
