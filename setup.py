"""Build hook: with NUMRULES_MYPYC=1 each game's kernel is compiled with mypyc.

The compiled build is what `deploy/serve.sh` installs and what the benchmarks measure; the
editable development install stays pure Python, and `deploy/test.sh` runs the engine suite on
both. What is compiled is contained (issue 9): every game's `kernel.py` but numking's, found by
the glob below, and nothing else — the round state machine with plain typed arguments. The public
round object in front of it (`engine/<game>/round.py`, `engine.core.boundary`) is plain
Python and checks a seat or an action once, so no other module has to suit the compiler.
A kernel declares no msgspec struct: mypyc drops the class keywords (`frozen=True`,
`kw_only=True` …) of a compiled class statement (`tests/test_build.py` checks it).
Needs the runtime dependencies installed (build with `--no-build-isolation`).
"""

from __future__ import annotations

import os
from glob import glob

from setuptools import setup

#: The modules mypyc compiles: every game's kernel, its state machine (tests/engine/test_build.py
#: lists them).
KERNEL_GLOB = "engine/*/kernel.py"

ext_modules = []
if os.environ.get("NUMRULES_MYPYC") == "1":
    from mypyc.build import mypycify

    ext_modules = mypycify(sorted(glob(KERNEL_GLOB)), opt_level="3")

setup(ext_modules=ext_modules)
