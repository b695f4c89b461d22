#!/usr/bin/env bash
# Set up on a fresh machine and run the service on http://127.0.0.1:8000 (docs at /docs).
# Installs only what serving needs (deploy/setup.sh serve), builds the web app
# (deploy/ensure-app.sh: Node.js and npm from Debian when absent) and the compiled engine
# (deploy/build-mypyc.sh); both are skipped when nothing changed, so a restart is quick.
# Migrates the database first (numrules db upgrade). HOST and PORT override the address; other arguments go to `numrules serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/setup.sh serve
bash deploy/ensure-app.sh  # the web app, built into api/web/dist (served at /)
bash deploy/build-mypyc.sh  # the engine compiled with mypyc (setup.py), ahead of the source
# the database (DATABASE_URL; unset: the SQLite file numrules.db here) migrated to head
PYTHONPATH=.build/mypyc .venv/bin/numrules db upgrade
echo "serve: HOST ${HOST:-127.0.0.1}, PORT ${PORT:-8000}, flags: ${*:-none} (a --host or --port flag wins); docs at /docs"
PYTHONPATH=.build/mypyc exec .venv/bin/numrules serve "$@"  # HOST, PORT, NUMRULES_WORKERS: api/ops/settings.py
