#!/usr/bin/env bash
# The TypeScript client's tools (app: openapi-typescript, openapi-fetch and
# typescript, pinned by its package-lock.json), for tests/api/test_typescript.py. Installs
# Node.js and npm from Debian when absent, then `npm ci`; skipped when node_modules was
# installed from the same lock (a stamp holds its hash). NUMRULES_REINSTALL=1 forces.
set -euo pipefail
cd "$(dirname "$0")/../app"
if ! command -v npm >/dev/null 2>&1; then
  echo "typescript: installing Node.js and npm (Debian)"
  apt-get update -qq >/dev/null && apt-get install -y -qq nodejs npm >/dev/null
fi
key=$(sha256sum package-lock.json | cut -c1-16)
stamp=node_modules/.numrules-npm-ci
if [ "${NUMRULES_REINSTALL:-0}" != 1 ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ]; then
  exit 0
fi
echo "typescript: npm ci in app"
npm ci --no-audit --no-fund --loglevel=error >/dev/null
echo "$key" >"$stamp"
