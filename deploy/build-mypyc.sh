#!/usr/bin/env bash
# Build the mypyc-compiled numrules into .build/mypyc (see setup.py): the build that
# deploy/serve.sh runs and the benchmarks measure. Needs deploy/setup.sh's .venv (mypy and
# the runtime dependencies: the compiler type-checks the modules it compiles) and a C compiler.
# Built beside the old build, then swapped in: .build/mypyc is never half-written.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf build .build/mypyc.new  # build/: setuptools would ship stale modules left there
NUMRULES_MYPYC=1 .venv/bin/python -m pip install -q --no-build-isolation --no-deps \
  --target .build/mypyc.new .
rm -rf .build/mypyc.old
if [ -d .build/mypyc ]; then mv .build/mypyc .build/mypyc.old; fi
mv .build/mypyc.new .build/mypyc
rm -rf .build/mypyc.old
