#!/usr/bin/env bash
# Make sure Debian's headless Chromium is installed and print its path: the browser of the
# docs test (tests/api/test_docs_browser.py). Playwright's own browser download needs a CDN
# this machine cannot reach, so the test drives Debian's chromium-headless-shell instead.
# Idempotent: installs only when the package is missing.
set -euo pipefail
if ! dpkg -s chromium-headless-shell >/dev/null 2>&1; then
  echo "installing chromium-headless-shell from Debian's packages" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell >/dev/null
fi
dpkg -L chromium-headless-shell | grep -E '/lib/chromium/chromium-headless-shell$' | head -n 1
