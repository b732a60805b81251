"""Shared helpers: hand in a notebook and grade it as the autograder would; the two test tiers.

Plain ``pytest`` runs the quick tier: every test not marked ``slow``. ``pytest --slow`` runs
both tiers (what ``scripts/test.sh`` and CI run); ``pytest -m slow`` runs the slow tier alone,
and any other ``-m`` expression or a test named by its node id (``file::test``) chooses for
itself. Tests left out are reported as deselected, never as skipped or passed.

The suite is hermetic: the release is read from a snapshot and a test course secret is used
(see the session fixtures below), never the live files.
"""
import os

import nbformat
import pytest

from autograder.demo.environ import patched_environ
from autograder.demo.fill import filled_notebook
from autograder.grading.notebook import grade_notebook
from autograder.sandbox.limits import Limits

SECRET = b"test-secret"  # fixed, so the randomized cases are the same on every run


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true", default=False,
                     help="run the slow tier too (tests marked slow); plain pytest runs only the quick tier")


# Test files in the order they run, fastest first, so a broken quick loop fails in seconds: a
# file not listed runs first (pure functions, no sandbox), then these, from the measured slowest
# tests of the quick tier (`python benchmarks/quick_tier.py`, docs/benchmarks.md). Within a file
# pytest's own order holds.
FILE_ORDER = [
    "test_embeddings.py", "test_execution.py", "test_warm.py", "test_html_report.py", "test_module_shape.py",
    "test_worked.py", "test_incell.py", "test_check_session.py", "test_class_run.py", "test_class_report.py",
    "test_charged_once.py", "test_build.py", "test_exercises.py", "test_cpu_limits.py", "test_cli.py",
    "test_gradescope.py", "test_case_seeds.py", "test_confinement.py",
]


def file_weight(item):
    """Where ``item``'s file runs: 0 for a file not in ``FILE_ORDER``, else its place there + 1."""
    name = os.path.basename(str(getattr(item, "path", "") or getattr(item, "fspath", "")))
    return FILE_ORDER.index(name) + 1 if name in FILE_ORDER else 0


def pytest_collection_modifyitems(config, items):
    items.sort(key=file_weight)  # stable: the order within a file is kept
    if config.getoption("--slow") or config.getoption("markexpr") or any("::" in a for a in config.args):
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not item.get_closest_marker("slow")]


@pytest.fixture
def hand_in(tmp_path):
    """``hand_in(exercise, replacements=None, stubs=(), student="s1")`` -> NotebookResult."""
    def grade(exercise, replacements=None, stubs=(), student="s1", limits=None):
        nb = filled_notebook(exercise, replacements, stubs)
        path = tmp_path / f"{student}-{exercise.notebook}"
        nbformat.write(nb, path)
        return grade_notebook(path, exercise, student, SECRET, limits or Limits())
    return grade


@pytest.fixture(scope="session")
def graded_once(tmp_path_factory):
    """``graded_once(exercise, replacements=None, stubs=(), student="s1")`` -> NotebookResult, like
    ``hand_in`` but graded once per test session for each distinct hand-in and shared by every
    test that asks for the same one (each gets its own copy). Sandboxed grading costs about a
    second a notebook; the reference and stub notebooks are asked for by many tests."""
    import copy
    results = {}
    folder = tmp_path_factory.mktemp("graded")

    def grade(exercise, replacements=None, stubs=(), student="s1"):
        key = (exercise.name, tuple(sorted((replacements or {}).items())), tuple(sorted(stubs)), student)
        if key not in results:
            nb = filled_notebook(exercise, replacements, stubs)
            path = folder / f"{len(results)}" / f"{student}-{exercise.notebook}"
            path.parent.mkdir()
            nbformat.write(nb, path)
            results[key] = grade_notebook(path, exercise, student, SECRET, Limits())
        return copy.deepcopy(results[key])
    return grade


@pytest.fixture(scope="session")
def demo_class(tmp_path_factory):
    """The demo class run once per session (``python -m autograder demo``, about 3 minutes):
    ``(results, workdir)``, its graded files in ``workdir / "graded"``. Read it, do not change it."""
    from autograder.demo.run import run
    workdir = tmp_path_factory.mktemp("demo-class") / "demo"
    return run(workdir, jobs=2, quiet=True), workdir


_EXECUTED = {}


