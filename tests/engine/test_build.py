"""The mypyc build (setup.py): what it compiles, and that a compiled test run uses it."""

from __future__ import annotations

import ast
import importlib
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

from tests.conftest import BUILD_DIR, ROOT


def _compiled_modules() -> list[str]:
    """The modules setup.py's `KERNEL_GLOB` finds (read, not imported: importing runs setup)."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            if any(isinstance(t, ast.Name) and t.id == "KERNEL_GLOB" for t in targets):
                assert node.value is not None
                pattern = ast.literal_eval(node.value)
                return sorted(str(p.relative_to(ROOT)) for p in ROOT.glob(pattern))
    raise AssertionError("setup.py defines no KERNEL_GLOB")


MODULES = _compiled_modules()


def test_the_build_compiles_each_games_kernel_and_nothing_else() -> None:
    assert MODULES == [
        "engine/numking/kernel.py",
        "engine/numwars/kernel.py",
        "engine/numwars_classic/kernel.py",
        "engine/numwin/kernel.py",
    ]


@pytest.mark.parametrize("path", MODULES)
def test_only_the_games_round_imports_its_kernel(path: str) -> None:
    """The kernel is contained: the public round object (plain Python) is its one importer
    at run time (the view names its type only), so every seat and action reaches it through
    that boundary's checks."""
    kernel = path.removesuffix(".py").replace("/", ".")
    importers = [
        str(p.relative_to(ROOT))
        for p in sorted((ROOT / "engine").rglob("*.py"))
        if str(p.relative_to(ROOT)) != path
        and any(  # module-level imports: those under `if TYPE_CHECKING:` are not run
            isinstance(node, ast.ImportFrom) and node.module == kernel
            for node in ast.parse(p.read_text()).body
        )
    ]
    assert importers == [path.replace("kernel.py", "round.py")]


@pytest.mark.parametrize("path", MODULES)
def test_compiled_modules_use_no_class_keywords(path: str) -> None:
    """mypyc silently drops a compiled class statement's keywords: a msgspec struct declared
    `frozen=True, kw_only=True` would lose both. Such classes belong in pure modules."""
    tree = ast.parse((ROOT / path).read_text())
    offenders = [
        node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef) and node.keywords
    ]
    assert offenders == [], f"{path}: class keywords in {offenders}"


@pytest.mark.skipif(not BUILD_DIR, reason="a pure-Python run (NUMRULES_BUILD_DIR unset)")
@pytest.mark.parametrize("path", MODULES)
def test_a_compiled_run_imports_the_compiled_modules(path: str) -> None:
    module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
    assert module.__file__ is not None
    assert module.__file__.endswith(tuple(EXTENSION_SUFFIXES)), module.__file__
    assert Path(module.__file__).resolve().is_relative_to(Path(str(BUILD_DIR)).resolve())
