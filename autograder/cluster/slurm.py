"""``python -m autograder slurm SUBMITTED --shards N --work DIR``: grade a class on a Slurm cluster.

Writes two batch scripts into ``DIR/slurm/`` and submits them with ``sbatch``:

* ``grade.sbatch``, submitted as a job array (``--array=1-N``): array task K runs
  ``python -m autograder grade SUBMITTED --shard K/N --out DIR/shard-K`` (K is
  ``$SLURM_ARRAY_TASK_ID``; N is written into the script, so a rerun of a few tasks, e.g.
  ``--array=2``, still cuts the class the same way);
* ``merge.sbatch``, submitted with ``--dependency=afterok:<array job id>``: it starts when
  every array task has ended well, and runs ``python -m autograder merge DIR/shard-1 ...
  DIR/shard-N --out OUT``. With ``--kill-on-invalid-dep=yes`` a merge whose array had a
  failed or cancelled task is removed from the queue instead of waiting for ever.

``--only K,...`` submits only those array tasks (a shard that failed or was cancelled) and a
new merge job after them: a rerun shard resumes from its ``.resume`` records, so nothing
already graded is graded again. Logs go to ``DIR/logs/``.

Every path is written into the scripts as an absolute path: the course folder, ``DIR``, the
secret file and the Python of the virtual environment must be at the same place on every
node (a shared file system; see docs/cluster.md).
"""
from __future__ import annotations

import os
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Plan:
    """What to submit.

    Attributes:
        submitted: the class's ``submitted/`` folder. work: the folder for shard outputs,
            scripts and logs. out: the merged output folder. All absolute ``Path``.
        shards: N. jobs: grading workers per shard (and CPUs asked for each array task).
        python: the interpreter that runs the grader on the nodes (the venv's).
        secret_file: ``--secret-file`` for the shards (``None``: ``$COURSE_SECRET`` exported
            from the submitting shell, or the course's ``.course_secret``).
        gradebook: the merge's ``--gradebook``. confinement: the shards' ``--confinement``.
        sbatch_options: extra ``#SBATCH`` lines for both scripts (e.g. ``--partition=grading``).
        grade_options: extra arguments of the shards' grade command (e.g. ``--call-timeout 20``).
    """
    submitted: Path
    work: Path
    out: Path
    shards: int
    jobs: int = 1
    python: str = sys.executable
    secret_file: Path | None = None
    gradebook: str = "auto"
    confinement: str = "auto"
    sbatch_options: list = field(default_factory=list)
    grade_options: list = field(default_factory=list)

    def shard_dir(self, k) -> Path:
        """The --out folder of shard ``k``."""
        return self.work / f"shard-{k}"


def _q(value) -> str:
    return shlex.quote(str(value))


def grade_script(plan: Plan) -> str:
    """The text of ``grade.sbatch`` (one array task = one shard)."""
    head = [plan.python, "-m", "autograder", "grade", plan.submitted]
    tail = ["--jobs", plan.jobs, "--confinement", plan.confinement, "--quiet"]
    if plan.secret_file:
        tail += ["--secret-file", plan.secret_file]
    tail += plan.grade_options
    # K is the shell's, the rest is quoted as written
    line = (" ".join(_q(c) for c in head) + f' --shard "$K/{plan.shards}" --out {_q(plan.work)}/shard-"$K" '
            + " ".join(_q(c) for c in tail))
    lines = ["#!/bin/bash",
             f"# Written by `python -m autograder slurm`: shard K of {plan.shards} of {plan.submitted},",
             "# K = this array task's index. Submit as a job array: sbatch --array=1-N grade.sbatch",
             "#SBATCH --job-name=autograde-shard",
             f"#SBATCH --cpus-per-task={plan.jobs}",
             f"#SBATCH --output={plan.work}/logs/shard-%a-%A.out",
             f"#SBATCH --chdir={plan.work}",
             *(f"#SBATCH {o}" for o in plan.sbatch_options),
             "set -eu",
             'K="${SLURM_ARRAY_TASK_ID:?run this script as a Slurm array task: sbatch --array=1-N}"',
             f"exec {line}", ""]
    return "\n".join(lines)


def merge_script(plan: Plan) -> str:
    """The text of ``merge.sbatch`` (runs once every shard has ended well)."""
    cmd = [plan.python, "-m", "autograder", "merge",
           *(plan.shard_dir(k) for k in range(1, plan.shards + 1)),
           "--out", plan.out, "--gradebook", plan.gradebook, "--quiet"]
    lines = ["#!/bin/bash",
             f"# Written by `python -m autograder slurm`: merge the {plan.shards} shards of {plan.submitted}",
             "# (one writer: the gradebook, grades.csv, the reports). Submitted with --dependency=afterok.",
             "#SBATCH --job-name=autograde-merge",
             "#SBATCH --cpus-per-task=1",
             f"#SBATCH --output={plan.work}/logs/merge-%j.out",
             f"#SBATCH --chdir={plan.work}",
             *(f"#SBATCH {o}" for o in plan.sbatch_options),
             "set -eu",
             "exec " + " ".join(_q(c) for c in cmd), ""]
    return "\n".join(lines)


def write_scripts(plan: Plan) -> tuple[Path, Path]:
    """Write ``work/slurm/grade.sbatch`` and ``merge.sbatch`` (and make ``work/logs/``).
    Returns their paths."""
    folder = plan.work / "slurm"
    folder.mkdir(parents=True, exist_ok=True)
    (plan.work / "logs").mkdir(parents=True, exist_ok=True)
    grade, merge = folder / "grade.sbatch", folder / "merge.sbatch"
    grade.write_text(grade_script(plan), encoding="utf-8")
    merge.write_text(merge_script(plan), encoding="utf-8")
    return grade, merge


