#!/usr/bin/env bash
# Build the web app (app/: TypeScript + Preact, bundled by Vite) into api/web/dist, which the
# service serves at / (api/web/routes.py) and the package ships as package data. Steps:
# the npm packages pinned by app/package-lock.json (deploy/ensure-typescript.sh: `npm ci` when
# the lock changed), the API's types generated from the committed spec (app/schema.d.ts),
# `tsc --strict` over the app (a spec change that breaks it fails here), `vite build`, then
# the shipped JavaScript measured gzipped against its budget (APP_JS_BUDGET_BYTES). Skipped
# when nothing it reads changed (a stamp in api/web/dist holds their hash); NUMRULES_REBUILD=1
# forces.
set -euo pipefail
cd "$(dirname "$0")/.."
BUDGET=${APP_JS_BUDGET_BYTES:-61440}  # 60 KiB of gzipped JavaScript
bash deploy/ensure-typescript.sh
key=$({ find app/src app/public -type f | LC_ALL=C sort | xargs sha256sum
        sha256sum app/index.html app/vite.config.ts app/tsconfig.json app/package-lock.json \
          openapi/openapi.json; echo "$BUDGET"; } | sha256sum | cut -c1-16)
stamp=api/web/dist/.numrules-build
if [ "${NUMRULES_REBUILD:-0}" != 1 ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ]; then
  exit 0
fi
start=$SECONDS
cd app
node_modules/.bin/openapi-typescript ../openapi/openapi.json -o schema.d.ts >/dev/null
node_modules/.bin/tsc --strict --noEmit -p .
node_modules/.bin/vite build --logLevel warn
cd ..
js=0
for f in api/web/dist/assets/*.js; do js=$((js + $(gzip -9c "$f" | wc -c))); done
echo "app: built into api/web/dist in $((SECONDS - start)) s; JavaScript ${js} bytes gzipped (budget ${BUDGET})"
if [ "$js" -gt "$BUDGET" ]; then
  echo "app: the JavaScript is over its budget" >&2
  exit 1
fi
echo "$js" >api/web/dist/.numrules-js-gzip-bytes
echo "$key" >"$stamp"
