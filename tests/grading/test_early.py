"""Workers started before the preflight (grading/early.py): nothing is graded unless it passes, and
a failed preflight leaves no worker or spare sandbox behind."""
import nbformat
import pytest

from autograder.core.registry import EXERCISES
from autograder.demo.fill import filled_notebook
from autograder.grading import class_run, early, preflight
from autograder.grading.discover import discover
from autograder.sandbox.limits import Limits

KV = EXERCISES["kv_cache"]
SECRET = b"early-secret"


def _class(root, students=("ann", "bob")):
    for s in students:
        folder = root / s / KV.assignment
        folder.mkdir(parents=True)
        nbformat.write(filled_notebook(KV), folder / KV.notebook)
    return discover(root)


def _recording(monkeypatch):
    pools = []

    class Recording(early.WorkerPool):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            pools.append(self)
    monkeypatch.setattr(early, "WorkerPool", Recording)
    return pools


def test_a_failed_preflight_grades_nothing_and_ends_the_workers_started_early(tmp_path, monkeypatch):
    jobs = _class(tmp_path / "submitted")
    pools = _recording(monkeypatch)

    def fails(*a, **k):
        raise preflight.PreflightError("no sandbox here (a test)")
    monkeypatch.setattr(preflight, "run", fails)
    with pytest.raises(preflight.PreflightError):
        options = class_run.RunOptions(out=tmp_path / "graded", workers=2, resume=False)
        class_run.grade_class(class_run.ClassRun(options, Limits(), secret=SECRET, jobs=jobs))
    assert len(pools) == 1 and pools[0].size == 2  # two students: two workers, started before the preflight
    codes = pools[0].exit_codes()
    assert len(codes) == 2 and all(code is not None for code in codes.values())  # all ended
    assert not (tmp_path / "graded").exists() or not any((tmp_path / "graded").rglob("results.json"))


def test_a_run_over_resume_records_starts_no_worker_before_the_preflight(tmp_path, monkeypatch):
    jobs = _class(tmp_path / "submitted", ("ann",))
    (tmp_path / "graded" / ".resume").mkdir(parents=True)
    (tmp_path / "graded" / ".resume" / "x.json").write_text("{}")
    assert early.early_pool(jobs, Limits(confine=False), None, 2, tmp_path / "graded", True) is None
    pools = _recording(monkeypatch)
    started = early.early_pool(jobs, Limits(confine=False), None, 2, tmp_path / "graded", False)
    try:
        assert started is not None and started.size == 1 and pools == [started]  # one student: one worker
    finally:
        started.shutdown()


def test_a_check_run_while_the_workers_start_stops_the_run_and_ends_them(tmp_path, monkeypatch):
    # The gradebook's points against the checks' run meanwhile (class_run.preflight): when they
    # differ, the workers started early end unused, as for a failed preflight.
    jobs = _class(tmp_path / "submitted")
    pools = _recording(monkeypatch)
    seen = []

    def points_differ():
        seen.append(len(pools))  # the workers were started before it ran
        raise preflight.PreflightError("the gradebook and the checks give different points (a test)")
    with pytest.raises(preflight.PreflightError, match="different points"):
        early.preflight_with_workers(jobs, Limits(), None, 2, tmp_path / "graded", False, meanwhile=points_differ)
    assert seen == [1]
    codes = pools[0].exit_codes()
    assert len(codes) == 2 and all(code is not None for code in codes.values())
    assert not (tmp_path / "graded").exists() or not any((tmp_path / "graded").rglob("results.json"))
