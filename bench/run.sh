#!/usr/bin/env bash
# One command per benchmark, on the build that deploy/serve.sh runs: builds the mypyc-compiled
# engine (.build/mypyc), then runs `bench.engine` or `bench.http` on it with any extra flags.
#   bash bench/run.sh engine [--reps 5 --seconds 1.5]
#   bash bench/run.sh http [--reps 3 --duration 4]
# Needs the bench extra (OpenSpiel) and wrk: see bench/README.md. For the pure-Python source,
# run `.venv/bin/python -m bench.engine` directly.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  engine | http) ;;
  *) echo "usage: bash bench/run.sh engine|http [flags]" >&2; exit 2 ;;
esac
which=$1; shift
bash deploy/build-mypyc.sh
NUMRULES_BUILD_DIR=.build/mypyc exec .venv/bin/python -m "bench.$which" "$@"
