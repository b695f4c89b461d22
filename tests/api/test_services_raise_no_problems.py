"""A service refuses with domain errors only (issue 22, "HTTP concerns once"): neither
api/games/service.py nor api/sheets/service.py, nor the modules of their areas below them, nor
any helper of api/ they call (`check_ruleset`, `check_name`, `community_locked`,
`accounts_by_pseudo`, `lock_account`, a body's decoding …) raises an HTTP `ProblemError`;
that is left to what only the HTTP layer raises (routes, body decoding in a route, hygiene)."""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
import types
from collections.abc import Iterator
from typing import Any

import pytest

#: The modules scanned whole: the two services and their areas' modules below them.
SERVICES = [
    "api.games.service",
    "api.games.repository",
    "api.games.formats",
    "api.sheets.service",
    "api.sheets.repository",
    "api.sheets.rules",
    "api.sheets.idempotency",
    "api.sheets.formats",
]


def _names(tree: ast.AST, scope: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """Every name `tree` reads, with what it is bound to in `scope` (a module's globals);
    `module.name` is followed into an api module."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            yield node.id, scope.get(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            owner = scope.get(node.value.id)
            if isinstance(owner, types.ModuleType) and owner.__name__.startswith("api."):
                yield node.attr, getattr(owner, node.attr, None)


def _is_problem(name: str, value: Any) -> bool:
    """`ProblemError` itself, or a helper that makes one (`field_problem`, `decode_error`,
    `unauthorized` … annotated `-> ProblemError`)."""
    if name == "ProblemError":
        return True
    return inspect.isfunction(value) and value.__annotations__.get("return") == "ProblemError"


def _reached(module: types.ModuleType) -> dict[str, str]:
    """Each `raise` of an HTTP problem that `module` reaches, itself or through the api/
    functions it calls, with the chain of functions that leads there."""
    found: dict[str, str] = {}
    todo: list[tuple[ast.AST, dict[str, Any], str]] = [
        (ast.parse(inspect.getsource(module)), vars(module), module.__name__)
    ]
    seen: set[Any] = set()
    while todo:
        tree, scope, chain = todo.pop()
        for node in ast.walk(tree):
            if isinstance(node, ast.Raise) and node.exc is not None:
                for name, value in _names(node.exc, scope):
                    if _is_problem(name, value):
                        found.setdefault(f"raise {name}", chain)
        for _, value in _names(tree, scope):
            if (
                inspect.isfunction(value)
                and value.__module__.startswith("api.")
                and value not in seen
            ):
                seen.add(value)
                source = textwrap.dedent(inspect.getsource(value))
                where = f"{chain} → {value.__module__}.{value.__qualname__}"
                todo.append((ast.parse(source), value.__globals__, where))
    return found


@pytest.mark.parametrize("name", SERVICES)
def test_a_service_raises_no_http_problem(name: str) -> None:
    assert _reached(importlib.import_module(name)) == {}


def test_the_scan_sees_a_helper_that_raises_a_problem() -> None:
    """The scan follows calls into api/: a route module that decodes its own body reaches
    `decode_error` through `decode_body`."""
    reached = _reached(importlib.import_module("api.games.routes"))
    assert "raise decode_error" in reached and "raise ProblemError" in reached
