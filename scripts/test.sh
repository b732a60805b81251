#!/usr/bin/env bash
# Run the whole test suite, both tiers (sets up first when needed). Usage: bash scripts/test.sh [pytest args]
# (plain `.venv/bin/python -m pytest` runs only the quick tier; see tests/conftest.py)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# The course hub's tests (tests/nbgrader_glue/test_hub_*.py) install the hub themselves, into a fresh prefix
# each run (conftest.py's hub_prefix), so that a fault of a new machine shows here.
if [ "$(id -u)" = 0 ]; then
  # Slurm's daemons and MUNGE for tests/cluster/test_slurm.py (Debian packages; quick once installed).
  bash scripts/slurm_install.sh
  # Debian's PostgreSQL server for the gradebook test on PostgreSQL (tests/nbgrader_glue/test_gradebook_one_pass.py).
  bash scripts/postgresql_install.sh
fi
# Lint first (ruff: pyflakes, import order, bugbear; [tool.ruff] in pyproject.toml): it fails in seconds.
.venv/bin/python -m ruff check .
# Types next ([tool.mypy] in pyproject.toml names the typed packages; docs/development.md): seconds too.
.venv/bin/python -m mypy
exec .venv/bin/python -m pytest --slow "$@"