@pytest.fixture
def executed_notebook(tmp_path_factory):
    """``executed_notebook(exercise)``: its solution notebook run top to bottom by nbclient.

    Runs in a temporary folder with the venv's bin first on PATH (nbgrader's hidden-test
    cells import ``autograder``), a course secret in the environment (so no secret file is
    written) and matplotlib's inline backend. Each notebook runs once per test session.
    """
    import os
    import sys
    import time
    from pathlib import Path

    from nbclient import NotebookClient

    def run(exercise):
        if exercise.name not in _EXECUTED:
            tmp = tmp_path_factory.mktemp(f"run-{exercise.name}")
            env = {"PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
                   "COURSE_SECRET": "notebook-test-secret", "MPLCONFIGDIR": str(tmp / "mpl")}
            with patched_environ(env, unset=("MPLBACKEND",)):
                nb = nbformat.read(exercise.source_notebook, as_version=4)
                t0 = time.perf_counter()
                NotebookClient(nb, timeout=120, kernel_name="python3",
                               resources={"metadata": {"path": str(tmp)}}).execute()
                _EXECUTED[exercise.name] = (nb, time.perf_counter() - t0)
        return _EXECUTED[exercise.name][0]
    return run


# -- a hermetic suite --------------------------------------------------------------------------
# No test reads or writes the live assignments/, submitted/, gradebook.db or .course_secret:
# nbgrader generate_assignment may rewrite assignments/ while the suite runs, and a term in
# the same checkout owns the rest. Every test grades against a snapshot of the release taken
# once here, into a temporary folder named by $AUTOGRADER_RELEASE_DIR (read by
# registry.Exercise.release_notebook, inherited by every command a test starts); the course
# secret comes from $COURSE_SECRET unless a test sets its own. tests/course/test_build.py alone
# reads the committed files (it compares them with the build).

def _snapshot_release(dest, attempts=60):
    """Copy every exercise's committed release notebook under ``dest``, each only once it is
    complete: ``generate_assignment`` (with the course's ``force``) deletes and rewrites the
    folder with the same bytes, so a file that is missing, does not parse as a notebook, or
    changes between two reads is read again half a second later.

    Raises:
        RuntimeError: a release stayed missing or broken for ``attempts`` tries.
    """
    import time

    from autograder.core.registry import EXERCISES, PROJECT_ROOT
    for exercise in EXERCISES.values():
        live = PROJECT_ROOT / "assignments" / exercise.name / exercise.notebook
        for _ in range(attempts):
            try:
                data = live.read_bytes()
                nbformat.validate(nbformat.reads(data.decode("utf-8"), as_version=4))
                if live.read_bytes() == data:
                    break
            except Exception:  # missing, half written or being replaced
                pass
            time.sleep(0.5)
        else:
            raise RuntimeError(f"{live} stayed missing or broken: run python -m autograder build")
        target = dest / exercise.name / exercise.notebook
        target.parent.mkdir(parents=True)
        target.write_bytes(data)


# Sandbox uids (as root): this test run leases them from a range of its own, picked from its
# process id, so the check that no sandbox process is left behind (tests/sandbox/test_confinement.py)
# counts only the sandboxes this run started, never those of another clone grading on the same
# machine at the same time. 64 uids, as confinement.DEFAULT_SANDBOX_UIDS.
RUN_UIDS = 64


def private_sandbox_uids(pid):
    """``"FIRST-LAST"``: the sandbox uid range of the test run of process ``pid``, in
    1,600,000,000-1,606,399,999 (above the grader's default range, below 2**32 - 1)."""
    first = 1_600_000_000 + (pid % 100_000) * RUN_UIDS
    return f"{first}-{first + RUN_UIDS - 1}"