def array_spec(shards: int, only=None) -> str:
    """``--array`` value: ``1-N``, or the listed shards (``only``: iterable of ``int``).

    Raises:
        ValueError: a listed shard is not in 1..N.
    """
    if not only:
        return f"1-{shards}"
    bad = [k for k in only if not 1 <= k <= shards]
    if bad:
        raise ValueError(f"--only {bad}: shards are numbered 1 to {shards}")
    return ",".join(str(k) for k in sorted(set(only)))


def _sbatch(args, env=None) -> str:
    """Run ``sbatch --parsable ARGS``; returns the job id (``str``).

    Raises:
        RuntimeError: sbatch failed (its message is included).
    """
    proc = subprocess.run(["sbatch", "--parsable", *map(str, args)], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"sbatch {' '.join(map(str, args))} failed: {proc.stderr.strip() or proc.stdout.strip()}")
    return proc.stdout.strip().split(";")[0]  # "<id>" or "<id>;<cluster>"


def submit(plan: Plan, only=None, env=None) -> tuple[str, str]:
    """Write the scripts and submit the array (all shards, or ``only`` those) and the merge.

    Args:
        plan: the ``Plan``. only: shard numbers to (re)submit, or ``None`` for all.
        env: environment for sbatch (``None``: this process's; the jobs inherit it).
    Returns:
        ``(array_job_id, merge_job_id)``.
    Raises:
        RuntimeError: sbatch is missing or refused a job. ValueError: bad ``only``.
    """
    spec = array_spec(plan.shards, only)
    grade, merge = write_scripts(plan)
    try:
        array_id = _sbatch([f"--array={spec}", grade], env)
    except FileNotFoundError:
        raise RuntimeError("sbatch is not installed here: run this on a Slurm login node") from None
    merge_id = _sbatch([f"--dependency=afterok:{array_id}", "--kill-on-invalid-dep=yes", merge], env)
    return array_id, merge_id


def add_arguments(parser):
    """The ``slurm`` subcommand's arguments."""
    parser.add_argument("path", metavar="SUBMITTED", help="the class's submitted/ folder (on a shared file system)")
    parser.add_argument("--shards", type=int, required=True, help="N: array tasks, each grading 1/N of the students")
    parser.add_argument("--work", default="graded-shards",
                        help="folder for the shards' outputs, the scripts and the logs (default: graded-shards/)")
    parser.add_argument("--out", default="graded", help="where the merge writes the class's files (default: graded/)")
    parser.add_argument("--jobs", type=int, default=1, help="grading workers (and CPUs) per shard (default: 1)")
    parser.add_argument("--only", metavar="K[,K...]",
                        help="submit only these shards (a rerun: each resumes where it stopped) and a new merge")
    parser.add_argument("--secret-file", help="the course secret file the shards read (default: $COURSE_SECRET "
                                              "as exported to the jobs, or the course's .course_secret)")
    parser.add_argument("--gradebook", default="auto", metavar="URL", help="the merge's --gradebook (default: auto)")
    parser.add_argument("--confinement", choices=("auto", "bubblewrap", "setuid"), default="auto",
                        help="the shards' --confinement (default: auto)")
    parser.add_argument("--python", default=sys.executable,
                        help="the Python that runs the grader on the nodes (default: this one, %(default)s)")
    parser.add_argument("--sbatch-option", action="append", default=[], metavar="OPTION",
                        help="an #SBATCH line for both scripts, e.g. --sbatch-option=--partition=grading (repeatable)")
    parser.add_argument("--no-submit", action="store_true", help="only write the scripts")


def plan_from_args(args) -> Plan:
    """A ``Plan`` from the ``slurm`` subcommand's arguments (paths made absolute).

    Raises:
        ValueError: bad numbers of shards or jobs.
    """
    if args.shards < 1 or args.jobs < 1:
        raise ValueError("--shards and --jobs must be at least 1")
    return Plan(submitted=Path(os.path.abspath(args.path)), work=Path(os.path.abspath(args.work)),
                out=Path(os.path.abspath(args.out)), shards=args.shards, jobs=args.jobs, python=args.python,
                secret_file=Path(os.path.abspath(args.secret_file)) if args.secret_file else None,
                gradebook=args.gradebook, confinement=args.confinement, sbatch_options=args.sbatch_option)


def command(args, parser) -> int:
    """Run ``python -m autograder slurm``: 0 when submitted (or written), 1 when sbatch refused."""
    if not Path(args.path).is_dir():
        parser.error(f"{args.path} is not a folder")
    try:
        plan = plan_from_args(args)
        only = [int(k) for k in args.only.split(",")] if args.only else None
        array_spec(plan.shards, only)
    except ValueError as exc:
        parser.error(str(exc))
    if args.no_submit:
        grade, merge = write_scripts(plan)
        print(f"wrote {grade} and {merge}; submit them with:\n"
              f"  sbatch --parsable --array={array_spec(plan.shards, only)} {grade}\n"
              f"  sbatch --dependency=afterok:<that job id> --kill-on-invalid-dep=yes {merge}")
        return 0
    try:
        array_id, merge_id = submit(plan, only)
    except RuntimeError as exc:
        print(f"cannot submit: {exc}", file=sys.stderr)
        return 1
    print(f"submitted job array {array_id} ({array_spec(plan.shards, only)} of {plan.shards} shards) and merge job "
          f"{merge_id} (after the array ends well); logs in {plan.work / 'logs'}/, results in {plan.out}/")
    print(f"array={array_id} merge={merge_id}")
    return 0
