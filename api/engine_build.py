"""Which engine the console's `simulate` and `play` run: the compiled one when it is built
and current, else the source (issue 23).

`deploy/build-mypyc.sh` installs the mypyc-compiled numrules into `.build/mypyc` (every game's
kernel an extension module, the rest copies of the source), and `deploy/serve.sh` runs it by
putting that folder first on ``PYTHONPATH``. The console script is the editable install, so
:func:`select_build` does the same from inside, before anything imports ``engine``: the folder
is ``NUMRULES_BUILD_DIR`` when set (as for deploy/test.sh's compiled pass), else the
checkout's `.build/mypyc` (nothing to choose when this module itself runs from a build, as
under serve.sh's ``PYTHONPATH``). A build whose copy of any `engine/` source differs from the tree
(made before the last change) is not used: it would run old rules. :func:`engine_in_use` then
says what was imported — ``compiled`` when the kernels are extension modules — so the
commands print the engine they really ran.

This module imports nothing of ``engine``: importing it must not load the source engine.
"""

from __future__ import annotations

import os
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD_VARIABLE = "NUMRULES_BUILD_DIR"


def build_dir() -> Path:
    """Where the compiled build is looked for."""
    configured = os.environ.get(BUILD_VARIABLE)
    return Path(configured) if configured else ROOT / ".build" / "mypyc"


def stale_files(build: Path) -> list[str]:
    """The `engine/` sources the build holds no identical copy of, and the modules it holds
    that the tree no longer has (as tests/conftest.py checks a build before testing it)."""
    source = ROOT / "engine"
    stale = [
        str(p.relative_to(ROOT))
        for p in sorted(source.rglob("*.py"))
        if not (copy := build / p.relative_to(ROOT)).is_file()
        or copy.read_bytes() != p.read_bytes()
    ]
    stale += [
        str(p.relative_to(build))
        for p in sorted((build / "engine").rglob("*.py"))
        if not (ROOT / p.relative_to(build)).is_file()
    ]
    return stale


def select_build() -> str | None:
    """Put the compiled build first on ``sys.path`` if it is there and current; None when it
    is, else why the source runs instead."""
    if "engine" in sys.modules:
        return "the engine was imported before the build could be chosen"
    if (ROOT / ".numrules-build").is_file():  # this code runs from a build (PYTHONPATH)
        return None
    build = build_dir()
    if not (build / "engine").is_dir():
        return f"no compiled build in {build} (deploy/build-mypyc.sh builds it)"
    stale = stale_files(build)
    if stale:
        return (
            f"the build in {build} was made from other sources than {stale[0]}"
            + (f" and {len(stale) - 1} more" if len(stale) > 1 else "")
            + " (deploy/build-mypyc.sh rebuilds it)"
        )
    sys.path.insert(0, str(build.resolve()))
    return None


def engine_in_use() -> tuple[str, str]:
    """(``compiled`` or ``source``, where the engine was imported from), once the registry
    (and so every game's kernel) is imported."""
    import engine.registry  # noqa: F401  (imports every game, so their kernels)

    kernels = [
        module
        for name, module in sys.modules.items()
        if name.startswith("engine.") and name.endswith(".kernel")
    ]
    files = [getattr(module, "__file__", None) or "" for module in kernels]
    compiled = bool(files) and all(f.endswith(tuple(EXTENSION_SUFFIXES)) for f in files)
    package = sys.modules["engine"].__file__ or ""
    return ("compiled" if compiled else "source"), str(Path(package).parent)
