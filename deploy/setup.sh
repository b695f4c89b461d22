#!/usr/bin/env bash
# Create .venv (Python 3.11+) and install numrules into it (editable).
#   bash deploy/setup.sh serve   what serving needs: the runtime packages, and mypy, whose
#                                compiler mypyc builds the compiled engine (deploy/build-mypyc.sh)
#   bash deploy/setup.sh [dev]   that and the development tools (tests, lint, types, browser),
#                                and the TypeScript client's (deploy/ensure-typescript.sh)
# Skips everything when nothing changed: a stamp in .venv records a hash of pyproject.toml and
# setup.py per mode (NUMRULES_REINSTALL=1 forces). pip's output goes to .venv/setup.log; on a
# failure its last lines are printed.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-dev}
case "$mode" in
  serve) extra=build ;;
  dev) extra=dev ;;
  *) echo "usage: deploy/setup.sh [serve|dev]" >&2; exit 2 ;;
esac
key=$(cat pyproject.toml setup.py | sha256sum | cut -c1-16)
stamp() { echo ".venv/.numrules-setup-$1"; }
installed() { [ -f "$(stamp "$1")" ] && [ "$(cat "$(stamp "$1")")" = "$key" ]; }
if [ "${NUMRULES_REINSTALL:-0}" != 1 ] && [ -x .venv/bin/python ] &&
   { installed "$mode" || { [ "$mode" = serve ] && installed dev; }; }; then
  if [ "$mode" = dev ]; then bash deploy/ensure-typescript.sh; fi
  exit 0
fi

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
log=.venv/setup.log
fail() {
  echo "setup: failed; the end of $log:" >&2
  tail -n 30 "$log" >&2
  exit 1
}
start=$SECONDS
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv with $("$PY" -V)"
  "$PY" -m venv .venv
fi
: >"$log"
echo "setup: installing numrules and the packages for '$mode' (log: $log)"
# setuptools >= 70.1 builds wheels itself (deploy/build-mypyc.sh builds without isolation)
.venv/bin/python -m pip install --upgrade pip "setuptools>=70.1" >>"$log" 2>&1 || fail
.venv/bin/python -m pip install -e ".[$extra]" >>"$log" 2>&1 || fail
rm -f .venv/.numrules-setup-*
echo "$key" >"$(stamp "$mode")"
if [ "$mode" = dev ]; then bash deploy/ensure-typescript.sh; fi
echo "setup: done in $((SECONDS - start)) s"
