#!/usr/bin/env bash
# The whole test suite from a fresh checkout: install, lint, type-check, check the import
# layering, test the source, then build the mypyc-compiled engine (what serve.sh runs) and run
# the engine suite on that build (tests/engine: the API and storage suites do not run twice).
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/setup.sh
bash deploy/ensure-postgres.sh
.venv/bin/ruff check engine api tests bench
.venv/bin/ruff format --check engine api tests bench
.venv/bin/mypy
.venv/bin/lint-imports
.venv/bin/python -m pytest -q -p no:cacheprovider "$@"
bash deploy/build-mypyc.sh
NUMRULES_BUILD_DIR=.build/mypyc .venv/bin/python -m pytest -q -p no:cacheprovider tests/engine
