"""Grade on Gradescope: build an autograder zip, and run it inside Gradescope's container.

Gradescope runs every submission in a container of its own, built from the zip this module
writes (its autograder specification: https://gradescope-autograders.readthedocs.io/en/latest/specs/).
The container grades with this package's own engine (``grade.grade_notebook``: the same
sandbox, the same hidden checks, the same per-student seeds), so a student's randomized
cases, points and messages on Gradescope equal local grading's for the same student id.

Build (instructor's machine)::

    python -m autograder gradescope ASSIGNMENT [--out DIR] [--secret-file F]
        [--randomized-visibility after_published] [--time-budget 420] [--unconfined]

writes ``DIR/<assignment>-autograder.zip`` holding, at its root: ``setup.sh`` and
``run_autograder`` (from ``gradescope_files/``), ``config.json`` (this build's options),
``requirements.txt`` (the pinned dependencies) and ``project/``: the ``autograder`` package
(without the demo and without other assignments' checks), the assignment's reference
solution, the course secret (``project/.course_secret``) and tiktoken's ``cl100k_base``
cache file (``project/.cache/tiktoken/``), so grading needs no network.

In the container (``ROOT`` is ``/autograder``, or ``$AUTOGRADER_ROOT`` so that a test can
play the container in a temporary folder)::

    ROOT/source/                    the unpacked zip (setup.sh ran there once, at image build)
    ROOT/submission/                the student's upload, as they uploaded it
    ROOT/submission_metadata.json   Gradescope's metadata: users[].sid / email / id
    ROOT/results/results.json       what run_autograder must leave behind

``run_autograder`` calls ``python -m autograder.gradescope run``: a watchdog that writes a
fail-closed results.json at once, grades in a subprocess (``grade-submission``) within the
build's time budget, ends every process that grading started, and then writes the real
results.json (or, past the budget, one that says so). Everything printed goes to Gradescope's
stdout capture, which results.json hides from students (``stdout_visibility: hidden``).

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
import zipfile
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DIR = Path(__file__).resolve().parent
FILES_DIR = PACKAGE_DIR / "gradescope_files"
ROOT_ENV = "AUTOGRADER_ROOT"
DEFAULT_ROOT = "/autograder"
# Gradescope stops run_autograder at the assignment's timeout (10 minutes unless changed);
# this budget stays below it and above the sandbox's own worst case per notebook
# (Limits.startup_seconds + Limits.notebook_seconds = 180 s, plus start-up of the grader).
DEFAULT_TIME_BUDGET = 420.0
VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")  # Gradescope's values
STUDENT_ID_FIELDS = ("sid", "email", "id")  # submission_metadata.json users[] keys, in order
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed timestamps: the same inputs give the same zip


# -- what the bundle holds -------------------------------------------------------------------
def randomized_checks(exercise):
    """Names of ``exercise``'s randomized checks: those whose function takes the ``rng`` fixture.

    Read from the check file's syntax, like ``grade.check_metas`` (whose order it follows),
    so no check file has to say it again.

    Returns:
        set of check names (``CheckMeta.name``, e.g. ``"softmax: random arrays"``).
    """
    import ast
    from .grade import check_metas
    tree = ast.parse(exercise.checks_file.read_text(encoding="utf-8"))
    takes_rng = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("check_") and any(
                isinstance(d, ast.Call) and getattr(d.func, "id", None) == "check" for d in node.decorator_list):
            params = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
            takes_rng.append(any(p.arg == "rng" for p in params))
    metas = check_metas(exercise)
    if len(metas) != len(takes_rng):
        raise ValueError(f"{exercise.checks_file.name}: every @check must decorate a check_* function")
    return {m.name for m, rng in zip(metas, takes_rng) if rng}


def release_grade_ids(exercise):
    """nbgrader ``grade_id``s of the released notebook (they survive renaming the file)."""
    nb = json.loads(exercise.release_notebook.read_text(encoding="utf-8"))
    return sorted({c.get("metadata", {}).get("nbgrader", {}).get("grade_id") for c in nb["cells"]} - {None})


def _solution_modules(exercise):
    """Modules of ``solutions`` that the check file imports (its reference solutions)."""
    import ast
    names = set()
    for node in ast.walk(ast.parse(exercise.checks_file.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "solutions":
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("solutions."):
            names.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            names |= {a.name.split(".")[1] for a in node.names if a.name.startswith("solutions.")}
    return sorted(names)


def bundle_files(exercise):
    """``{path inside the zip: source Path}`` for the project part of the bundle.

    The grader package minus the demo, the bundle templates and other assignments' checks;
    ``solutions/__init__.py`` and the reference modules the checks import; the student release
    of the notebook (``assignments/<name>/<name>.ipynb``), so intake restores read-only cells
    and skips instructor demos as local grading does, and the code digest that seeds the
    randomized cases (``code_digest.py``) is the same.
    """
    files = {}
    for path in sorted(PACKAGE_DIR.rglob("*")):
        rel = path.relative_to(PACKAGE_DIR)
        if not path.is_file() or "__pycache__" in rel.parts or rel.parts[0] in ("demo", "gradescope_files"):
            continue
        if path.suffix in (".pyc", ".pyo"):
            continue
        if rel.parts[0] == "checks" and path.name.startswith("check_") and path != exercise.checks_file:
            continue
        files[f"project/autograder/{rel.as_posix()}"] = path
    solutions = PROJECT_ROOT / "solutions"
    files["project/solutions/__init__.py"] = solutions / "__init__.py"
    for name in _solution_modules(exercise):
        files[f"project/solutions/{name}.py"] = solutions / f"{name}.py"
    files[f"project/assignments/{exercise.name}/{exercise.notebook}"] = exercise.release_notebook
    missing = [str(p) for p in files.values() if not p.is_file()]
    if missing:
        raise FileNotFoundError(f"missing (run python -m autograder.build?): {', '.join(missing)}")
    return files


def _git_commit():
    try:
        out = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=PROJECT_ROOT, capture_output=True,
                             text=True, timeout=10)
        return out.stdout.strip() if out.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def build_bundle(assignment, out_dir, secret, randomized_visibility="after_published",
                 time_budget=DEFAULT_TIME_BUDGET, unconfined=False, student_id_fields=STUDENT_ID_FIELDS):
    """Write ``out_dir/<assignment>-autograder.zip`` for Gradescope (layout: module docstring).

    Args:
        assignment: exercise name, e.g. "attention".
        out_dir: folder for the zip (created if missing).
        secret: the course secret (``bytes``); it seeds each student's randomized cases.
        randomized_visibility: Gradescope visibility of the randomized checks (one of
            ``VISIBILITIES``); the other checks are "visible".
        time_budget: seconds run_autograder may take before it writes a "did not finish"
            results.json; keep it below the assignment's timeout on Gradescope.
        unconfined: when the sandbox cannot start in the container, grade without it
            (an explicit opt-in; by default grading fails closed).
        student_id_fields: keys of ``users[]`` in submission_metadata.json tried in order
            for the student id the seeds use (the id local grading uses).
    Returns:
        ``Path`` of the zip.
    Raises:
        KeyError: unknown assignment. ValueError: bad option. FileNotFoundError: the
        solutions, release or tiktoken file is missing.
    """
    from .exercises import find
    from .tiktoken_cache import CL100K_SHA256, CL100K_URL, bundled_file
    exercise = find(assignment)
    if randomized_visibility not in VISIBILITIES:
        raise ValueError(f"randomized visibility must be one of {', '.join(VISIBILITIES)}")
    if not time_budget > 0:
        raise ValueError("the time budget must be positive (seconds)")
    if not secret or not isinstance(secret, bytes):
        raise ValueError("the course secret must be non-empty bytes")
    fields = list(student_id_fields)
    if not fields or any(f not in STUDENT_ID_FIELDS for f in fields):
        raise ValueError(f"student id fields must be among {', '.join(STUDENT_ID_FIELDS)}")
    randomized = randomized_checks(exercise)
    from .grade import check_metas
    config = {
        "assignment": exercise.name,
        "tests": {m.name: randomized_visibility if m.name in randomized else "visible"
                  for m in check_metas(exercise)},
        "randomized_visibility": randomized_visibility,
        "grade_ids": release_grade_ids(exercise),
        "time_budget_seconds": float(time_budget),
        "unconfined": bool(unconfined),
        "student_id_fields": fields,
        "commit": _git_commit(),
    }
    tiktoken_data = bundled_file().read_bytes()
    if hashlib.sha256(tiktoken_data).hexdigest() != CL100K_SHA256:
        raise ValueError("the installed cl100k_base file does not have the sha256 tiktoken expects")
    cache_name = hashlib.sha1(CL100K_URL.encode()).hexdigest()  # tiktoken's cache key

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{exercise.name}-autograder.zip"
    tmp = target.with_name(target.name + ".tmp")

    def add(zf, name, data, mode=0o644):
        info = zipfile.ZipInfo(name, _ZIP_TIME)
        info.external_attr = (0o100000 | mode) << 16  # regular file with these permissions
        info.compress_type = zipfile.ZIP_DEFLATED
        zf.writestr(info, data)

    with zipfile.ZipFile(tmp, "w") as zf:
        add(zf, "setup.sh", (FILES_DIR / "setup.sh").read_bytes(), 0o755)
        add(zf, "run_autograder", (FILES_DIR / "run_autograder").read_bytes(), 0o755)
        add(zf, "config.json", json.dumps(config, indent=2, ensure_ascii=False) + "\n")
        add(zf, "requirements.txt", (PROJECT_ROOT / "requirements.txt").read_bytes())
        for name, path in bundle_files(exercise).items():
            add(zf, name, path.read_bytes())
        add(zf, "project/.course_secret", secret + b"\n", 0o600)
        add(zf, f"project/.cache/tiktoken/{cache_name}", tiktoken_data)
    os.replace(tmp, target)
    return target


# -- checks run by setup.sh ---------------------------------------------------------------
def _normalize(name):
    return name.lower().replace("_", "-").replace(".", "-")


def missing_requirements(requirements_file):
    """Pinned requirements (``name==version`` lines) not installed at that exact version.

    Returns:
        list of ``"name==version (found X)"`` strings; empty when all are satisfied.
    """
    from importlib import metadata
    missing = []
    for line in Path(requirements_file).read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or "==" not in line:
            continue
        name, version = (part.strip() for part in line.split("==", 1))
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
    from .tiktoken_cache import CL100K_SHA256
    source = Path(source)
    problems = []
    try:
        config = load_config(source)
        checks = source / "project" / "autograder" / "checks" / f"check_{config['assignment']}.py"
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
    from .notebook_code import InvalidNotebook, grade_ids, load_cells
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


def sandbox_problem(limits):
    """Why the sandbox cannot run a trivial notebook here, or ``None`` when it can.

    Starts a child with one cell defining ``ping()`` and calls it, exactly as a student's
    notebook would be started (``sandbox.ChildSubmission``).
    """
    from .sandbox import ChildSubmission
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
    from . import report
    data = report.results_json(result, test_visibility=config.get("tests", {}), output_format="text")
    data["output"] = "\n".join([*notes, data["output"]])
    data["stdout_visibility"] = "hidden"
    if extra:
        data["extra_data"] = dict(extra)
    return data


def zero_results(exercise, config, notebook, sid, message, extra=None):
    """results.json giving 0 points on every check of ``exercise``, each saying ``message``."""
    from .grade import NotebookResult, check_metas
    from .plugin import CheckResult
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
    from . import report
    from .exercises import find
    from .grade import grade_notebook
    from .sandbox import Limits
    from .seeds import load_secret
    from .tiktoken_cache import cache_dir
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
    problem = sandbox_problem(limits)
    extra["confinement"] = "sandbox"
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
    _write_json(out, results_for(result, config, notes, extra))


def _become_subreaper():
    """Processes orphaned by grading (a submission's daemon) become ours, so we can end them."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


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
    from .exercises import find
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
    _become_subreaper()
    work = Path(tempfile.mkdtemp(prefix="gradescope-"))
    out = work / "results.json"
    proc = subprocess.Popen([sys.executable, "-m", "autograder.gradescope", "grade-submission",
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
def add_build_arguments(parser):
    """Arguments of ``python -m autograder gradescope`` (the build), on ``parser``."""
    from .exercises import EXERCISES
    parser.add_argument("assignment", choices=list(EXERCISES), help="the assignment to build a zip for")
    parser.add_argument("--out", default="gradescope", help="folder for the zip (default: gradescope/)")
    parser.add_argument("--secret-file", help="course secret (default: $COURSE_SECRET or .course_secret)")
    parser.add_argument("--randomized-visibility", default="after_published", choices=VISIBILITIES,
                        help="when students see the randomized checks (default: %(default)s)")
    parser.add_argument("--time-budget", type=float, default=DEFAULT_TIME_BUDGET,
                        help="seconds per submission before results.json says it did not finish; "
                             "keep below the assignment's timeout on Gradescope (default: %(default)g)")
    parser.add_argument("--student-id-field", choices=STUDENT_ID_FIELDS, default="sid",
                        help="users[] field of submission_metadata.json used as the student id, the "
                             "id local grading uses (default: sid, then email, then id)")
    parser.add_argument("--unconfined", action="store_true",
                        help="grade without the sandbox when it cannot start in Gradescope's container "
                             "(default: fail closed)")


def build_command(args, parser):
    """Run the build from parsed ``args``; returns the exit status."""
    from .seeds import SECRET_FILE, load_secret
    try:
        secret = load_secret(args.secret_file)
    except FileNotFoundError as exc:
        parser.error(f"{exc} (the zip must carry the term's secret so regrades keep the same cases)")
    fields = [args.student_id_field, *(f for f in STUDENT_ID_FIELDS if f != args.student_id_field)]
    try:
        path = build_bundle(args.assignment, args.out, secret, args.randomized_visibility, args.time_budget,
                            args.unconfined, fields)
    except (ValueError, FileNotFoundError) as exc:
        parser.error(str(exc))
    print(f"wrote {path} ({path.stat().st_size / 1024 ** 2:.1f} MB): upload it as the assignment's "
          "autograder on Gradescope (Configure Autograder > Zip file upload)")
    from .sandbox import Limits
    own = Limits().startup_seconds + Limits().notebook_seconds
    if args.time_budget < own + 30:
        print(f"warning: a budget under {own + 30:g} s can stop a slow but correct notebook before the "
              "per-call and per-notebook limits that local grading applies", file=sys.stderr)
    print(f"set the assignment's autograder timeout on Gradescope above {args.time_budget + 60:g} s "
          "(the budget, plus starting Python)")
    if not args.secret_file and not os.environ.get("COURSE_SECRET"):
        print(f"it carries the course secret of {SECRET_FILE}: keep that file, and the zip, private")
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m autograder.gradescope",
                                     description="Gradescope autograder: build the zip, or run inside its container.")
    sub = parser.add_subparsers(dest="command", required=True)
    add_build_arguments(sub.add_parser("build", help="build the autograder zip (same as python -m autograder gradescope)"))
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
    if args.command == "build":
        return build_command(args, parser)
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
        from .sandbox import Limits
        problem = sandbox_problem(Limits())
        print("sandbox: " + (f"CANNOT START ({problem}); submissions will get a 'not graded' results.json "
                             "unless the zip was built with --unconfined" if problem else "starts"))
        print(f"ready to grade {load_config(args.source)['assignment']}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
