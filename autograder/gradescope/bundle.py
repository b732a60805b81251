"""Grade on Gradescope: build the autograder zip (what runs inside is ``gradescope/container.py``).

Gradescope runs every submission in a container of its own, built from the zip this module
writes (its autograder specification: https://gradescope-autograders.readthedocs.io/en/latest/specs/).

Build (instructor's machine)::

    python -m autograder gradescope ASSIGNMENT [--out DIR] [--secret-file F]
        [--randomized-visibility after_published] [--time-budget 420] [--unconfined]
        [--confinement auto|bubblewrap|setuid]

writes ``DIR/<assignment>-autograder.zip`` holding, at its root: ``setup.sh`` and
``run_autograder`` (from ``gradescope/files/``), ``config.json`` (this build's options),
``requirements.txt`` (the pinned dependencies) and ``project/``: the ``autograder`` package
(without the demo), the assignment's folder of ``exercises/`` (its ``exercise.toml``, hidden
checks and worked values; not the other assignments', not its notebook source or mistakes), its reference
solution, the course secret (``project/.course_secret``) and tiktoken's ``cl100k_base``
cache file (``project/.cache/tiktoken/``), so grading needs no network.
"""
import hashlib
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

from autograder.checks.declared import check_metas, randomized_checks
from autograder.gradescope.container import DEFAULT_TIME_BUDGET, STUDENT_ID_FIELDS
from autograder.grading.grader_files import grader_files
from autograder.sandbox.levels import CHOICES as CONFINEMENT_CHOICES

PROJECT_ROOT = Path(__file__).resolve().parents[2]
PACKAGE_DIR = Path(__file__).resolve().parents[1]  # autograder/
FILES_DIR = PACKAGE_DIR / "gradescope" / "files"
VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")  # Gradescope's values
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed timestamps: the same inputs give the same zip


# -- what the bundle holds -------------------------------------------------------------------
def release_grade_ids(exercise):
    """nbgrader ``grade_id``s of the released notebook (they survive renaming the file)."""
    nb = json.loads(exercise.release_notebook.read_text(encoding="utf-8"))
    return sorted({c.get("metadata", {}).get("nbgrader", {}).get("grade_id") for c in nb["cells"]} - {None})


def _solution_modules(exercise):
    """Modules of ``solutions`` that the bundled course files import (the reference solutions
    of the checks and of the wrong implementations they use)."""
    import ast
    names = set()
    trees = [ast.parse((exercise.folder / f).read_text(encoding="utf-8"))
             for f in BUNDLED_COURSE_FILES if f.endswith(".py") and (exercise.folder / f).is_file()]
    for node in (n for tree in trees for n in ast.walk(tree)):
        if isinstance(node, ast.ImportFrom) and node.module == "solutions":
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("solutions."):
            names.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            names |= {a.name.split(".")[1] for a in node.names if a.name.startswith("solutions.")}
    return sorted(names)


# What grading reads of an exercise's folder: the registry's declaration, the hidden checks (the
# declared cases and checks.py) and what they import: the wrong implementations that name
# mistakes and the worked figures.
BUNDLED_COURSE_FILES = ("__init__.py", "exercise.toml", "cases.py", "checks.py", "wrong.py", "worked.py")


def bundle_files(exercise):
    """``{path inside the zip: source Path}`` for the project part of the bundle.

    The grader's modules and declared data (``grading.grader_files``: no demo, no bundle templates,
    nothing stray such as an ``.orig`` or ``.pyc`` file); of ``exercises/``, the
    package's ``__init__.py`` and, of this assignment's folder, what grading reads
    (``BUNDLED_COURSE_FILES``); ``solutions/__init__.py`` and the reference modules the checks
    import; the student release of the notebook (``assignments/<name>/<name>.ipynb``), so intake
    restores read-only cells and skips instructor demos as local grading does, and the code
    digest that seeds the randomized cases (``submission/digest.py``) is the same.
    """
    files = {}
    for rel, path in grader_files(PACKAGE_DIR).items():
        files[f"project/autograder/{rel}"] = path
    course = exercise.folder.parent
    files["project/exercises/__init__.py"] = course / "__init__.py"
    for name in BUNDLED_COURSE_FILES:
        files[f"project/exercises/{exercise.name}/{name}"] = exercise.folder / name
    solutions = PROJECT_ROOT / "solutions"
    files["project/solutions/__init__.py"] = solutions / "__init__.py"
    for name in _solution_modules(exercise):
        files[f"project/solutions/{name}.py"] = solutions / f"{name}.py"
    files[f"project/assignments/{exercise.name}/{exercise.notebook}"] = exercise.release_notebook
    missing = [str(p) for p in files.values() if not p.is_file()]
    if missing:
        raise FileNotFoundError(f"missing (run python -m autograder build?): {', '.join(missing)}")
    return files


