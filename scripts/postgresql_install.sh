#!/usr/bin/env bash
# Install Debian's PostgreSQL server (initdb, pg_ctl, postgres) for the gradebook test on a real
# PostgreSQL server (tests/nbgrader_glue/test_gradebook_one_pass.py). As root with apt; safe to run
# again (quick once installed). The test starts a private cluster of its own in a scratch folder;
# the package's own service is not started.
# Usage: bash scripts/postgresql_install.sh
set -euo pipefail
if compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; then
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "the PostgreSQL gradebook test needs a PostgreSQL server; install it with:" >&2
  echo "  sudo apt-get install postgresql" >&2
  exit 1
fi
echo "installing postgresql (for tests/nbgrader_glue/test_gradebook_one_pass.py) with apt-get"
export DEBIAN_FRONTEND=noninteractive
# policy-rc.d stops the package from starting its own service while installing.
policy=/usr/sbin/policy-rc.d
made_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' > "$policy"; chmod 755 "$policy"; made_policy=1
fi
trap '[ "$made_policy" = 1 ] && rm -f "$policy"' EXIT
apt-get -o DPkg::Lock::Timeout=900 install -y -qq postgresql >/dev/null \
  || { apt-get -o DPkg::Lock::Timeout=900 update -qq && apt-get -o DPkg::Lock::Timeout=900 install -y -qq postgresql >/dev/null; }
