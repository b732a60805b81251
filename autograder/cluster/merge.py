"""``python -m autograder merge SHARD_DIR... --out graded/``: one writer for a class graded in shards.

First every check, and nothing is written unless all pass (``check``):

* each folder holds a complete shard manifest (``shards.MANIFEST``): a missing folder, a
  shard that never started, or one still "running" (killed, or not finished yet) is named;
* the shards agree on N and cover 1..N once each; no student is in two shards;
* they were graded by the same grader (code digest, exercises' checks and reference, limits),
  with the same course secret (its keyed hash), from the same roster and ``submitted/``;
* ``submitted/`` still holds exactly the notebooks the shards graded, with the bytes they
  graded (a notebook collected again since is named, with the shard to rerun).

Shards whose environments differ (Python, numpy, numpy's BLAS, CPU) are named in a
warning: numbers can then differ in their last digits, which the checks' tolerances allow
for but an exact comparison of two runs would not.

Then the class's files are written by the code a single run uses (``grading/outputs.write_class_outputs``):
the gradebook (once, by this one process), every student's results.json and report.html,
identical submissions flagged across all shards, grades.csv, class.html and its CSVs; the
shards' grader-error logs are joined into ``OUT/grader-errors.log``, and ``OUT/shards.json``
says which shards were merged and what each ran on.

Exit status: 0 when merged, 1 when merged but the grader failed on some notebook or the
gradebook did not take every grade or the class report could not be written (as a single run), 2 on bad usage, 4 when the shards do
not form a whole (nothing written).
"""
from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from autograder.grading import shards as sh

NOT_WHOLE = 4


class NotWhole(Exception):
    """The shards do not form the whole class; ``problems`` lists why (``str`` each)."""

    def __init__(self, problems):
        super().__init__("; ".join(problems))
        self.problems = list(problems)


@dataclass
class Checked:
    """Shards that form a whole: ``manifests`` (by shard number), ``submitted`` (``str``),
    ``jobs`` (the class's ``vocabulary.Job`` list), ``results`` (``NotebookResult`` of each job,
    same order), ``failures`` (notebooks the grader failed on), ``warnings`` (``str`` list)."""
    manifests: dict
    folders: dict
    submitted: str
    jobs: list
    results: list
    failures: int
    warnings: list = field(default_factory=list)
    recorded: bool = True
    csv_path: Path | None = None


def _env_key(env):
    return {k: env.get(k) for k in sh.COMPARED_ENVIRONMENT}


def _describe_env(env):
    blas = env.get("blas") or {}
    return (f"Python {env.get('python')}, numpy {env.get('numpy')}, BLAS {blas.get('name', '?')} "
            f"{blas.get('version', '')}".rstrip() + f", {env.get('machine')}, CPU {env.get('cpu')}")


