"""A game is one folder and one registry line, to the type checker too (issue 22): the
registry's `AnyRuleset` is the structural type every rules class is (`engine.core.match.Rules`),
not a union of the games' classes that each new game must extend by hand."""

from __future__ import annotations

import ast
import typing
from pathlib import Path

import pytest
from mypy import api as mypy

from engine import registry
from engine.core.match import Rules

ROOT = Path(__file__).resolve().parents[2]


def test_the_registry_names_no_rules_class() -> None:
    """engine/registry.py imports each game's spec only: a new game's class is named nowhere
    outside its folder."""
    tree = ast.parse((ROOT / "engine" / "registry.py").read_text())
    games = {spec.rules.__module__.rsplit(".", 1)[0] for spec in registry.SPECS.values()}
    imported = {
        (node.module, alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module in games
        for alias in node.names
    }
    assert imported and {name for _, name in imported} == {"spec"}
    assert registry.AnyRuleset is Rules and typing.get_origin(registry.AnyRuleset) is None
    for ruleset in registry.SPECS:
        assert isinstance(registry.make(ruleset), registry.ruleset_class(ruleset))


PROBE = """\
from engine.registry import AnyRuleset, make
from tests.fixtures.tinytricks.rules import TinyTricks

rules: type[AnyRuleset] = TinyTricks
ruleset: AnyRuleset = TinyTricks()
match = ruleset.new_match(players=3, seed=1)
again: AnyRuleset = make("numking")
print(rules.name, rules.Options(), ruleset.deck(3), match)
"""


def _check(source: str, tmp_path: Path) -> tuple[str, int]:
    probe = tmp_path / "probe.py"
    probe.write_text(source)
    flags = ["--strict", "--follow-imports=silent", "--no-incremental", "--cache-dir=/dev/null"]
    out, err, status = mypy.run([*flags, str(probe)])
    return out + err, status


def test_a_new_games_rules_class_is_a_ruleset_to_mypy(tmp_path: Path) -> None:
    """The test-only game (tests/fixtures/tinytricks), registered by no line of engine/ or
    api/, type-checks as a registry ruleset under mypy --strict."""
    report, status = _check(PROBE, tmp_path)
    assert status == 0, report


@pytest.mark.parametrize("missing", ["new_round", "score_match"])
def test_a_class_missing_a_rules_member_is_no_ruleset(tmp_path: Path, missing: str) -> None:
    """The check has teeth: a rules class without one of the members the API calls is refused."""
    source = f"""\
from engine.registry import AnyRuleset
from tests.fixtures.tinytricks.rules import TinyTricks


class Broken(TinyTricks):
    {missing} = None  # type: ignore[assignment]


rules: type[AnyRuleset] = Broken
"""
    report, status = _check(source, tmp_path)
    assert status == 1 and "Broken" in report, report


@pytest.mark.parametrize("ruleset_id", sorted(registry.SPECS))
def test_a_rulesets_phases_are_its_kernels(ruleset_id: str) -> None:
    """A spec lists its phases itself (a game's kernel is imported by its round only:
    tests/engine/test_build.py); here they are held to the kernel's `Phase`."""
    import importlib

    spec = registry.SPECS[ruleset_id]
    kernel = importlib.import_module(spec.rules.__module__.rsplit(".", 1)[0] + ".kernel")
    assert spec.phases == tuple(p.value for p in kernel.Phase)