def _git_commit():
    try:
        out = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=PROJECT_ROOT, capture_output=True,
                             text=True, timeout=10)
        return out.stdout.strip() if out.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def build_bundle(assignment, out_dir, secret, randomized_visibility="after_published",
                 time_budget=DEFAULT_TIME_BUDGET, unconfined=False, student_id_fields=STUDENT_ID_FIELDS,
                 confinement="auto"):
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
        confinement: "auto" (bubblewrap, else the setuid level: ``sandbox/levels.py``), "bubblewrap"
            or "setuid": the level the container grades with.
    Returns:
        ``Path`` of the zip.
    Raises:
        KeyError: unknown assignment. ValueError: bad option. FileNotFoundError: the
        solutions, release or tiktoken file is missing.
    """
    from autograder.core.registry import find
    from autograder.sandbox.tiktoken_cache import CL100K_SHA256, CL100K_URL, bundled_file
    exercise = find(assignment)
    if randomized_visibility not in VISIBILITIES:
        raise ValueError(f"randomized visibility must be one of {', '.join(VISIBILITIES)}")
    if confinement not in CONFINEMENT_CHOICES:
        raise ValueError("confinement must be auto, bubblewrap or setuid")
    if not time_budget > 0:
        raise ValueError("the time budget must be positive (seconds)")
    if not secret or not isinstance(secret, bytes):
        raise ValueError("the course secret must be non-empty bytes")
    fields = list(student_id_fields)
    if not fields or any(f not in STUDENT_ID_FIELDS for f in fields):
        raise ValueError(f"student id fields must be among {', '.join(STUDENT_ID_FIELDS)}")
    randomized = randomized_checks(exercise)
    config = {
        "assignment": exercise.name,
        "tests": {m.name: randomized_visibility if m.name in randomized else "visible"
                  for m in check_metas(exercise)},
        "randomized_visibility": randomized_visibility,
        "grade_ids": release_grade_ids(exercise),
        "time_budget_seconds": float(time_budget),
        "unconfined": bool(unconfined),
        "confinement": confinement,
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


# -- command line -------------------------------------------------------------------------
def add_build_arguments(parser):
    """Arguments of ``python -m autograder gradescope`` (the build), on ``parser``."""
    from autograder.core.registry import EXERCISES
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
    parser.add_argument("--confinement", choices=CONFINEMENT_CHOICES, default="auto",
                        help="confinement level in the container: auto (default) tries bubblewrap, then "
                             "the setuid level; see docs/containers.md")


def build_command(args, parser):
    """Run the build from parsed ``args``; returns the exit status."""
    from autograder.checks.seeds import SECRET_FILE, load_secret
    try:
        secret = load_secret(args.secret_file)
    except FileNotFoundError as exc:
        parser.error(f"{exc} (the zip must carry the term's secret so regrades keep the same cases)")
    fields = [args.student_id_field, *(f for f in STUDENT_ID_FIELDS if f != args.student_id_field)]
    try:
        path = build_bundle(args.assignment, args.out, secret, args.randomized_visibility, args.time_budget,
                            args.unconfined, fields, args.confinement)
    except (ValueError, FileNotFoundError) as exc:
        parser.error(str(exc))
    print(f"wrote {path} ({path.stat().st_size / 1024 ** 2:.1f} MB): upload it as the assignment's "
          "autograder on Gradescope (Configure Autograder > Zip file upload)")
    from autograder.sandbox.limits import Limits
    own = Limits().startup_seconds + Limits().notebook_seconds
    if args.time_budget < own + 30:
        print(f"warning: a budget under {own + 30:g} s can stop a slow but correct notebook before the "
              "per-call and per-notebook limits that local grading applies", file=sys.stderr)
    print(f"set the assignment's autograder timeout on Gradescope above {args.time_budget + 60:g} s "
          "(the budget, plus starting Python)")
    if not args.secret_file and not os.environ.get("COURSE_SECRET"):
        print(f"it carries the course secret of {SECRET_FILE}: keep that file, and the zip, private")
    return 0
