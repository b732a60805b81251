"""Grade on Gradescope, inside its container: the runtime of the zip ``gradescope.py`` builds.

Gradescope runs every submission in a container of its own, built from that zip (its
autograder specification: https://gradescope-autograders.readthedocs.io/en/latest/specs/).
The container grades with this package's own engine (``grade.grade_notebook``: the same
sandbox, the same hidden checks, the same per-student seeds), so a student's randomized
cases, points and messages on Gradescope equal local grading's for the same student id.

In the container (``ROOT`` is ``/autograder``, or ``$AUTOGRADER_ROOT`` so that a test can
play the container in a temporary folder)::

    ROOT/source/                    the unpacked zip (setup.sh ran there once, at image build)
    ROOT/submission/                the student's upload, as they uploaded it
    ROOT/submission_metadata.json   Gradescope's metadata: users[].sid / email / id
    ROOT/results/results.json       what run_autograder must leave behind

``setup.sh`` calls ``python -m autograder container check-requirements`` and
``check-setup``; ``run_autograder`` calls ``python -m autograder container run``: a
watchdog that writes a fail-closed results.json at once, grades in a subprocess
(``grade-submission``) within the build's time budget, ends every process that grading
started, and then writes the real results.json (or, past the budget, one that says so).
Everything printed goes to Gradescope's stdout capture, which results.json hides from
students (``stdout_visibility: hidden``).

Only the standard library is imported at module level: ``setup.sh`` runs ``check-setup``
before the dependencies may be installed.
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autograder.sandbox.subreaper import become_subreaper

PROJECT_ROOT = Path(__file__).resolve().parents[2]
PACKAGE_DIR = Path(__file__).resolve().parents[1]  # autograder/
ROOT_ENV = "AUTOGRADER_ROOT"
DEFAULT_ROOT = "/autograder"
# Gradescope stops run_autograder at the assignment's timeout (10 minutes unless changed);
# this budget stays below it and above the sandbox's own worst case per notebook
# (Limits.startup_seconds + Limits.notebook_seconds = 180 s, plus start-up of the grader).
DEFAULT_TIME_BUDGET = 420.0
STUDENT_ID_FIELDS = ("sid", "email", "id")  # submission_metadata.json users[] keys, in order


# -- checks run by setup.sh ---------------------------------------------------------------
def missing_requirements(requirements_file):
    """Pinned requirements (``name==version`` lines, with or without an environment marker
    such as ``; python_version < "3.11"``) that apply to this Python and are not installed
    at that exact version.

    Markers are read with ``packaging`` (a pinned requirement); where it is not installed
    yet, every marked line counts as missing, so setup installs them.

    Returns:
        list of ``"name==version (found X)"`` strings; empty when all are satisfied.
    """
    from importlib import metadata
    try:
        from packaging.markers import Marker
    except ImportError:
        Marker = None
    missing = []
    for line in Path(requirements_file).read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or "==" not in line:
            continue
        line, _, marker = line.partition(";")
        name, version = (part.strip() for part in line.split("==", 1))
        if marker.strip() and Marker is None:
            missing.append(f"{name}=={version} (packaging is needed to read its marker)")
            continue
        if marker.strip() and not Marker(marker.strip()).evaluate():
            continue
        try:
            found = metadata.version(name)
        except metadata.PackageNotFoundError:
            found = None
        if found != version:
            missing.append(f"{name}=={version} (found {found or 'nothing'})")
    return missing


def setup_problems(source):
    """What would stop grading in this container; ``[]`` when ready.

    Checks the unpacked bundle at ``source``: config, checks, course secret, tiktoken's
    cache file (sha256) and the pinned requirements.
    """
    from autograder.sandbox.tiktoken_cache import CL100K_SHA256
    source = Path(source)
    problems = []
    try:
        config = load_config(source)
        checks = source / "project" / "exercises" / config["assignment"] / "checks.py"
        if not checks.is_file():
            problems.append(f"hidden checks missing: {checks}")
    except (OSError, ValueError, KeyError) as exc:
        problems.append(f"config.json unreadable: {exc}")
    secret = source / "project" / ".course_secret"
    if not (secret.is_file() and secret.read_text().strip()):
        problems.append(f"course secret missing: {secret}")
    caches = list((source / "project" / ".cache" / "tiktoken").glob("*"))
    if not any(hashlib.sha256(p.read_bytes()).hexdigest() == CL100K_SHA256 for p in caches if p.is_file()):
        problems.append("tiktoken's cl100k_base cache file is missing or damaged")
    problems += [f"not installed: {m}" for m in missing_requirements(source / "requirements.txt")]
    return problems


# -- in the container ---------------------------------------------------------------------
def load_config(source):
    """The build's options (``config.json`` at the bundle's root), as a dict."""
    return json.loads((Path(source) / "config.json").read_text(encoding="utf-8"))


def student_id(metadata, fields=STUDENT_ID_FIELDS):
    """The student id to seed the randomized cases with, from submission_metadata.json.

    Args:
        metadata: the parsed submission_metadata.json (dict).
        fields: keys of each ``users[]`` entry tried in order (Gradescope's ``sid`` is the
            roster's student id, ``email`` the login, ``id`` Gradescope's own number).
    Returns:
        ``(student_id, note)``: the id (``str``) and a note for the instructor (``str``).
        For a group submission the smallest id of the group is used, whatever their order.
    Raises:
        ValueError: no user with any of ``fields`` set.
    """
    users = metadata.get("users") if isinstance(metadata, dict) else None
    if not isinstance(users, list) or not users:
        raise ValueError("submission_metadata.json lists no users")
    for field in fields:
        ids = sorted(str(u[field]).strip() for u in users
                     if isinstance(u, dict) and u.get(field) not in (None, "") and str(u[field]).strip())
        if len(ids) == len(users):
            note = f"student id {ids[0]!r} (users[].{field})"
            if len(ids) > 1:
                note += f"; group of {len(ids)}: {', '.join(ids)}; seeds use the first"
            return ids[0], note
    raise ValueError(f"no user in submission_metadata.json has {' or '.join(fields)} set")


def _notebook_grade_ids(path):
    """The nbgrader grade ids in the notebook at ``path``, read as grading reads it (a regular
    file, never through a link, outputs dropped); an empty set when it cannot be read."""
    from autograder.submission.notebook import InvalidNotebook, grade_ids, load_cells
    try:
        return grade_ids(load_cells(path))
    except InvalidNotebook:
        return set()


def find_notebook(submission_dir, exercise, grade_ids):
    """The notebook to grade among what the student uploaded.

    Students upload the .ipynb alone, renamed, inside a folder, or among other files.
    Candidates are every ``*.ipynb`` under ``submission_dir`` (symbolic links, hidden
    folders, ``__MACOSX`` and ``.ipynb_checkpoints`` left out). Preferred: the released
    file name (``attention.ipynb``), then the most nbgrader ``grade_id``s shared with the
    release (exact ids, which survive renaming), then the shallowest path, then the name.

    Returns:
        ``(path or None, notes)``: notes (``str`` list) say which file was graded and which
        were not, or why nothing could be graded.
    """
    submission_dir = Path(submission_dir)
    files = []
    for folder, dirs, names in os.walk(submission_dir):  # never follows symbolic links
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__MACOSX")
        files += [Path(folder) / n for n in sorted(names) if not n.startswith(".")]
    files = [p for p in files if not p.is_symlink() and p.is_file()]
    candidates = [p for p in files if p.suffix == ".ipynb"]
    if not candidates:
        seen = sorted(p.relative_to(submission_dir).as_posix() for p in files)[:20]
        return None, [f"no Jupyter notebook (.ipynb) found in your submission; upload {exercise.notebook}"
                      + (f" (found: {', '.join(seen)})" if seen else "")]
    wanted = set(grade_ids)

    def rank(path):
        rel = path.relative_to(submission_dir)
        return (path.name != exercise.notebook, -len(_notebook_grade_ids(path) & wanted), len(rel.parts),
                rel.as_posix())
    candidates.sort(key=rank)
    chosen, rest = candidates[0], candidates[1:]
    notes = []
    rel = chosen.relative_to(submission_dir).as_posix()
    if rel != exercise.notebook or rest:
        notes.append(f"graded {rel}" + (f"; not graded: {', '.join(p.relative_to(submission_dir).as_posix() for p in rest)}"
                                        if rest else ""))
    return chosen, notes


def choose_level(root, config):
    """The confinement level to grade with in this container, and why none can start.

    Tries bubblewrap, then the setuid level (``levels.LEVELS``), or only the level asked for
    by ``$AUTOGRADER_CONFINEMENT`` or the build's ``--confinement``. Before the setuid level
    is tried, every file under ``root`` is made readable by root only (``launch_setuid.
    restrict_tree``) except what a child must read: the Python installation and venv, the
    child package (its parent folder listable) and tiktoken's cache file.

    Returns:
        ``(level, None)``, or ``(None, why)`` (``str``) when no level starts.
    """
    from autograder.sandbox.levels import LEVELS, check_level
    asked = os.environ.get("AUTOGRADER_CONFINEMENT") or config.get("confinement") or "auto"
    order = LEVELS if asked == "auto" else (asked,)
    problems = []
    for level in order:
        if level == "setuid" and os.geteuid() == 0:
            from autograder.sandbox.policy import CHILD_PACKAGE, visible_paths
            from autograder.sandbox.setuid import restrict_tree
            readable = [p for p, kind in visible_paths() if kind in ("dir", "file")] + [str(CHILD_PACKAGE)]
            restrict_tree(root, readable=readable, listable=[str(CHILD_PACKAGE.parent)])
        try:
            problem = check_level(level)
        except ValueError as exc:
            problem = str(exc)
        if problem is None:
            print(f"confinement level: {level}" + (f" ({'; '.join(problems)})" if problems else ""))
            return level, None
        problems.append(f"{level}: {problem}")
    return None, "; ".join(problems)


def sandbox_problem(limits):
    """Why the sandbox cannot run a trivial notebook here, or ``None`` when it can.

    Starts a child with one cell defining ``ping()`` and calls it, exactly as a student's
    notebook would be started (``sandbox.ChildSubmission``).
    """
    from autograder.submission import ChildSubmission
    try:
        with ChildSubmission([(1, "def ping():\n    return 41 + 1\n")], limits) as child:
            child.ensure_started()
            value = child.function("ping")()
    except Exception as exc:  # whatever the sandbox raises: it did not work
        return f"{type(exc).__name__}: {exc}"
    return None if value == 42 else f"a trivial notebook answered {value!r} instead of 42"


def results_for(result, config, notes=(), extra=None):
    """Gradescope results.json (a dict) for one ``grade.NotebookResult``.

    Per-test visibility from the build (randomized checks ``config["randomized_visibility"]``,
    the rest visible), every output and test name as plain text (``output_format`` /
    ``name_format`` "text", so ``est</w>`` shows literally), ``status`` passed or failed,
    stdout hidden from students; ``notes`` go first in the top-level output.
    """
    from autograder.reports import console as report
    data = report.results_json(result, test_visibility=config.get("tests", {}), output_format="text")
    data["output"] = "\n".join([*notes, data["output"]])
    data["stdout_visibility"] = "hidden"
    if extra:
        data["extra_data"] = {**data.get("extra_data", {}), **extra}
    return data


def zero_results(exercise, config, notebook, sid, message, extra=None):
    """results.json giving 0 points on every check of ``exercise``, each saying ``message``."""
    from autograder.checks.declared import check_metas
    from autograder.grading.result import NotebookResult
    from autograder.checks.plugin import CheckResult
    checks = [CheckResult(m.function, m.name, 0.0, m.points, message) for m in check_metas(exercise)]
    return results_for(NotebookResult(sid or "unknown", exercise.assignment, notebook or "", checks, [message]),
                       config, extra=extra)


def _write_json(path, data):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def grade_submission(root, out):
    """Grade ``root/submission`` as the build's assignment; write results.json content to ``out``.

    Runs in the subprocess the watchdog (``run``) starts. Never raises for anything a
    submission does; fails closed (0 points, a message saying why) when the student id,
    the notebook or the sandbox is missing.
    """
    from autograder.reports import console as report
    from autograder.course.registry import find
    from autograder.grading.notebook import grade_notebook
    from autograder.submission import Limits
    from autograder.checks.seeds import load_secret
    from autograder.sandbox.tiktoken_cache import cache_dir
    root = Path(root)
    source = root / "source"
    config = load_config(source)
    exercise = find(config["assignment"])
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache_dir())  # the references (tokens) need no network
    print(f"grader: {PACKAGE_DIR}")
    extra = {"assignment": exercise.name, "commit": config.get("commit")}

    try:
        metadata = json.loads((root / "submission_metadata.json").read_text(encoding="utf-8"))
        sid, id_note = student_id(metadata, config.get("student_id_fields", STUDENT_ID_FIELDS))
    except (OSError, ValueError) as exc:
        print(f"student id: {exc}")
        _write_json(out, zero_results(exercise, config, None, None,
                                      "not graded: Gradescope's submission metadata names no student "
                                      f"({exc}); ask your instructor to regrade this submission", extra))
        return
    print(id_note)
    extra["student_id"] = sid
    notebook, notes = find_notebook(root / "submission", exercise, config.get("grade_ids", ()))
    if notebook is None:
        _write_json(out, zero_results(exercise, config, None, sid, notes[0], extra))
        return
    extra["notebook"] = notebook.relative_to(root / "submission").as_posix()

    limits = Limits()  # the same limits as local grading, so the same points
    level, problem = choose_level(root, config)
    if level is not None:
        limits = Limits(level=level)
        problem = sandbox_problem(limits)
    extra["confinement"] = "sandbox"
    extra["confinement_level"] = level or "none"
    if problem:
        print(f"the sandbox cannot start here: {problem}")
        if not config.get("unconfined"):
            _write_json(out, zero_results(
                exercise, config, notebook.name, sid,
                "not graded: the grader's sandbox could not start in Gradescope's container, and this "
                "autograder does not run student code without it. Your submission is kept; tell your "
                "instructor, who can regrade it once the autograder is fixed.", extra))
            return
        limits = Limits(confine=False)  # the build's explicit opt-in (--unconfined)
        problem = sandbox_problem(limits)
        extra["confinement"] = "none (built with --unconfined)"
        if problem:
            print(f"and not unconfined either: {problem}")
            _write_json(out, zero_results(exercise, config, notebook.name, sid,
                                          "not graded: the grader could not start Python for your notebook "
                                          "in Gradescope's container; tell your instructor", extra))
            return
    secret = load_secret(source / "project" / ".course_secret")
    try:
        result = grade_notebook(notebook, exercise, sid, secret, limits)
    except Exception as exc:  # a defect of the grader, not of the submission
        print(f"grader error: {type(exc).__name__}: {exc}")
        _write_json(out, zero_results(exercise, config, notebook.name, sid,
                                      f"grader error, ask your instructor to regrade: {type(exc).__name__}",
                                      extra))
        return
    print(report.table(result))
    if limits.confine and result.confinement not in ("not run", ""):
        extra["confinement"] = result.confinement
    _write_json(out, results_for(result, config, notes, extra))


def _end_descendants():
    """Kill every process below this one (stopped first, so none forks meanwhile), and reap them."""
    import psutil
    me = psutil.Process()
    for _ in range(50):
        procs = me.children(recursive=True)
        if not procs:
            return
        for p in procs:
            try:
                p.suspend()
            except psutil.Error:
                pass
        for p in procs:
            try:
                p.kill()
            except psutil.Error:
                pass
        psutil.wait_procs(procs, timeout=2)


def run(root):
    """Gradescope's entry point: grade ``root/submission`` and write ``root/results/results.json``.

    Writes a fail-closed results.json first (0 points, "did not finish"), so a container
    stopped by Gradescope still reports something; grades in a subprocess for at most the
    build's time budget; ends everything grading started; writes the final results.json.

    Returns:
        0 (the results say what happened), 1 when the grader itself failed.
    """
    from autograder.course.registry import find
    t0 = time.monotonic()
    root = Path(root)
    config = load_config(root / "source")
    exercise = find(config["assignment"])
    budget = float(config.get("time_budget_seconds", DEFAULT_TIME_BUDGET))
    results = root / "results" / "results.json"
    timeout_message = (f"not graded: grading did not finish within {budget:g} s, the time this autograder "
                       "allows one submission (an endless loop or a very slow cell at start-up?). "
                       "A regrade grades this same submission.")
    _write_json(results, zero_results(exercise, config, None, None, timeout_message))
    become_subreaper()
    work = Path(tempfile.mkdtemp(prefix="gradescope-"))
    out = work / "results.json"
    proc = subprocess.Popen([sys.executable, "-m", "autograder", "container", "grade-submission",
                             "--root", str(root), "--out", str(out)],
                            cwd=PROJECT_ROOT, start_new_session=True, stdin=subprocess.DEVNULL)
    code, timed_out = 0, False
    try:
        proc.wait(timeout=max(1.0, budget - (time.monotonic() - t0)))
    except subprocess.TimeoutExpired:
        timed_out = True
        print(f"time budget of {budget:g} s spent; grading stopped")
    _end_descendants()
    proc.wait()
    if out.is_file() and not timed_out:
        data = json.loads(out.read_text(encoding="utf-8"))
    elif timed_out:
        data = zero_results(exercise, config, None, None, timeout_message)
    else:
        print(f"grading exited with status {proc.returncode} and wrote no results")
        data = zero_results(exercise, config, None, None,
                            "grader error, ask your instructor to regrade this submission")
        code = 1
    shutil.rmtree(work, ignore_errors=True)
    data["execution_time"] = round(time.monotonic() - t0, 3)
    _write_json(results, data)
    print(f"results.json: {data['score']:g} of {sum(t['max_score'] for t in data['tests']):g} points "
          f"in {data['execution_time']:.1f} s")
    return code


# -- command line -------------------------------------------------------------------------
def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m autograder container",
                                     description="Gradescope autograder: what runs inside its container.")
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="grade the submission (what run_autograder calls)")
    r.add_argument("--root", default=os.environ.get(ROOT_ENV, DEFAULT_ROOT))
    g = sub.add_parser("grade-submission", help=argparse.SUPPRESS)
    g.add_argument("--root", required=True)
    g.add_argument("--out", required=True)
    c = sub.add_parser("check-requirements", help="exit 1 unless every pinned requirement is installed")
    c.add_argument("requirements")
    s = sub.add_parser("check-setup", help="say what would stop grading in this container")
    s.add_argument("--source", required=True)
    args = parser.parse_args(argv)
    if args.command == "run":
        return run(args.root)
    if args.command == "grade-submission":
        grade_submission(args.root, args.out)
        return 0
    if args.command == "check-requirements":
        missing = missing_requirements(args.requirements)
        for m in missing:
            print(f"not installed: {m}")
        return 1 if missing else 0
    problems = setup_problems(args.source)
    for p in problems:
        print(f"setup problem: {p}")
    if not problems:
        from autograder.submission import Limits
        level, problem = choose_level(Path(args.source).resolve().parent, load_config(args.source))
        print(f"sandbox: {level} level starts" if level else
              f"sandbox: CANNOT START ({problem}); submissions will get a 'not graded' results.json "
              "unless the zip was built with --unconfined")
        print(f"ready to grade {load_config(args.source)['assignment']}")
    return 1 if problems else 0

