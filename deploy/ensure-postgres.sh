#!/usr/bin/env bash
# Make sure a PostgreSQL server answers on 127.0.0.1:5432 (trust auth for local test runs).
# Starts the installed cluster, or installs PostgreSQL from Debian's packages when absent.
set -euo pipefail
if pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then exit 0; fi
if ! command -v pg_ctlcluster >/dev/null 2>&1 || [ ! -d /etc/postgresql ]; then
  echo "PostgreSQL not installed: installing it from Debian's packages" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  version=$(ls /etc/postgresql | sort -V | tail -n 1)
  hba=/etc/postgresql/$version/main/pg_hba.conf
  sed -i -E 's/(peer|scram-sha-256|md5)$/trust/' "$hba"
fi
version=$(ls /etc/postgresql | sort -V | tail -n 1)
pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
for _ in $(seq 1 30); do
  pg_isready -h 127.0.0.1 -p 5432 -q && exit 0
  sleep 1
done
echo "PostgreSQL did not start on 127.0.0.1:5432" >&2
exit 1
