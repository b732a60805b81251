"""A class run, from the path ``python -m autograder grade`` is given to the class's files, as the list
of stages ``STAGES`` names (read them top to bottom; a notebook's own stages are ``notebook.STAGES``):

1. ``find``: the notebooks to grade (``discover``), the course roster, this shard's share of them;
2. ``preflight``: stop before grading anything when something it needs is missing (the gradebook's
   points, the course secret, tiktoken's file, the sandbox), while the workers start; then the late
   resubmissions are found, before grading replaces the records they are found in;
3. ``grade``: each student's notebooks on a pool of workers (``workers.grade_all``);
4. ``record``: the grades into nbgrader's gradebook (most of them recorded while the class was graded:
   ``record_ahead.py``), its late penalties and manual overrides into the results;
5. ``write_outputs``: every notebook's results.json, report.html (and feedback.txt), the identical flags,
   grades.csv and the class report (``outputs.write_class_outputs``); a shard writes its manifest instead;
6. ``report``: what the grade command prints (the tables, the summary).

Everything that decides how a run goes is one ``RunOptions``; what the stages find and make is one
``ClassRun``. ``grade_class`` runs the stages: the grade command, the demo (``autograder/demo/run.py``)
and the benchmarks all go through it, so none grades without the preflight or leaves a class without
its reports.
"""
from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path
from typing import Callable

from autograder.sandbox.limits import Limits


class UsageError(ValueError):
    """The run cannot start as asked (no notebooks under the path, a broken roster): the command's
    usage error (exit status 2)."""


@dataclasses.dataclass(frozen=True)
class RunOptions:
    """What decides a class run: the grade command's options (the demo and the benchmarks set a few).

    Attributes:
        out: the output folder (``Path``).
        workers: notebooks graded at once (``int`` >= 1).
        confinement: ``--confinement``: "auto", "bubblewrap", "setuid", or ``None`` (unconfined).
        resume: reuse the ``out/.resume`` records of notebooks unchanged since the last run.
        path: what is graded (a notebook, a submission folder, nbgrader's ``submitted/``): where ``find``
            looks when no jobs are given, and where the course (gradebook, roster) is found; ``None``:
            no course (the jobs are given, nothing is recorded).
        student, assignment: ``--student`` and ``--assignment``, for ``find``.
        secret_file: the course secret's file when the run is not given the secret (``None``:
            ``$COURSE_SECRET`` or ``.course_secret``, ``checks/seeds.load_secret``).
        gradebook: ``--gradebook``: "auto", "none" or a database URL (``nbgrader_glue/gradebook.py``).
        roster: ``--roster``: a roster.csv (``None``: the course's roster.csv when there is one).
        shard: ``(k, n)``: grade only shard k of n of the class (``grading/shards.py``), which writes
            results and a manifest instead of the class's files; ``None``: the whole class.
        progress: show the progress of the grading on stderr (``reports/console.Progress``).
        report: print the ``report`` stage (the grade command); ``False``: the caller reports.
        quiet: the report prints the summary only, not each notebook's table.
        say: prints the lines of the record and outputs stages (``None``: ``print``).
    """
    out: Path = Path("graded")
    workers: int = 1
    confinement: str | None = "auto"
    resume: bool = True
    path: Path | None = None
    student: str | None = None
    assignment: str | None = None
    secret_file: str | None = None
    gradebook: str = "none"
    roster: str | None = None
    shard: tuple | None = None
    progress: bool = False
    report: bool = False
    quiet: bool = False
    say: Callable | None = None


@dataclasses.dataclass
class ClassRun:
    """A class run: its options, and what each stage finds and makes (``None`` until then).

    Attributes:
        options: the ``RunOptions``. limits: the ``Limits`` (the preflight sets the confinement level).
        secret: the course secret (``bytes``; read by the preflight when not given).
        jobs: the ``vocabulary.Job`` list (found by ``find`` when not given; a shard's own share).
        class_jobs: a shard run's whole class (``jobs`` is its share), for its manifest; else ``None``.
        roster: the course roster (``lms.roster.Roster``) or ``None``.
        shard: the ``shards.ShardRun`` of a shard run, else ``None``.
        started: the ``WorkerPool`` started during the preflight (``early.py``), or ``None``.
        late_found: ``{index: late.Late}``: late resubmissions that replaced an on-time one.
        record_ahead: the ``record_ahead.RecordAhead`` recording grades while the class is graded, or ``None``.
        results: the ``NotebookResult`` of each job, in order (a ``stream.Results``).
        failures: notebooks on which the grader itself failed. reused: notebooks not regraded (resume).
        recorded: whether nbgrader's gradebook took every grade. totals: the gradebook's totals.
        csv_path: grades.csv; flagged, note_path: the identical or hard-linked notebooks and their list
            (``identical.flag``); none for a shard, which writes no class files.
        began: when the run began (``time.perf_counter``); seconds: ``{stage name: wall-clock seconds}``.
    """
    options: RunOptions
    limits: Limits = dataclasses.field(default_factory=Limits)
    secret: bytes | None = None
    jobs: list | None = None
    class_jobs: list | None = None
    roster: object = None
    shard: object = None
    started: object = None
    late_found: dict = dataclasses.field(default_factory=dict)
    record_ahead: object = None
    results: object = None
    failures: int = 0
    reused: int = 0
    recorded: bool = True
    totals: dict = dataclasses.field(default_factory=dict)
    csv_path: Path | None = None
    flagged: list = dataclasses.field(default_factory=list)
    note_path: Path | None = None
    began: float = dataclasses.field(default_factory=time.perf_counter)
    seconds: dict = dataclasses.field(default_factory=dict)

    @property
    def level(self) -> str | None:
        """The confinement level every worker used (``None``: unconfined)."""
        return self.limits.level

    @property
    def exit_status(self) -> int:
        """0 when every notebook was graded and recorded (a shard: when every one has a result), else 1."""
        if self.shard is not None:
            return 0  # the merge reports grader failures
        return 1 if self.failures or not self.recorded else 0


