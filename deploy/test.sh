#!/usr/bin/env bash
# The whole test suite from a fresh checkout: install, lint, type-check, check the import
# layering, test the source, then build the mypyc-compiled engine (what serve.sh runs) and run
# the engine suite on that build (tests/engine: the API and storage suites do not run twice).
# Installs what the tests need: the dev packages, PostgreSQL, Debian's headless Chromium, and
# the spec linter (Redocly CLI, from npm: deploy/ensure-speclint.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/setup.sh dev
bash deploy/ensure-app.sh  # the web app: tsc --strict, vite build, its size against the budget
bash deploy/ensure-postgres.sh
NUMRULES_CHROMIUM=$(bash deploy/ensure-chromium.sh)
export NUMRULES_CHROMIUM NUMRULES_REQUIRE_BROWSER=1  # the browser test may not skip here
NUMRULES_REDOCLY=$(bash deploy/ensure-speclint.sh)
export NUMRULES_REDOCLY NUMRULES_REQUIRE_SPEC_LINT=1  # the spec lint may not skip here
.venv/bin/ruff check engine api tests bench
.venv/bin/ruff format --check engine api tests bench
.venv/bin/mypy
.venv/bin/lint-imports
# three processes on the two cores (pytest-xdist; two left a fifth of the CPU idle while tests
# wait on servers, browsers and clocks), each test handed to whichever is free ("worksteal":
# the browser journeys take tens of seconds, most tests milliseconds; not "loadfile", which
# runs one of the schemathesis tests' operations, whose items share a name); each process has
# its own database
.venv/bin/python -m pytest -q -p no:cacheprovider -n 3 --dist worksteal "$@"
bash deploy/build-mypyc.sh
NUMRULES_BUILD_DIR=.build/mypyc .venv/bin/python -m pytest -q -p no:cacheprovider -n 2 \
    --dist worksteal tests/engine
