#!/usr/bin/env bash
# Create .venv (Python 3.11+) and install numrules with its dev tools. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-}
if [ -z "$PY" ]; then
  for candidate in python3.13 python3.12 python3.11 python3; do
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      PY=$candidate; break
    fi
  done
fi
[ -n "$PY" ] || { echo "Python 3.11+ is required" >&2; exit 1; }
[ -x .venv/bin/python ] || "$PY" -m venv .venv
# setuptools >= 70.1 builds wheels itself (deploy/build-mypyc.sh builds without isolation)
.venv/bin/python -m pip install -q --upgrade pip "setuptools>=70.1" >/dev/null
.venv/bin/python -m pip install -q -e ".[dev]"
