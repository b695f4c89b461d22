"""Benchmarks (see bench/README.md).

With NUMRULES_BUILD_DIR set (`bench/run.sh` builds `.build/mypyc` and sets it), they measure
the packages installed there, the mypyc-compiled engine that deploy/serve.sh runs, ahead of
the source tree; without it, the pure-Python source. Each prints which.
"""

from __future__ import annotations

import os
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

BUILD_DIR = os.environ.get("NUMRULES_BUILD_DIR")
if BUILD_DIR:
    sys.path.insert(0, str(Path(BUILD_DIR).resolve()))


def engine_build() -> str:
    """Which engine this process runs: the mypyc-compiled build or the pure-Python source."""
    import engine.numwars.kernel

    path = engine.numwars.kernel.__file__ or ""
    if path.endswith(tuple(EXTENSION_SUFFIXES)):
        return f"mypyc-compiled ({Path(path).parents[2]})"
    return "pure Python (source)"
