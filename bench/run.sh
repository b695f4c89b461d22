#!/usr/bin/env bash
# One command per benchmark, on the build that deploy/serve.sh runs: builds the mypyc-compiled
# engine (.build/mypyc), then runs `bench.<name>` on it with any extra flags.
#   bash bench/run.sh engine [--reps 5 --seconds 1.5]
#   bash bench/run.sh http [--reps 3 --duration 4]      # vs the echo and FastAPI
#   bash bench/run.sh games [--reps 3 --duration 5]     # stored games vs raw asyncpg, boardgame.io
#   bash bench/run.sh scale [--reps 3 --duration 5]     # cold load vs log length; 1/2/4 workers
#   bash bench/run.sh layers [--reps 3 --requests 5000] # CPU per request of each layer, in process
#   bash bench/run.sh all                               # every one of them, then the targets table
# `all` writes each benchmark's output to bench/results/<name>.txt (and .json), the py-spy
# profile of the stored-games server to bench/results/games-profile.txt, the table to
# bench/results/summary.txt. Needs the bench extra (OpenSpiel, FastAPI), wrk, py-spy, node/npm
# and PostgreSQL on 127.0.0.1:5432: see bench/README.md. For the pure-Python source, run
# `.venv/bin/python -m bench.engine` directly.
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: bash bench/run.sh engine|http|games|scale|layers|all [flags] (each one's flags: --help)"
case "${1:-}" in
  engine | http | games | scale | layers | all) ;;
  -h | --help) echo "$usage"; exit 0 ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
which=$1; shift
bash deploy/build-mypyc.sh
export NUMRULES_BUILD_DIR=.build/mypyc
if [ "$which" != all ]; then
  exec .venv/bin/python -m "bench.$which" "$@"
fi
mkdir -p bench/results
echo "rate limit: NUMRULES_RATE_LIMIT_PER_MINUTE=${NUMRULES_RATE_LIMIT_PER_MINUTE:-0} (0: off)"
.venv/bin/python -m bench.engine | tee bench/results/engine.txt
.venv/bin/python -m bench.http --json bench/results/http.json | tee bench/results/http.txt
.venv/bin/python -m bench.layers --json bench/results/layers.json | tee bench/results/layers.txt
.venv/bin/python -m bench.games --clocks --pipeline --streams --json bench/results/games.json \
  --profile bench/results/games-profile.txt | tee bench/results/games.txt
.venv/bin/python -m bench.scale --json bench/results/scale.json | tee bench/results/scale.txt
.venv/bin/python -m bench.report bench/results | tee bench/results/summary.txt
