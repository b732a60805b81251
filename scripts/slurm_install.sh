#!/usr/bin/env bash
# Install the Debian packages the one-machine Slurm test needs (tests/cluster/test_slurm.py): Slurm's
# daemons and clients (slurm-wlm: slurmctld, slurmd, sbatch, squeue, scancel) and MUNGE, which
# Slurm authenticates with. As root with apt; safe to run again (quick once installed). The test
# starts its own daemons in a scratch folder; the packages' own services are not used.
# Usage: bash scripts/slurm_install.sh
set -euo pipefail
need=()
command -v slurmctld >/dev/null 2>&1 && command -v slurmd >/dev/null 2>&1 && command -v sbatch >/dev/null 2>&1 \
  || need+=(slurm-wlm)
command -v munged >/dev/null 2>&1 || need+=(munge)
if [ "${#need[@]}" = 0 ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "tests/cluster/test_slurm.py needs Slurm and MUNGE; install them with:" >&2
  echo "  sudo apt-get install slurm-wlm munge" >&2
  exit 1
fi
echo "installing ${need[*]} (for tests/cluster/test_slurm.py) with apt-get"
export DEBIAN_FRONTEND=noninteractive
# policy-rc.d stops the packages from starting their own services while installing (the test
# runs daemons of its own, on ports and sockets of its own).
policy=/usr/sbin/policy-rc.d
made_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' > "$policy"; chmod 755 "$policy"; made_policy=1
fi
trap '[ "$made_policy" = 1 ] && rm -f "$policy"' EXIT
apt-get -o DPkg::Lock::Timeout=900 install -y -qq "${need[@]}" >/dev/null \
  || { apt-get -o DPkg::Lock::Timeout=900 update -qq && apt-get -o DPkg::Lock::Timeout=900 install -y -qq "${need[@]}" >/dev/null; }
