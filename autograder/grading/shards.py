"""Shards of a class run: which students shard K of N grades, and what it leaves behind.

``python -m autograder grade submitted/ --shard K/N --out DIR`` grades only the students of
shard K. A student is never split: all of a student's notebooks are in one shard, so they
share one worker and one warm sandbox as in a single run. The split depends on the roster
alone (who hands in how many notebooks), never on the order files are listed in, so every
machine that reads the same ``submitted/`` computes the same split without talking to the
others.

How the split is made (``assign``): students are taken heaviest first (most notebooks;
equal weights in order of their ids) and each goes to the shard holding the fewest
notebooks so far (the lowest shard number on a tie). This is the "longest processing time
first" rule of scheduling (Graham, 1969): no shard ends up holding more than the lightest
shard plus one student's notebooks.

What a shard leaves in DIR:

* ``.resume/``: one record per graded notebook, as a single run writes them (``resume.py``):
  a shard run again over the same DIR grades only what is not recorded yet;
* ``grader-errors.log``: tracebacks of grader defects, when there were any;
* ``shard.json`` (``MANIFEST``): written when the shard starts (``"status": "running"``) and
  replaced when it has a result for every one of its notebooks (``"complete"``), holding
  those results, and what the shard ran on: the grader's fingerprint (``resume.py``'s digest
  of the grader's code, and one of each exercise's checks, reference and release), the
  limits, the confinement level, a keyed hash of the course secret (never the secret), and
  the environment (``environment``: Python, numpy, numpy's BLAS, CPU).

``cluster/merge.py`` reads the manifests.
"""
from __future__ import annotations

import datetime
import hashlib
import hmac
import json
import os
import platform
import socket
from pathlib import Path

MANIFEST = "shard.json"
FORMAT = 1
# What a difference in would make numbers differ (in their last digits, through the BLAS
# kernels numpy picks): the merge names shards whose values of these differ.
COMPARED_ENVIRONMENT = ("python", "numpy", "blas", "machine", "cpu")


def parse_spec(text: str) -> tuple[int, int]:
    """``"K/N"`` -> ``(K, N)``: shard K (1-based) of N.

    Raises:
        ValueError: not two whole numbers with ``1 <= K <= N`` (the message says so).
    """
    parts = str(text).strip().split("/")
    try:
        k, n = (int(p) for p in parts)
    except ValueError:
        raise ValueError(f"--shard {text!r}: write K/N, e.g. 2/8 for the second of eight shards") from None
    if n < 1 or not 1 <= k <= n:
        raise ValueError(f"--shard {text!r}: K must be between 1 and N (N at least 1)")
    return k, n


def notebooks_of(job) -> int:
    """How many notebook files a ``vocabulary.Job`` hands in (its path and its alternatives)."""
    return 1 + len(job.alternatives)


def weights(jobs) -> dict:
    """``{student_id: notebook files}`` of a class (``vocabulary.Job`` list)."""
    counts: dict[str, int] = {}
    for job in jobs:
        counts[job.student_id] = counts.get(job.student_id, 0) + notebooks_of(job)
    return counts


def assign(jobs, n: int) -> dict:
    """The shard (1..``n``) of each student of ``jobs`` (see the module docstring).

    Args:
        jobs: ``vocabulary.Job`` list (any order: the result depends on the roster only).
        n: number of shards (``int`` >= 1).
    Returns:
        ``{student_id: shard number}``.
    """
    if n < 1:
        raise ValueError("the number of shards must be at least 1")
    loads = [0] * n
    shard = {}
    counts = weights(jobs)
    for student in sorted(counts, key=lambda s: (-counts[s], sort_key(s))):
        best = min(range(n), key=lambda i: (loads[i], i))
        loads[best] += counts[student]
        shard[student] = best + 1
    return shard


def sort_key(student_id):
    # Raw bytes: a student id read from a non-UTF-8 folder name holds surrogates.
    return os.fsencode(student_id)


def select(jobs, k: int, n: int) -> list:
    """The jobs of shard ``k`` of ``n``, in their order in ``jobs`` (``vocabulary.Job`` list)."""
    shard = assign(jobs, n)
    return [job for job in jobs if shard[job.student_id] == k]


def roster_digest(jobs) -> str:
    """Hex digest of the whole class's roster: every student with their notebook files'
    names. Shards computed from different rosters (a submission collected between them)
    do not fit together; the merge compares this."""
    lines = sorted(os.fsencode(j.student_id).hex() + " " + " ".join(os.fsencode(p.name).hex()
                                                                     for p in (j.path, *j.alternatives))
                   for j in jobs)
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def secret_check(secret: bytes) -> str:
    """A keyed hash of the course secret (HMAC-SHA256 of a fixed text): equal for equal
    secrets, and telling nothing about the secret itself."""
    return hmac.new(secret, b"autograder shard: same course secret", hashlib.sha256).hexdigest()


def _blas():
    """numpy's BLAS as numpy's build reports it (``numpy.show_config(mode="dicts")``):
    ``{"name", "version", "configuration"}``; ``{}`` when numpy does not say."""
    try:
        import numpy
        config = numpy.show_config(mode="dicts")
        blas = config.get("Build Dependencies", {}).get("blas", {})
    except Exception:  # an older numpy without mode="dicts"
        return {}
    return {"name": str(blas.get("name", "")), "version": str(blas.get("version", "")),
            "configuration": str(blas.get("openblas configuration", blas.get("configuration", "")))}