def check(folders) -> Checked:
    """Read and check the shard outputs ``folders`` (see the module docstring).

    Args:
        folders: the shards' output folders (``str`` or ``Path``), in any order.
    Returns:
        ``Checked``.
    Raises:
        NotWhole: with every problem found (missing, unfinished, duplicate or mismatched
            shards, a student in two shards, submissions changed since graded).
    """
    from autograder.grading.discover import discover
    from autograder.grading.resume import result_from
    problems, warnings = [], []
    read = []  # (folder, manifest)
    for folder in folders:
        try:
            data = sh.read_manifest(folder)
        except (FileNotFoundError, ValueError) as exc:
            problems.append(str(exc))
            continue
        read.append((Path(folder), data))
        if data.get("status") != "complete":
            problems.append(f"{folder}: shard {data.get('shard')}/{data.get('shards')} did not finish (started "
                            f"{data.get('started')} on {data.get('environment', {}).get('host')}, process "
                            f"{data.get('pid')}): run it again with the same --out; it grades only what it "
                            "had not recorded yet")
    ns = sorted({d.get("shards") for _, d in read}, key=str)
    if len(ns) > 1:
        problems.append("the shards were cut for different numbers of shards: "
                        + "; ".join(f"{f} is {d.get('shard')}/{d.get('shards')}" for f, d in read))
    n = ns[0] if len(ns) == 1 else None
    by_k: dict[int | None, list[Path]] = {}  # shard number (None: not said) -> the folders that hold it
    for f, d in read:
        by_k.setdefault(d.get("shard"), []).append(f)
    if n is not None:
        for k in range(1, n + 1):
            if k not in by_k:
                problems.append(f"shard {k}/{n} is missing: no folder given holds it (grade it with "
                                f"--shard {k}/{n}, or name its folder)")
            elif len(by_k[k]) > 1:
                problems.append(f"shard {k}/{n} is given twice: {', '.join(map(str, by_k[k]))}")
    if not read and not problems:
        problems.append("no shard folders given")
    for name, what in (("grader", "the grader's code"), ("exercises", "the exercises' checks or reference"),
                       ("limits", "the limits or confinement level"), ("secret", "the course secret"),
                       ("roster", "the class roster (submissions added or removed between shards)"),
                       ("submitted", "the submitted/ folder")):
        values: dict[str, list[str]] = {}  # the value's repr -> the shards that have it
        for _folder, d in read:
            values.setdefault(repr(d.get(name)), []).append(f"{d.get('shard')}/{d.get('shards')}")
        if len(values) > 1:
            groups = " versus ".join(", ".join(v) for v in values.values())
            problems.append(f"the shards differ in {what}: shards {groups}; grade them all again with one "
                            "grader and secret")
    seen: dict[str, list[str]] = {}  # student -> the shards that graded them
    for _folder, d in read:
        for student in d.get("students", []):
            seen.setdefault(student, []).append(f"{d.get('shard')}/{d.get('shards')}")
    twice = {s: ks for s, ks in seen.items() if len(ks) > 1}
    for student, ks in sorted(twice.items()):
        problems.append(f"student {student!r} is in more than one shard: {', '.join(ks)}")
    if problems:
        raise NotWhole(problems)

    manifests = {d["shard"]: d for _, d in read}
    folders_by_k = {d["shard"]: f for f, d in read}
    first = manifests[1]
    envs: dict[str, list[int]] = {}  # the environment's repr -> its shards
    for k, d in sorted(manifests.items()):
        envs.setdefault(repr(_env_key(d.get("environment", {}))), []).append(k)
    if len(envs) > 1:
        lines = [f"shards {', '.join(map(str, ks))}: {_describe_env(manifests[ks[0]]['environment'])}"
                 for ks in envs.values()]
        warnings.append("the shards ran in different environments (numbers can differ in their last digits "
                        "between BLAS builds and CPUs): " + "; ".join(lines))

    submitted = first["submitted"]
    try:
        jobs = discover(submitted)
    except FileNotFoundError as exc:
        raise NotWhole([f"the shards graded {submitted}, which is not there any more ({exc})"]) from None
    if sh.roster_digest(jobs) != first["roster"]:
        raise NotWhole([f"{submitted} holds other students or notebooks than when the shards were cut "
                        "(a collection in between?): grade every shard again"])
    assert n is not None  # the manifests agree on one number of shards, else NotWhole was raised
    shard_of = sh.assign(jobs, n)
    for k, d in manifests.items():
        expected = sorted({s for s, kk in shard_of.items() if kk == k}, key=sh.sort_key)
        if list(d.get("students", [])) != expected:
            problems.append(f"shard {k}/{n} holds other students than --shard {k}/{n} selects "
                            f"({len(d.get('students', []))} instead of {len(expected)})")
    entries = {}
    for k, d in manifests.items():
        for e in d.get("results", []):
            entries[e["job"]] = (k, e)
    results = []
    for job in jobs:
        key = sh.job_key(job, submitted)
        found = entries.pop(key, None)
        if found is None:
            problems.append(f"{key}: graded by no shard (shard {shard_of[job.student_id]}/{n} should hold it)")
            continue
        k, e = found
        if e.get("content") != sh.content_digest(job):
            problems.append(f"{key}: changed since shard {k}/{n} graded it: run shard {k}/{n} again with the "
                            "same --out (it regrades only what changed)")
            continue
        try:
            results.append(result_from(e["result"]))
        except (KeyError, TypeError, ValueError) as exc:
            problems.append(f"{key}: shard {k}/{n}'s result cannot be read ({type(exc).__name__}: {exc})")
    for key, (k, _) in sorted(entries.items()):
        problems.append(f"{key}: graded by shard {k}/{n} but no longer in {submitted}")
    if problems:
        raise NotWhole(problems)
    failures = sum(int(d.get("failures", 0)) for d in manifests.values())
    return Checked(manifests, folders_by_k, submitted, jobs, results, failures, warnings)