# -- the stages ---------------------------------------------------------------------------------
def find(run: ClassRun) -> None:
    """The notebooks under ``options.path`` (unless the jobs were given), the roster (checked before
    anything is graded), and a shard's share of the class. Raises ``UsageError``."""
    o = run.options
    if run.jobs is None:
        from autograder.grading.discover import discover
        try:
            run.jobs = discover(o.path, student=o.student, assignment=o.assignment)
        except FileNotFoundError as exc:
            raise UsageError(str(exc)) from None
        if not run.jobs:
            raise UsageError(f"no notebooks found under {o.path}")
    if o.shard is not None:
        from autograder.grading import shards
        run.class_jobs, run.jobs = run.jobs, shards.select(run.jobs, *o.shard)
    if o.path is not None or o.roster is not None:
        from autograder.lms.command import roster_for_run
        try:
            run.roster = roster_for_run(o.roster, o.path)
        except ValueError as exc:
            raise UsageError(str(exc)) from None


def preflight(run: ClassRun) -> None:
    """Stop before grading anything (``preflight.PreflightError``) when the gradebook's points differ
    from the checks' (``points_guard``, while the workers start), the course secret is missing, or
    tiktoken's file or the sandbox are (``preflight.run``, while the workers start: ``early.py``; it
    picks the confinement level every worker uses). A shard writes its manifest (``shards.ShardRun.start``). Then find the
    late resubmissions (``late.for_cli``), before grading
    replaces the resume records that hold an on-time copy's earlier score."""
    from autograder.grading import late
    from autograder.grading import preflight as checks
    from autograder.grading.early import preflight_with_workers
    o = run.options

    def points_agree():  # points changed mid-term (run while the workers start)
        if o.path is not None:
            from autograder.nbgrader_glue.points_guard import check_for_cli
            mismatch = check_for_cli(o.gradebook, o.path, run.class_jobs or run.jobs)
            if mismatch:
                raise checks.PreflightError("the gradebook and the checks give different points\n"
                                            + "\n".join(mismatch))
    if run.secret is None:
        run.secret = read_secret(o.secret_file)
    if o.shard is not None:  # its manifest says it is running (once the points agree)
        points_agree()
        from autograder.grading import shards
        run.shard = shards.ShardRun(o.out, *o.shard, o.path, run.class_jobs, run.jobs, run.secret, run.limits,
                                    o.confinement)
        run.shard.start()
    chosen, run.started = preflight_with_workers(run.jobs, run.limits, o.confinement, o.workers, o.out, o.resume,
                                                 meanwhile=points_agree if o.shard is None else None)
    if chosen is not None:
        run.limits = dataclasses.replace(run.limits, level=chosen)
    if o.path is not None and o.shard is None:
        run.late_found = late.for_cli(o.gradebook, o.path, run.jobs, o.out, run.secret, run.limits)


class _Ahead:
    """What is given each result as it is graded: the outputs' reading (``outputs.WarmUp``) and the
    gradebook's recording (``record_ahead.RecordAhead``), either ``None``."""

    def __init__(self, read, record):
        self.read, self.record = read, record

    def take(self, job, result) -> None:
        for ahead in (self.read, self.record):
            if ahead is not None:
                ahead.take(job, result)


