#!/usr/bin/env bash
# The students' Python environment on a shared machine, with or without the hub (as root):
#
#   sudo bash scripts/student_env.sh
#
# It is the hub's environment (scripts/hub.sh install: $HUB_PREFIX/venv, default
# /opt/lm-reads-text/venv, on a system Python every user may run, the exact pins of
# requirements-hub.txt, readable by all; the students' nbgrader settings in its etc/jupyter;
# tiktoken's cl100k_base cache; the exchange), plus $HUB_PREFIX/student-env.sh, which a student
# sources to use it in a shell:
#
#   . /opt/lm-reads-text/student-env.sh     # nbgrader, jupyter lab, numpy, tiktoken on PATH
#
# The environment holds no part of the course: not its solutions, checks, grader or secret
# (this script fails if `import solutions` or `import autograder` works in it). docs/students.md
# tells students how to reach it. Settings: HUB_PREFIX, NBGRADER_EXCHANGE, PYTHON (as hub.sh).
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
[ "$(id -u)" = 0 ] || { echo "student_env.sh: run as root (it installs under \$HUB_PREFIX for every user)" >&2; exit 2; }
export HUB_PREFIX="${HUB_PREFIX:-/opt/lm-reads-text}"
bash "$HERE/scripts/hub.sh" install
VENV="$HUB_PREFIX/venv"
cat > "$HUB_PREFIX/student-env.sh" <<PROFILE
# The course's student environment (made by scripts/student_env.sh): source it, do not run it.
export PATH="$VENV/bin:\$PATH"
export TIKTOKEN_CACHE_DIR="$HUB_PREFIX/tiktoken-cache"
PROFILE
chmod 644 "$HUB_PREFIX/student-env.sh"
# Checked as an unprivileged user, from a folder outside the course: usable, and nothing of the course inside.
runuser -u nobody -- env -C / "$VENV/bin/python" -c 'import nbgrader, numpy, tiktoken' \
  || { echo "student_env.sh: $VENV cannot be used by other users" >&2; exit 1; }
for module in solutions autograder; do
  if runuser -u nobody -- env -C / "$VENV/bin/python" -c "import $module" 2>/dev/null; then
    echo "student_env.sh: $VENV can import $module: the course's code must not be in the students' environment" >&2
    exit 1
  fi
done
echo "student environment ready: students run  . $HUB_PREFIX/student-env.sh  (docs/students.md)"