def write(checked: Checked, out, gradebook_option: str = "auto", quiet: bool = True):
    """Write the class's files into ``out`` from ``checked`` shards (see the module docstring).

    Returns:
        ``(recorded, csv_path)``: whether nbgrader's gradebook took every grade, and grades.csv's ``Path``.
    """
    from autograder.grading.outputs import record, write_class_outputs
    from autograder.lms.command import roster_for_run
    roster = roster_for_run(None, checked.submitted)  # the course's roster.csv, as a single run finds it
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    recorded, totals = record(checked.jobs, checked.results, gradebook=gradebook_option, path=checked.submitted)
    csv_path, flagged, note_path = write_class_outputs(checked.jobs, checked.results, out, totals=totals,
                                                       show=None if quiet else print, roster=roster)
    if flagged:
        print(f"{len(flagged)} notebook(s) identical to another student's or hard-linked: listed in {note_path} "
              "(flagged only; their points are unchanged)")
    logs = [(k, Path(checked.folders[k]) / "grader-errors.log") for k in sorted(checked.folders)]
    log_text = "".join(f"### shard {k}/{len(checked.folders)}\n" + p.read_text(encoding="utf-8", errors="replace")
                       for k, p in logs if p.is_file() and checked.manifests[k].get("failures"))
    errors_log = out / "grader-errors.log"
    if log_text:
        errors_log.write_text(log_text, encoding="utf-8")
    elif errors_log.exists():
        errors_log.unlink()  # an old log never outlives a clean regrade
    summary = {"merged": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "submitted": checked.submitted,
               "shards": [{"shard": k, "folder": os.path.abspath(checked.folders[k]),
                           "students": len(d.get("students", [])), "notebooks": d.get("notebooks"),
                           "graded": d.get("graded"), "reused": d.get("reused"), "failures": d.get("failures"),
                           "confinement": d.get("confinement"), "environment": d.get("environment"),
                           "started": d.get("started"), "finished": d.get("finished")}
                          for k, d in sorted(checked.manifests.items())],
               "grader": checked.manifests[1].get("grader"), "warnings": checked.warnings}
    sh.write_json(out / "shards.json", summary)
    return recorded, csv_path


def merge(folders, out, gradebook_option: str = "auto", quiet: bool = True) -> Checked:
    """``check`` the shard outputs ``folders``, then ``write`` into ``out``.

    Raises:
        NotWhole: the shards do not form the whole class (nothing was written).
        ValueError: ``out`` is one of the shard folders.
    """
    out = Path(out)
    for f in folders:
        if out.exists() and Path(f).exists() and os.path.samefile(out, f):
            raise ValueError(f"--out {out} is one of the shard folders: merge into a folder of its own")
    checked = check(folders)
    checked.recorded, checked.csv_path = write(checked, out, gradebook_option, quiet)
    return checked


def add_arguments(parser):
    """The ``merge`` subcommand's arguments."""
    from autograder.nbgrader_glue import gradebook
    parser.add_argument("shards", nargs="+", metavar="SHARD_DIR",
                        help="the --out folder of every shard (1..N, each once)")
    parser.add_argument("--out", default="graded", help="where the class's files go (default: graded/)")
    parser.add_argument("--gradebook", default="auto", metavar="URL", help=gradebook.OPTION_HELP)
    parser.add_argument("--quiet", action="store_true", help="print no per-notebook table")


def command(args, parser) -> int:
    """Run ``python -m autograder merge`` (exit status in the module docstring)."""
    from autograder.reports.class_report import ReportNotWritten
    t0 = time.perf_counter()
    if any(os.path.abspath(args.out) == os.path.abspath(f) for f in args.shards):
        parser.error(f"--out {args.out} is one of the shard folders: merge into a folder of its own")
    try:
        checked = merge(args.shards, args.out, args.gradebook, args.quiet)
    except NotWhole as exc:
        print("cannot merge: the shards do not form the whole class; nothing was written:", file=sys.stderr)
        for problem in exc.problems:
            print(f"  - {problem}", file=sys.stderr)
        return NOT_WHOLE
    except ReportNotWritten as exc:  # merged and grades.csv written, but no class report
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except ValueError as exc:
        parser.error(str(exc))
    for warning in checked.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    results = checked.results
    print(f"merged {len(checked.manifests)} shard(s): {len(results)} notebook(s) of "
          f"{len({r.student_id for r in results})} student(s) in {time.perf_counter() - t0:.1f} s; results in "
          f"{args.out}/, class table in {checked.csv_path}")
    if checked.failures:
        print(f"the grader failed on {checked.failures} notebook(s): 'grader error' in their results, tracebacks "
              f"in {Path(args.out) / 'grader-errors.log'}", file=sys.stderr)
    return 1 if checked.failures or not checked.recorded else 0
