#!/usr/bin/env bash
# Make sure the OpenAPI linter is installed and print its path: Redocly CLI, pinned in
# openapi/lint/package-lock.json, installed there with `npm ci` (the machine's Node.js 20 and
# npm; the package bundles its dependencies). tests/api/test_spec_lint.py runs it on the
# served spec. Idempotent: installs only when the lock file changed since the last install.
set -euo pipefail
cd "$(dirname "$0")/../openapi/lint"
key=$(sha256sum package-lock.json | cut -c1-16)
stamp=node_modules/.numrules-lock
if [ ! -x node_modules/.bin/redocly ] || [ "$(cat "$stamp" 2>/dev/null)" != "$key" ]; then
  echo "installing the spec linter (npm ci in openapi/lint)" >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
  echo "$key" >"$stamp"
fi
echo "$PWD/node_modules/.bin/redocly"
