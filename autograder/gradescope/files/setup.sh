#!/usr/bin/env bash
# Gradescope runs this once, when it builds the autograder's image, in /autograder/source
# (the unpacked zip). It installs bubblewrap (the sandbox) and the pinned Python packages,
# then checks that everything grading needs is there; grading itself needs no network.
#
# Environment (for playing the container on another machine, e.g. the project's tests):
#   AUTOGRADER_PYTHON=/path/to/python   grade with this interpreter instead of a new venv
#   AUTOGRADER_SKIP_INSTALL=1           install nothing (apt, pip); fail if something is missing
set -euo pipefail
SOURCE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$SOURCE"
log() { echo "setup: $*"; }
skip="${AUTOGRADER_SKIP_INSTALL:-0}"
can_apt() { [ "$skip" != 1 ] && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; }
apt_install() { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"; }

# 1. bubblewrap: the first confinement level (in a container started with a runtime's defaults
#    it cannot start, and grading uses the setuid level instead: docs/containers.md).
if command -v bwrap >/dev/null 2>&1; then
  log "bubblewrap: $(command -v bwrap)"
elif can_apt; then
  apt_install bubblewrap || log "WARNING: could not install bubblewrap; grading will fail closed (see docs/gradescope.md)"
else
  log "WARNING: bubblewrap is missing and not installed here; run: apt-get install bubblewrap"
fi

# 2. Python 3.10 or newer, in a venv of its own unless AUTOGRADER_PYTHON names one. A .venv
#    made by another interpreter (a leftover of an older image) is made again.
if [ -n "${AUTOGRADER_PYTHON:-}" ]; then
  PY="$AUTOGRADER_PYTHON"
else
  base=""
  for candidate in python3.13 python3.12 python3.11 python3.10 python3; do
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
      base="$(command -v "$candidate")"; break
    fi
  done
  if [ -z "$base" ]; then
    can_apt || { log "ERROR: Python 3.10 or newer is needed"; exit 1; }
    apt_install python3 python3-venv
    base="$(command -v python3)"
    "$base" -c 'import sys; sys.exit(sys.version_info < (3, 10))' || { log "ERROR: $base is older than 3.10"; exit 1; }
  fi
  want="$("$base" -c 'import sys; print(sys.version)')"
  if [ -e .venv ] && [ "$(.venv/bin/python -c 'import sys; print(sys.version)' 2>/dev/null)" != "$want" ]; then
    log "rebuilding .venv: it was made by another Python than $base"
    rm -rf .venv
  fi
  if [ ! -x .venv/bin/python ]; then
    if ! "$base" -m venv .venv; then
      can_apt || { log "ERROR: $base cannot create a venv"; exit 1; }
      apt_install "python$("$base" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')-venv"
      rm -rf .venv && "$base" -m venv .venv
    fi
  fi
  PY="$SOURCE/.venv/bin/python"
fi
log "python: $PY ($("$PY" --version 2>&1))"

# 3. The pinned requirements, unless they are installed already.
if (cd project && "$PY" -m autograder container check-requirements "$SOURCE/requirements.txt" >/dev/null); then
  log "pinned requirements: already installed"
elif [ "$skip" = 1 ]; then
  (cd project && "$PY" -m autograder container check-requirements "$SOURCE/requirements.txt") || true
  log "ERROR: requirements missing and AUTOGRADER_SKIP_INSTALL=1"; exit 1
else
  "$PY" -m pip install --quiet --disable-pip-version-check -r requirements.txt
fi
echo "$PY" > "$SOURCE/.python"

# 4. Everything grading needs: checks, secret, tiktoken's cache file, packages, the sandbox.
cd project && "$PY" -m autograder container check-setup --source "$SOURCE"
