"""Resumable class runs: what has been graded, recorded under the output folder.

Each graded notebook leaves ``OUT/.resume/<key>.json`` (written atomically as soon as it is
graded), holding its result and a fingerprint of everything the result depends on: the
notebook's bytes, the student and assignment ids, the exercise's checks and reference
solution, the grader's own code, the limits, and the course secret (as an HMAC, never the
secret itself). A run started again over the same ``--out`` reuses a record only when the
fingerprint is unchanged, so an interrupted run finishes with the results an uninterrupted
run gives. Results flagged "grader error" are never reused.
"""
import dataclasses
import hashlib
import hmac
import json
import os
from pathlib import Path

from autograder.child import wire
from autograder.core.vocabulary import CheckResult, NotebookResult, Problem
from autograder.grading.grader_files import grader_files
from autograder.submission.files import UnreadableSubmission, read_submission

FOLDER = ".resume"


def grader_version(package_dir=None):
    """sha256 hex of every grader file (``grader_files.grader_files``: each module and declared data
    file of the package, path and bytes), so a change anywhere in the grader regrades."""
    digest = hashlib.sha256()
    files = grader_files() if package_dir is None else grader_files(package_dir)
    for name, path in files.items():
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


class Store:
    """The ``.resume`` records of one output folder.

    Args:
        out: the output folder (``str`` or ``Path``).
        secret: the course secret (``bytes``).
        limits: the ``Limits`` of this run (other limits, other results).
    """

    def __init__(self, out, secret, limits):
        self.folder = Path(out) / FOLDER
        self.key = hmac.new(secret, b"autograder resume", hashlib.sha256).hexdigest()
        self.limits = repr(limits)
        self.grader = grader_version()
        self._exercises = {}

    def _exercise_version(self, exercise):
        if exercise.name not in self._exercises:
            digest = hashlib.sha256()
            for path in (exercise.checks_file, exercise.solution_module, exercise.release_notebook):
                digest.update(Path(path).read_bytes() if Path(path).is_file() else b"")
            self._exercises[exercise.name] = digest.hexdigest()
        return self._exercises[exercise.name]

    def _paths(self, job):
        name = os.fsencode(str(job.path.resolve()))
        record = self.folder / (hashlib.sha256(name).hexdigest() + ".json")
        return record

    def fingerprint(self, job):
        """Hex digest of what ``job``'s result depends on (``None`` when it cannot be read)."""
        paths = [job.path, *job.alternatives]  # every notebook handing in this exercise counts
        try:  # read as grading reads them: regular files, never through a symbolic link
            contents = [read_submission(p) for p in paths]
        except (OSError, UnreadableSubmission):
            return None
        parts = [self.key, self.grader, self.limits, self._exercise_version(job.exercise),
                 *(hashlib.sha256(c).hexdigest() for c in contents),
                 *(os.fsencode(x).hex() for x in (job.student_id, *(p.name for p in paths)))]
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()

    def load(self, job):
        """The recorded ``NotebookResult`` of ``job`` when its fingerprint is unchanged, else ``None``."""
        if job.exercise is None:
            return None
        record = self._paths(job)
        try:
            data = json.loads(record.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if data.get("fingerprint") != self.fingerprint(job):
            return None
        try:
            return result_from(data["result"])
        except (KeyError, TypeError, ValueError):
            return None

    def record_path(self, job) -> Path:
        """Where ``job``'s record is (or would be) kept: a JSON file whose ``"result"`` is the result."""
        return self._paths(job)

    def save(self, job, result) -> Path | None:
        """Record ``result`` as ``job``'s (atomically: a run killed mid-write leaves no half record).
        Returns the record's ``Path``, or ``None`` when nothing was recorded (a grader error, a notebook
        of no known exercise, one that cannot be read)."""
        if job.exercise is None or Problem.GRADER_ERROR in result.all_problems:
            return None
        fingerprint = self.fingerprint(job)
        if fingerprint is None:
            return None
        self.folder.mkdir(parents=True, exist_ok=True)
        record = self._paths(job)
        tmp = record.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps({"fingerprint": fingerprint, "result": result_to(result)},
                                  ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, record)
        return record


def result_to(result):
    data = dataclasses.asdict(result)
    data["problems"] = sorted(p.value for p in result.problems)
    # details hold the values a report shows (arrays, tuples, dicts with tuple keys): stored
    # in the wire format, which keeps their types through JSON.
    data["checks"] = [dict(dataclasses.asdict(c), problems=sorted(p.value for p in c.problems),
                           details=wire.to_wire(c.details))
                      for c in result.checks]
    return data


def result_from(data):
    checks = [CheckResult(**dict(c, problems=frozenset(Problem(p) for p in c["problems"]),
                                 details=wire.from_wire(c.get("details"))))
              for c in data["checks"]]
    return NotebookResult(**dict(data, checks=checks, problems={Problem(p) for p in data["problems"]}))
