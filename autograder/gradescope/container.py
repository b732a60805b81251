"""Grade on Gradescope, inside its container: the runtime of the zip ``gradescope/bundle.py`` builds.

Gradescope runs every submission in a container of its own, built from that zip (its
autograder specification: https://gradescope-autograders.readthedocs.io/en/latest/specs/).
The container grades with this package's own engine (``grading.notebook.grade_notebook``: the same
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
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autograder.gradescope.environment import missing_requirements, setup_problems
from autograder.gradescope.intake import STUDENT_ID_FIELDS, find_notebook, load_config, student_id
from autograder.sandbox.subreaper import become_subreaper

PROJECT_ROOT = Path(__file__).resolve().parents[2]
PACKAGE_DIR = Path(__file__).resolve().parents[1]  # autograder/
ROOT_ENV = "AUTOGRADER_ROOT"
DEFAULT_ROOT = "/autograder"
# Gradescope stops run_autograder at the assignment's timeout (10 minutes unless changed);
# this budget stays below it and above the sandbox's own worst case per notebook
# (Limits.startup_seconds + Limits.notebook_seconds = 180 s, plus start-up of the grader).
DEFAULT_TIME_BUDGET = 420.0


# -- checks run by setup.sh ---------------------------------------------------------------


# -- in the container ---------------------------------------------------------------------


def choose_level(root, config):
    """The confinement level to grade with in this container, and why none can start.

    Tries bubblewrap, then the setuid level (``levels.LEVELS``), or only the level asked for
    by ``$AUTOGRADER_CONFINEMENT`` or the build's ``--confinement``. Before the setuid level
    is tried, every file under ``root`` is made readable by root only (``course_files.restrict_tree``)
    except what a child must read: the Python installation and venv, the child package (its
    parent folder listable) and tiktoken's cache file.

    Returns:
        ``(level, None)``, or ``(None, why)`` (``str``) when no level starts.
    """
    from autograder.sandbox.levels import LEVELS, check_level
    asked = os.environ.get("AUTOGRADER_CONFINEMENT") or config.get("confinement") or "auto"
    order = LEVELS if asked == "auto" else (asked,)
    problems = []
    for level in order:
        if level == "setuid" and os.geteuid() == 0:
            from autograder.sandbox.course_files import restrict_tree
            from autograder.sandbox.policy import CHILD_PACKAGE, visible_paths
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
    notebook would be started (``remote.ChildSubmission``).
    """
    from autograder.submission.remote import ChildSubmission
    try:
        with ChildSubmission([(1, "def ping():\n    return 41 + 1\n")], limits) as child:
            child.ensure_started()
            value = child.function("ping")()
    except Exception as exc:  # whatever the sandbox raises: it did not work
        return f"{type(exc).__name__}: {exc}"
    return None if value == 42 else f"a trivial notebook answered {value!r} instead of 42"


def results_for(result, config, notes=(), extra=None):
    """Gradescope results.json (a dict) for one ``vocabulary.NotebookResult``.

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
    from autograder.core.vocabulary import CheckResult, NotebookResult
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
    from autograder.checks.seeds import load_secret
    from autograder.core.registry import find
    from autograder.grading.notebook import grade_notebook
    from autograder.reports import console as report
    from autograder.sandbox.limits import Limits
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

    # The preflight of a class run that applies to one notebook (grading/preflight.py): the references of
    # the tokens exercise need tiktoken's file, which setup.sh puts in place; without it, fail closed.
    from autograder.grading import preflight
    if exercise.name in preflight.NEEDS_TIKTOKEN:
        try:
            preflight.check_tiktoken_cache()
        except preflight.PreflightError as exc:
            print(f"cannot grade: {exc}")
            _write_json(out, zero_results(exercise, config, notebook.name, sid,
                                          "not graded: the autograder's setup is incomplete (a file the checks "
                                          "need is missing). Your submission is kept; tell your instructor, who "
                                          "can regrade it once the autograder is fixed.", extra))
            return

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
    from autograder.core.registry import find
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
        level, problem = choose_level(Path(args.source).resolve().parent, load_config(args.source))
        print(f"sandbox: {level} level starts" if level else
              f"sandbox: CANNOT START ({problem}); submissions will get a 'not graded' results.json "
              "unless the zip was built with --unconfined")
        print(f"ready to grade {load_config(args.source)['assignment']}")
    return 1 if problems else 0

