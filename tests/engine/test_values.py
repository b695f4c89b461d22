"""Inside a game, values go down and no call goes up (issue 22).

The rules object builds a round from values, as OpenSpiel's ``HeartsGame::NewInitialState``
hands its parameters to the state: the round reads only the rules object's values (its
options, numwin's rules version), its kernel is built from values and calls the game's
`scoring` and `cards` functions directly. These tests read the sources (imports, attribute
reads) and build rounds from a bare owner that holds nothing but those values.
"""

from __future__ import annotations

import ast
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import msgspec
import pytest

from engine.core.base import RoundSetup
from engine.core.boundary import KernelRound
from engine.core.rng import Rng
from engine.numking.options import NumKingOptions
from engine.numking.round import NumKingRound
from engine.numking.rules import NumKing
from engine.numwars.options import NumWarsOptions
from engine.numwars.round import NumWarsRound
from engine.numwars.rules import NumWars
from engine.numwars_classic.options import ClassicOptions
from engine.numwars_classic.round import ClassicRound
from engine.numwars_classic.rules import NumWarsClassic
from engine.numwin.options import NumWinOptions
from engine.numwin.round import NumWinRound
from engine.numwin.rules import NumWin
from engine.simulate import pick
from tests.conftest import ROOT

GAMES = ["numwars", "numwars_classic", "numking", "numwin"]
#: The file roles every game has (pyproject.toml's layers contract, README's layout).
ROLES = [
    "__init__.py",
    "bots.py",
    "cards.py",
    "examples.py",
    "kernel.py",
    "options.py",
    "requests.py",
    "round.py",
    "rules.py",
    "scoring.py",
    "spec.py",
    "summary.py",
    "view.py",
]

#: The modules above the rules object (pyproject.toml's layers): what the game declares to the
#: API, which names its rules class (engine/core/spec.py), and its bots (engine/core/bots.py).
ABOVE_RULES = ("spec.py", "bots.py", "requests.py")


def _modules(game: str) -> list[Path]:
    return sorted((ROOT / "engine" / game).glob("*.py"))


def _imports(path: Path) -> list[tuple[str, str]]:
    """Every (module, name) `path` imports from the engine, those under `TYPE_CHECKING` too."""
    return [
        (node.module, alias.name)
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("engine")
        for alias in node.names
    ]


@pytest.mark.parametrize("game", GAMES)
def test_every_game_has_the_same_file_roles(game: str) -> None:
    names = {p.name for p in _modules(game)}
    assert [role for role in ROLES if role not in names] == []


@pytest.mark.parametrize("game", GAMES)
def test_no_module_below_rules_imports_rules_not_even_for_a_type(game: str) -> None:
    rules = f"engine.{game}.rules"
    offenders = [
        p.name
        for p in _modules(game)
        if p.name not in ("rules.py", "__init__.py", *ABOVE_RULES)
        and any(module == rules for module, _ in _imports(p))
    ]
    assert offenders == []


@pytest.mark.parametrize("game", GAMES)
def test_a_kernel_never_reads_a_rules_object(game: str) -> None:
    """No `rules` name, argument or attribute in the state machine: it holds values only."""
    tree = ast.parse((ROOT / "engine" / game / "kernel.py").read_text())
    reads = [
        getattr(node, "lineno", 0)
        for node in ast.walk(tree)
        if (isinstance(node, ast.Name) and node.id == "rules")
        or (isinstance(node, ast.Attribute) and node.attr == "rules")
        or (isinstance(node, ast.arg) and node.arg == "rules")
    ]
    assert reads == []


def test_no_underscored_name_is_imported_across_modules() -> None:
    """Underscores mark module-private names only: a name another module imports is public."""
    offenders = sorted(
        f"{p.relative_to(ROOT)}: {module}.{name}"
        for folder in ("engine", "api", "bench", "tests")
        for p in (ROOT / folder).rglob("*.py")
        for module, name in _imports(p)
        if name.startswith("_")
    )
    assert offenders == []


def _owner(options: msgspec.Struct, **values: Any) -> Any:
    """A stand-in for a rules object holding nothing but values: no method to call."""
    return SimpleNamespace(options=options, **values)


BUILDS: dict[str, tuple[Any, Any]] = {
    "numwars": (
        NumWars(NumWarsOptions(exchange=2)),
        lambda setup: NumWarsRound(_owner(NumWarsOptions(exchange=2)), setup),
    ),
    "numwars-classic": (
        NumWarsClassic(ClassicOptions(alliance=True)),
        lambda setup: ClassicRound(_owner(ClassicOptions(alliance=True)), setup),
    ),
    "numking": (
        NumKing(NumKingOptions(zeros=True)),
        lambda setup: NumKingRound(_owner(NumKingOptions(zeros=True)), setup),
    ),
    "numwin": (
        NumWin(NumWinOptions(teams=True), version=1),
        lambda setup: NumWinRound(_owner(NumWinOptions(teams=True), version=1), setup),
    ),
}


def _play_out(state: Any, seed: int) -> None:
    """Play `state` to its end with the random legal actions of `Rng(seed)`."""
    rng = Rng(seed)
    while not state.is_over:
        seat, action = pick(state, rng)
        state.apply(seat, action)


@pytest.mark.parametrize("ruleset", list(BUILDS))
def test_a_round_is_built_from_its_owners_values_alone(ruleset: str) -> None:
    """A round built over an owner holding only the options (and numwin's version) plays
    exactly as the one the rules object builds: the round reads values, calls nothing."""
    rules, build = BUILDS[ruleset]
    setup = RoundSetup(players=4, seed=2026, dealer=1, round=3)
    made = rules.new_round(setup)
    bare = build(setup)
    assert isinstance(made, KernelRound) and isinstance(bare, KernelRound)
    assert bare.snapshot() == made.snapshot()
    _play_out(made, 7)
    _play_out(bare, 7)
    assert bare.is_over and bare.snapshot() == made.snapshot()
    assert bare.scores() == made.scores()
