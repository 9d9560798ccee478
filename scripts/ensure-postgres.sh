#!/usr/bin/env bash
# Makes PostgreSQL 15's server binaries available for the test suites (CI: .ci/run). The tests start
# their own throwaway server from them (test/helpers/postgres-setup.ts); this script never starts one.
#
#   scripts/ensure-postgres.sh     # prints the bin folder; installs Debian's postgresql-15 when missing
#
# On install, the distribution's own cluster is neither created (createcluster.d drop-in) nor started
# (a policy-rc.d that denies every service start, for the length of the install only).
set -euo pipefail

have_pg() {
  for dir in "${EDOC_PG_BINDIR:-}" /usr/lib/postgresql/15/bin "$(pg_config --bindir 2>/dev/null || true)"; do
    if [ -n "$dir" ] && [ -x "$dir/initdb" ] && [ -x "$dir/postgres" ]; then
      echo "$dir"
      return 0
    fi
  done
  return 1
}

if dir="$(have_pg)"; then
  echo "ensure-postgres: PostgreSQL binaries in $dir ($("$dir/postgres" --version))" >&2
  echo "$dir"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "ensure-postgres: no PostgreSQL binaries, and not root (no sudo) to install postgresql-15" >&2; exit 1; }
  sudo="sudo"
fi
command -v apt-get >/dev/null || { echo "ensure-postgres: no PostgreSQL binaries and no apt-get; install PostgreSQL 15 and set EDOC_PG_BINDIR" >&2; exit 1; }

echo "ensure-postgres: installing postgresql-15 (Debian package) for the PostgreSQL test suites" >&2
$sudo mkdir -p /etc/postgresql-common/createcluster.d
echo 'create_main_cluster = false' | $sudo tee /etc/postgresql-common/createcluster.d/edoc-bridge-ci.conf >/dev/null
policy=/usr/sbin/policy-rc.d
restore_policy=""
if [ -e "$policy" ]; then
  restore_policy="$(mktemp)"
  $sudo cp -p "$policy" "$restore_policy"
fi
printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
$sudo chmod 755 "$policy"
cleanup() {
  if [ -n "$restore_policy" ]; then $sudo mv "$restore_policy" "$policy"; else $sudo rm -f "$policy"; fi
}
trap cleanup EXIT
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends postgresql-15 >/dev/null
dir="$(have_pg)" || { echo "ensure-postgres: postgresql-15 installed, but initdb/postgres not found" >&2; exit 1; }
echo "ensure-postgres: PostgreSQL binaries in $dir ($("$dir/postgres" --version))" >&2
echo "$dir"