def grade(run: ClassRun) -> None:
    """Grade every notebook on ``options.workers`` workers (``workers.grade_all``; the results stay on
    disk, ``stream.Results``), reading the graded notebooks ahead for the outputs and recording them
    in the gradebook meanwhile (``record_ahead.py``)."""
    from autograder.grading.outputs import WarmUp
    from autograder.grading.record_ahead import RecordAhead
    from autograder.grading.workers import grade_all
    from autograder.reports.console import Progress
    o = run.options
    read_ahead = WarmUp(run.jobs) if o.shard is None else None  # the outputs' reading, begun during grading
    if o.shard is None and o.gradebook != "none":
        run.record_ahead = RecordAhead(run.jobs, o.gradebook, o.path, run.late_found)
    progress = Progress(len(run.jobs), o.quiet) if o.progress else None
    try:
        graded = grade_all(run.jobs, run.secret, run.limits, max(1, o.workers), progress=progress, out=o.out,
                           resume=o.resume, on_disk=True, started=run.started,
                           read_ahead=_Ahead(read_ahead, run.record_ahead))
    finally:
        if progress is not None:
            progress.close()
    run.results, run.failures, run.reused = graded
    if read_ahead is not None:
        read_ahead.join()


def record(run: ClassRun) -> None:
    """Record the grades in nbgrader's gradebook (``options.gradebook``), and put its late penalties and
    manual overrides, and the late resubmissions found, into the results (``outputs.record``)."""
    from autograder.grading.outputs import record as record_grades
    if run.shard is None:
        run.recorded, run.totals = record_grades(run.jobs, run.results, gradebook=run.options.gradebook,
                                                 path=run.options.path, late_found=run.late_found,
                                                 say=run.options.say, ahead=run.record_ahead)


def write_outputs(run: ClassRun) -> None:
    """Write the class's files (``outputs.write_class_outputs``); a shard writes its manifest."""
    from autograder.grading.outputs import write_class_outputs
    o = run.options
    if run.shard is not None:  # the merge writes the class's files (cluster/merge.py)
        run.shard.finish(run.results, run.failures, run.reused, level=run.level or "unconfined")
        return
    run.csv_path, run.flagged, run.note_path = write_class_outputs(
        run.jobs, run.results, Path(o.out), totals=run.totals, say=o.say,
        roster=run.roster)


def report(run: ClassRun) -> None:
    """Print what the grade command prints: each notebook's table (unless ``quiet``), the flags, the
    summary line, and the grader's failures (on stderr)."""
    o = run.options
    if not o.report:
        return
    from autograder.reports import console
    out, n = Path(o.out), len(run.results)
    students = len({r.student_id for r in run.results.rows() if r is not None})
    seconds = time.perf_counter() - run.began
    if run.shard is not None:
        k, total = o.shard
        print(f"shard {k}/{total}: {n} notebook(s) of {students} student(s) in {seconds:.1f} s ({n - run.reused} "
              f"graded, {run.reused} recorded by an earlier run); manifest {run.shard.path} "
              "(next: python -m autograder merge)")
    else:
        if not o.quiet:
            for r in run.results:
                print(console.table(r))
        if run.flagged:
            print(f"{len(run.flagged)} notebook(s) identical to another student's or hard-linked: listed in "
                  f"{run.note_path} (flagged only; their points are unchanged)")
        reused = f" ({run.reused} unchanged since the last run, not regraded)" if run.reused else ""
        print(f"graded {n} notebook(s) of {students} student(s) in {seconds:.1f} s{reused}; results in {out}/, "
              f"class table in {run.csv_path}")
    if run.failures and run.shard is not None:
        print(f"the grader failed on {run.failures} notebook(s): tracebacks in {out / 'grader-errors.log'}",
              file=sys.stderr)
    elif run.failures:
        print(f"the grader failed on {run.failures} notebook(s): 'grader error' in their results, tracebacks "
              f"in {out / 'grader-errors.log'}", file=sys.stderr)


STAGES = (find, preflight, grade, record, write_outputs, report)


def grade_class(run: ClassRun) -> ClassRun:
    """Run ``STAGES`` on ``run``, in order; returns it, filled.

    Raises:
        UsageError: nothing to grade under ``options.path``, or a broken roster.
        preflight.PreflightError: something the grading needs is missing; nothing was graded.
        class_report.ReportNotWritten: graded, and grades.csv written, but no class report.
    """
    for stage in STAGES:
        t0 = time.perf_counter()
        stage(run)
        run.seconds[stage.__name__] = time.perf_counter() - t0
    return run


def read_secret(secret_file=None) -> bytes:
    """The course secret (``checks/seeds.load_secret``); raises ``preflight.PreflightError`` when there is none."""
    from autograder.checks.seeds import load_secret
    from autograder.core.registry import SECRET_FILE
    from autograder.grading.preflight import PreflightError
    try:
        return load_secret(secret_file, create=False)
    except FileNotFoundError as exc:
        raise PreflightError(f"{exc}. Grading needs the course secret the term started with (other secret, "
                             f"other randomized cases, other grades): restore {SECRET_FILE.name} or set "
                             "$COURSE_SECRET; for a new course, pass --new-secret once") from None
