#!/usr/bin/env bash
# Set everything up, then run the demo class through nbgrader. Usage: bash scripts/demo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m autograder demo "$@"