@pytest.fixture(scope="session", autouse=True)
def hermetic_course(tmp_path_factory):
    """Point the grader at a snapshot of the release and at a test course secret; give this
    run's sandboxes a uid range of their own (unless the environment names one)."""
    from autograder.core.registry import RELEASE_DIR_VARIABLE
    saved = {k: os.environ.get(k) for k in (RELEASE_DIR_VARIABLE, "COURSE_SECRET", "AUTOGRADER_SANDBOX_UIDS")}
    release = tmp_path_factory.mktemp("release")
    _snapshot_release(release)
    os.environ[RELEASE_DIR_VARIABLE] = str(release)
    os.environ.setdefault("COURSE_SECRET", SECRET.decode())
    os.environ.setdefault("AUTOGRADER_SANDBOX_UIDS", private_sandbox_uids(os.getpid()))
    yield release
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(scope="session")
def hub_prefix():
    """The course hub's files (scripts/hub.sh install): a Path to a prefix made for this test
    session under /opt (other unix users must reach it, so not pytest's private tmp folder),
    installed from nothing and removed at the end. A fresh prefix is the point: the browser
    test once passed on a prefix installed before and failed on a new machine. An earlier
    hub.sh had disabled formgrader under a wrong plugin id, which left a ``lockedExtensions``
    key in the prefix's page config; JupyterLab's one-off migration (which locks every
    disabled plugin when that key is missing) then never ran again there, while on a new
    machine it locked formgrader and the instructor's enable was refused (scripts/hub_jupyter.py). ``HUB_TEST_PREFIX`` names a prefix to install into and
    keep instead (quicker while developing; CI leaves it unset). Needs root."""
    import shutil
    import subprocess
    import tempfile
    from pathlib import Path

    if os.geteuid() != 0:
        pytest.fail("the hub's tests create unix users and install as root: run them as root (CI does)")
    given = os.environ.get("HUB_TEST_PREFIX")
    prefix = Path(given) if given else Path(tempfile.mkdtemp(prefix="lmrt-hub-", dir="/opt"))
    try:
        env = dict(os.environ, HUB_PREFIX=str(prefix), NBGRADER_EXCHANGE=str(prefix / "exchange"))
        root = Path(__file__).resolve().parent.parent
        proc = subprocess.run(["bash", str(root / "scripts" / "hub.sh"), "install"], env=env,
                              capture_output=True, text=True, timeout=3600)
        assert proc.returncode == 0, f"hub.sh install:\n{proc.stdout}\n{proc.stderr}"
        yield prefix
    finally:
        if not given:
            shutil.rmtree(prefix, ignore_errors=True)


# -- another unix user -------------------------------------------------------------------------
def other_uids():
    """Two uids of this run's sandbox range (the last two; no account owns them), for tests that
    act as another user: ``(instructor, student)``."""
    from autograder.sandbox.policy import sandbox_uids
    first, last = sandbox_uids()
    return last - 1, last


@pytest.fixture
def as_other_user():
    """``as_other_user(uid, fn, *args)``: ``fn(*args)`` run in a forked copy of this process as
    the unix user ``uid`` (its gid too, no supplementary groups), returning ``(result, stderr)``:
    ``result`` is what ``fn`` returned (picklable), or the exception it raised, re-raised here.
    Forked, not started anew: the venv's interpreter may lie where other users cannot read
    (root's home), so import what ``fn`` needs before calling this. Needs root: fails otherwise
    (a security test never passes by being skipped)."""
    import pickle
    import sys
    import tempfile

    if os.geteuid() != 0:
        pytest.fail("acting as another unix user needs root (CI runs as root)")

    def run(uid, fn, *args):
        with tempfile.TemporaryFile() as err:
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: never returns into pytest
                status = 1
                try:
                    os.close(read)
                    os.dup2(err.fileno(), 2)
                    sys.stderr = open(2, "w", closefd=False, buffering=1)  # not pytest's capture
                    os.setgroups([])
                    os.setresgid(uid, uid, uid)
                    os.setresuid(uid, uid, uid)
                    try:
                        answer = ("ok", fn(*args))
                    except BaseException as exc:  # noqa: BLE001 -- handed back to the test
                        answer = ("raised", exc)
                    with os.fdopen(write, "wb") as pipe:
                        pickle.dump(answer, pipe)
                    sys.stderr.flush()
                    status = 0
                finally:
                    os._exit(status)
            os.close(write)
            with os.fdopen(read, "rb") as pipe:
                data = pipe.read()
            _, status = os.waitpid(pid, 0)
            err.seek(0)
            stderr = err.read().decode(errors="replace")
            assert status == 0 and data, f"the process as uid {uid} failed: {stderr}"
            kind, value = pickle.loads(data)
            if kind == "raised":
                raise value
            return value, stderr
    return run


@pytest.fixture
def shm_tmp():
    """A fresh folder in ``/dev/shm`` (mode 0755, root's when the tests run as root) that other
    users may reach, unlike pytest's ``tmp_path`` (below a folder of mode 0700), on a tmpfs, where
    trees of thousands of folders are made and removed in a second (on a busy disk, a minute);
    removed afterwards, whatever is in it."""
    import tempfile
    from pathlib import Path

    from autograder.sandbox import leftovers
    folder = Path(tempfile.mkdtemp(prefix="test-", dir="/dev/shm"))
    folder.chmod(0o755)
    yield folder
    assert leftovers.remove(folder) == []
