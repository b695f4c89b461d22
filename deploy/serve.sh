#!/usr/bin/env bash
# Set up on a fresh machine and run the service on http://127.0.0.1:8000 (docs at /docs).
# Without DATABASE_URL the service keeps its data in an embedded SQLite file (numrules.db).
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/setup.sh
bash deploy/build-mypyc.sh  # the engine compiled with mypyc (setup.py), ahead of the source
PYTHONPATH=.build/mypyc exec .venv/bin/numrules serve --host "${HOST:-127.0.0.1}" --port "${PORT:-8000}" "$@"
