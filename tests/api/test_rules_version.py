"""The catalogue states each ruleset's rules version (issue 9, "A rules version")."""

from __future__ import annotations

from typing import Any

from engine.registry import RULESETS


def test_list_and_detail_carry_the_engine_rules_version(client: Any) -> None:
    listed = {r["id"]: r["rules_version"] for r in client.get("/v1/rulesets").json()["rulesets"]}
    assert listed == {rid: cls.rules_version for rid, cls in RULESETS.items()}
    for rid, cls in RULESETS.items():
        detail = client.get(f"/v1/rulesets/{rid}").json()
        assert detail["rules_version"] == cls.rules_version
        assert cls.rules_version in cls.rules_versions
