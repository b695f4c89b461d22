"""The import contracts about games read the games from the registry (tests/import_contracts.py):
every registered game is checked, and a game importing another is caught with no game named
in pyproject.toml."""

from __future__ import annotations

import importlib
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from engine.registry import SPECS
from tests.import_contracts import GAMES, _expand, game_packages

ROOT = Path(__file__).resolve().parents[2]


def test_game_packages_are_the_registered_rulesets() -> None:
    """Each registered ruleset's folder, once, in the catalogue's order: the folder whose
    `spec.SPEC` is the registered spec."""
    packages = game_packages()
    assert packages == [
        "engine.numwars",
        "engine.numwars_classic",
        "engine.numking",
        "engine.numwin",
    ]
    for package, spec in zip(packages, SPECS.values(), strict=True):
        assert importlib.import_module(f"{package}.spec").SPEC is spec


def test_pyproject_names_no_game() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    contracts = tomllib.loads(text)["tool"]["importlinter"]["contracts"]
    for package in game_packages():
        assert f'"{package}"' not in text and f"{package} |" not in text
    uses = [c for c in contracts if GAMES in str(c)]
    assert len(uses) == 3, uses


def test_expand_places_every_game() -> None:
    expanded = _expand({"layers": ["engine.registry", GAMES, "engine.core"], "containers": [GAMES]})
    assert expanded["containers"] == game_packages()
    assert expanded["layers"][1] == " | ".join(game_packages())


def test_a_game_importing_another_breaks_the_contract(tmp_path: Path) -> None:
    """A copy of the tree where one game imports another: lint-imports fails on it."""
    for name in ("engine", "api", "tests"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("*.so"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    first, second = game_packages()[:2]
    cards = tmp_path / first.replace(".", "/") / "cards.py"
    cards.write_text(cards.read_text() + f"\nimport {second}.options  # noqa\n")
    lint = Path(sys.executable).with_name("lint-imports")
    run = subprocess.run(
        [str(lint), "--no-cache"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert run.returncode != 0, run.stdout
    assert "a game never imports another game BROKEN" in run.stdout.replace("\n", " ")
    assert f"{first}.cards -> {second}.options" in run.stdout
