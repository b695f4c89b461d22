"""Build hook: with NUMRULES_MYPYC=1 the engine's hot modules are compiled with mypyc.

The compiled build is what `deploy/serve.sh` installs and what the benchmarks measure; the
editable development install stays pure Python, and `deploy/test.sh` runs the suite on both.
The compiled modules are the same source files (mypy --strict clean, as mypyc needs): the
round states and the shared modules they call. Modules that define msgspec structs stay
pure Python, because mypyc drops the class keywords (`frozen=True`, `kw_only=True` …) of a
compiled class statement; `tests/test_build.py` keeps such class statements out of this list.
Needs the runtime dependencies installed (build with `--no-build-isolation`).
"""

from __future__ import annotations

import os

from setuptools import setup

#: The modules mypyc compiles: the play-out hot path and the helpers it calls. The input
#: checks (`engine/cards.py`, `engine/tricks.py`) stay pure: compiled code rejects a value of
#: the wrong type with a TypeError where they name the bad card, whatever its type.
MYPYC_MODULES = [
    "engine/core/rng.py",
    "engine/core/scoring.py",
    "engine/numwars/round.py",
    "engine/numwars_classic/cards.py",
    "engine/numwars_classic/round.py",
    "engine/numwin/round.py",
]

ext_modules = []
if os.environ.get("NUMRULES_MYPYC") == "1":
    from mypyc.build import mypycify

    ext_modules = mypycify(MYPYC_MODULES, opt_level="3")

setup(ext_modules=ext_modules)
