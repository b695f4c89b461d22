"""api/ never names a ruleset (issue 22, STYLE 13): it builds everything from the registry.

Scans every module of api/ but the example modules for a ruleset id as a string of its own
(`if ruleset == "numking"`, a dict keyed by ids, a `Literal[...]` of ids), a game's package
imported (`engine.numking…`), or a game's class named (`isinstance(rules, NumKing)`).
Prose (docstrings, descriptions) may name a game; examples of real answers may use one: a
string inside a function or assignment whose name says `example` is one.
"""

from __future__ import annotations

import ast
from pathlib import Path

from engine.registry import SPECS

ROOT = Path(__file__).resolve().parents[2]
API = ROOT / "api"


def _game_names() -> tuple[set[str], set[str], set[str]]:
    ids = set(SPECS)
    packages = {spec.rules.__module__.rsplit(".", 1)[0] for spec in SPECS.values()}
    classes = {spec.rules.__name__ for spec in SPECS.values()}
    for spec in SPECS.values():  # every struct a game declares: views, requests, round bodies
        classes.add(spec.sheet.body.__name__)
        classes.update(op.request.__name__ for op in spec.operations)
        classes.add(spec.deck.query.__name__)
    return ids, packages, classes


def _example_scope(stack: list[ast.AST]) -> bool:
    for node in stack:
        names: list[str] = []
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names = [node.name]
        elif isinstance(node, ast.Assign):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names = [node.target.id]
        if any("example" in name.lower() for name in names):
            return True
    return False


def offences(source: str, where: str) -> list[str]:
    ids, packages, classes = _game_names()
    found: list[str] = []

    def visit(node: ast.AST, stack: list[ast.AST]) -> None:
        line = f"{where}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.ImportFrom) and node.module:
            if any(node.module == p or node.module.startswith(p + ".") for p in packages):
                found.append(f"{line}: imports {node.module}")
            found.extend(
                f"{line}: imports {alias.name}" for alias in node.names if alias.name in classes
            )
        elif isinstance(node, ast.Import):
            found.extend(
                f"{line}: imports {alias.name}"
                for alias in node.names
                if any(alias.name.startswith(p) for p in packages)
            )
        elif isinstance(node, ast.Name) and node.id in classes:
            found.append(f"{line}: names the game class {node.id}")
        elif isinstance(node, ast.Attribute) and node.attr in classes:
            found.append(f"{line}: names the game class {node.attr}")
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value in ids
            and not _example_scope(stack)
        ):
            found.append(f"{line}: the ruleset id {node.value!r}")
        for child in ast.iter_child_nodes(node):
            visit(child, [*stack, node])

    visit(ast.parse(source), [])
    return found


def test_no_module_of_api_names_a_ruleset() -> None:
    found: list[str] = []
    for path in sorted(API.rglob("*.py")):
        if path.name == "examples.py":
            continue
        found += offences(path.read_text(), str(path.relative_to(ROOT)))
    assert found == []


def test_the_engine_above_and_below_the_games_names_none() -> None:
    """Nor do the engine's modules around the games: core (below them), the simulation and
    the summaries (above the registry, which alone lists the games)."""
    engine = ROOT / "engine"
    paths = [
        *sorted((engine / "core").rglob("*.py")),
        engine / "simulate.py",
        engine / "summaries.py",
    ]
    found: list[str] = []
    for path in paths:
        found += offences(path.read_text(), str(path.relative_to(ROOT)))
    assert found == []


def test_the_scan_finds_a_branch_an_import_and_a_class() -> None:
    """The scan is not vacuous: each kind of naming is found."""
    source = (
        "from engine.numking import NumKing\n"
        "def f(rules, ruleset):\n"
        "    if ruleset == 'numwin':\n"
        "        return isinstance(rules, NumKing)\n"
        "EXAMPLE = {'ruleset': 'numwars'}\n"
    )
    found = offences(source, "x.py")
    assert any("imports engine.numking" in f for f in found)
    assert any("'numwin'" in f for f in found)
    assert any("NumKing" in f and "class" in f for f in found)
    assert not any("'numwars'" in f for f in found)  # an example may use one
