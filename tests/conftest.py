"""Shared test fixtures: where the conformance cases live, and which engine build is tested.

With NUMRULES_BUILD_DIR set (deploy/test.sh sets it for its second pass), the suite imports
the packages installed there, the mypyc-compiled build of `deploy/build-mypyc.sh`, ahead of
the source tree, and refuses to run if a compiled module would still come from source or if
the build was made from other sources than those of `engine/` and `api/` in the tree.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The repository's own copy of the conformance cases: every conformance runner reads it, so
#: the suite runs in a clone with nothing beside it.
CONFORMANCE_DIR = ROOT / "tests" / "conformance" / "cases"
#: Where the cases come from: the shared folder beside the repository (../shared/conformance),
#: when there is one; NUMRULES_CONFORMANCE_DIR points elsewhere. When it exists, the API runner
#: also runs its cases that the copy lacks or holds otherwise, and
#: tests/conformance/test_upstream.py fails on them, so new cases are adopted, not lost.
UPSTREAM_CONFORMANCE_DIR = Path(
    os.environ.get("NUMRULES_CONFORMANCE_DIR", ROOT.parent / "shared" / "conformance")
)
#: The compiled build under test, if any (see the module docstring).
BUILD_DIR = os.environ.get("NUMRULES_BUILD_DIR")

if BUILD_DIR:
    if "engine" in sys.modules:
        raise RuntimeError("engine was imported before the conftest could select the build")
    _stale = [  # the build holds a copy of every source file it was built from
        str(p.relative_to(ROOT))
        for package in ("engine", "api")  # every subpackage too (engine/core, engine/<game>)
        for p in sorted((ROOT / package).rglob("*.py"))
        if not (copy := Path(BUILD_DIR, p.relative_to(ROOT))).is_file()
        or copy.read_bytes() != p.read_bytes()
    ]
    _stale += [  # and no module the tree no longer has (a moved or deleted one)
        str(p.relative_to(BUILD_DIR))
        for package in ("engine", "api")
        for p in sorted(Path(BUILD_DIR, package).rglob("*.py"))
        if not (ROOT / p.relative_to(BUILD_DIR)).is_file()
    ]
    if _stale:  # the build would test old copies of these modules
        raise RuntimeError(
            f"{BUILD_DIR} was built from other sources than {', '.join(_stale)}:"
            " run deploy/build-mypyc.sh"
        )
    sys.path.insert(0, str(Path(BUILD_DIR).resolve()))
    # Bind the packages now: pytest later puts the repository first on sys.path to import
    # the test modules, and the submodules then still resolve in the packages' own folder.
    import api  # noqa: F401
    import engine  # noqa: F401

# The suites fire bursts from 127.0.0.1 (schemathesis, whole matches): no rate limit unless a
# test sets one (tests/api/test_rate_limit.py); servers the tests start inherit it.
os.environ.setdefault("NUMRULES_RATE_LIMIT_PER_MINUTE", "0")
# `api.app.app` (the module-level app the stateless suite serves) is built from the environment
# when first imported, by whichever suite imports it first: it needs no database (suites on a
# database build their own app with the check on, tests/pg.py).
os.environ.setdefault("NUMRULES_CHECK_DB_ON_START", "false")

import pytest  # noqa: E402

# The live check of problem codes (issue 23): every problem answer a test receives through an
# HTTP client is held to the served spec (tests/problem_check.py).
from tests import problem_check  # noqa: E402

# PostgreSQL (and SQLite) databases for the storage and stored-games suites: one fresh,
# migrated PostgreSQL database per run (tests/pg.py).
from tests.pg import games, games_app, pg_head, pg_url, sqlite_url  # noqa: E402, F401

problem_check.install()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> object:
    """A test whose requests got a problem answer the served spec does not document fails
    (what its fixtures' requests got counts too)."""
    result = yield
    found = problem_check.take()
    if found:
        pytest.fail(problem_check.report(found), pytrace=False)
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> object:
    """What a test's teardown got (its fixtures' last requests) fails the test as an error."""
    result = yield
    found = problem_check.take()
    if found:
        pytest.fail(problem_check.report(found), pytrace=False)
    return result