def _cpu():
    """The CPU's model name (``/proc/cpuinfo``), else ``platform.processor()``."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.lower().startswith(("model name", "cpu model")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def environment() -> dict:
    """What this machine grades with: ``python`` (version), ``numpy`` (version), ``blas``
    (``_blas``), ``machine`` (``platform.machine()``), ``cpu`` (model name), and, for the
    reader only, ``host`` and ``system``. Values are ``str`` except ``blas`` (a dict)."""
    try:
        import numpy
        numpy_version = numpy.__version__
    except ImportError:
        numpy_version = ""
    return {"python": platform.python_version(), "numpy": numpy_version, "blas": _blas(),
            "machine": platform.machine(), "cpu": _cpu(), "host": socket.gethostname(),
            "system": platform.platform()}


def grader_fingerprint(jobs, limits, secret) -> dict:
    """What a shard's results depend on besides the submissions: ``grader`` (digest of the
    grader's code, as ``resume.py`` computes it), ``exercises`` (``{name: digest}`` of each
    graded exercise's checks, reference and release), ``limits`` (their repr)."""
    from autograder.grading.resume import Store, grader_version
    store = Store(Path("."), secret, limits)
    exercises = {j.exercise.name: store._exercise_version(j.exercise) for j in jobs if j.exercise is not None}
    return {"grader": grader_version(), "exercises": dict(sorted(exercises.items())), "limits": repr(limits)}


def job_key(job, submitted) -> str:
    """A job's name in a manifest: its notebook's path relative to ``submitted`` (or the
    absolute path when it is outside), as ``/``-separated text."""
    path = Path(os.path.abspath(job.path))
    root = Path(os.path.abspath(submitted))
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def content_digest(job) -> str:
    """sha256 of the bytes of every notebook file of ``job`` (its path, then its
    alternatives); ``""`` for a file that cannot be read. The merge compares it with the
    files as they are then: a notebook changed since its shard graded it is named."""
    digest = hashlib.sha256()
    for p in (job.path, *job.alternatives):
        try:
            data = Path(p).read_bytes()
        except OSError:
            data = b"\0unreadable"
        digest.update(hashlib.sha256(data).digest())
    return digest.hexdigest()


def _now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def write_json(path: Path, data: dict) -> None:
    """Write ``data`` to ``path`` atomically (a temporary file, then ``os.replace``)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)


class ShardRun:
    """The manifest of one shard run: ``start`` before grading, ``finish`` after.

    Args:
        out: the shard's output folder (``Path``).
        k, n: shard K of N.
        submitted: the PATH graded (``submitted/``), made absolute.
        all_jobs: the whole class's ``vocabulary.Job`` list; mine: this shard's.
        secret: the course secret (``bytes``); only its keyed hash is written.
        limits: the ``Limits`` graded under; level: the confinement level asked for (``--confinement``;
            ``finish`` records the one the preflight chose, ``None``: unconfined).
    """

    def __init__(self, out, k, n, submitted, all_jobs, mine, secret, limits, level):
        self.path = Path(out) / MANIFEST
        self.submitted = os.path.abspath(submitted)
        self.mine = mine
        students = sorted({j.student_id for j in mine}, key=sort_key)
        self.data = {"format": FORMAT, "status": "running", "shard": k, "shards": n,
                     "submitted": self.submitted, "roster": roster_digest(all_jobs),
                     "class_students": len({j.student_id for j in all_jobs}),
                     "students": students, "notebooks": sum(notebooks_of(j) for j in mine),
                     "secret": secret_check(secret), **grader_fingerprint(all_jobs, limits, secret),
                     "confinement": level or "unconfined", "environment": environment(),
                     "started": _now(), "pid": os.getpid()}

    def start(self) -> None:
        """Write the manifest with ``"status": "running"`` (no results)."""
        write_json(self.path, self.data)

    def finish(self, results, failures: int, reused: int, level: str | None = None) -> None:
        """Write the manifest with ``"status": "complete"`` and every result.

        Args:
            results: the ``NotebookResult`` of each of this shard's jobs, same order.
            failures: notebooks on which the grader failed. reused: results taken from
                ``.resume`` records rather than graded by this run.
            level: the confinement level the run used ("bubblewrap", "setuid" or "unconfined");
                ``None`` keeps the one given at the start.
        """
        from autograder.grading.resume import result_to
        entries = [{"job": job_key(j, self.submitted), "student_id": j.student_id,
                    "exercise": j.exercise.name if j.exercise is not None else None,
                    "content": content_digest(j), "result": result_to(r)}
                   for j, r in zip(self.mine, results, strict=True)]
        if level is not None:
            self.data["confinement"] = level
        self.data.update(status="complete", finished=_now(),
                         failures=failures, reused=reused,
                         graded=len(results) - reused, results=entries)
        write_json(self.path, self.data)


def read_manifest(folder) -> dict:
    """The manifest of the shard output ``folder`` (``dict``).

    Raises:
        FileNotFoundError: no ``shard.json`` in ``folder``.
        ValueError: it is not a manifest this grader can read.
    """
    path = Path(folder) / MANIFEST
    if not path.is_file():
        raise FileNotFoundError(f"{folder}: no {MANIFEST} (this shard never ran, or ran with another --out)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: not readable as JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path}: not a shard manifest of this grader (format {FORMAT})")
    k, n = data.get("shard"), data.get("shards")
    if not (isinstance(k, int) and isinstance(n, int) and 1 <= k <= n) or not isinstance(data.get("students"), list):
        raise ValueError(f"{path}: damaged (its shard number, number of shards or students are missing)")
    return data
