"""The mypyc build (setup.py): what it compiles, and that a compiled test run uses it."""

from __future__ import annotations

import ast
import importlib
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

from tests.conftest import BUILD_DIR, ROOT


def _compiled_modules() -> list[str]:
    """`MYPYC_MODULES` as setup.py lists them (read, not imported: importing runs setup)."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            if any(isinstance(t, ast.Name) and t.id == "MYPYC_MODULES" for t in targets):
                assert node.value is not None
                return list(ast.literal_eval(node.value))
    raise AssertionError("setup.py defines no MYPYC_MODULES")


MODULES = _compiled_modules()


def test_the_build_compiles_the_round_states() -> None:
    assert {"engine/numwars/round.py", "engine/numwars_classic/round.py"} <= set(MODULES)
    for path in MODULES:
        assert (ROOT / path).is_file(), path


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
