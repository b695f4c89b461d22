#!/usr/bin/env bash
# Build the mypyc-compiled numrules into .build/mypyc (see setup.py): the build that
# deploy/serve.sh runs and the benchmarks measure. Needs deploy/setup.sh's .venv (mypy and
# the runtime dependencies: the compiler type-checks the modules it compiles) and a C compiler.
# Built beside the old build, then swapped in: .build/mypyc is never half-written.
# Skipped when the build is up to date: .build/mypyc/.numrules-build records a hash of every
# file of engine/ and api/ (the build holds both: serve.sh imports them from it; the built web
# app of api/web/dist too, its package data), setup.py,
# pyproject.toml and the Python version (NUMRULES_REBUILD=1 forces). The compiler's output
# goes to .build/build.log; on a failure its last lines are printed.
set -euo pipefail
cd "$(dirname "$0")/.."
key=$({ find engine api -type f \( -name '*.py' -o -name 'py.typed' -o -path 'api/web/dist/*' \) |
        LC_ALL=C sort |
        xargs sha256sum; sha256sum setup.py pyproject.toml; .venv/bin/python -VV; } |
      sha256sum | cut -c1-16)
stamp=.build/mypyc/.numrules-build
if [ "${NUMRULES_REBUILD:-0}" != 1 ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ]; then
  exit 0
fi
mkdir -p .build
log=.build/build.log
start=$SECONDS
echo "build: compiling the engine with mypyc into .build/mypyc (log: $log)"
rm -rf build .build/mypyc.new  # build/: setuptools would ship stale modules left there
if ! NUMRULES_MYPYC=1 .venv/bin/python -m pip install --no-build-isolation --no-deps \
    --target .build/mypyc.new . >"$log" 2>&1; then
  echo "build: failed; the end of $log:" >&2
  tail -n 30 "$log" >&2
  exit 1
fi
echo "$key" >.build/mypyc.new/.numrules-build
rm -rf .build/mypyc.old
if [ -d .build/mypyc ]; then mv .build/mypyc .build/mypyc.old; fi
mv .build/mypyc.new .build/mypyc
rm -rf .build/mypyc.old
echo "build: done in $((SECONDS - start)) s"
