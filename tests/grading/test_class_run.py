"""A class run never lies and never dies: grader defects are told
apart from wrong answers and logged, a killed worker costs only its notebook and the rest is
graded at full pool width, problems have kinds, any console and locale give the same grades,
preflight stops a run that would charge students for missing prerequisites, and an
interrupted run resumes to the results of an uninterrupted one."""
import csv
import dataclasses
import json
import os
import stat
import subprocess
import sys

import nbformat
import pytest

from autograder import cli
from autograder.checks import seeds
from autograder.checks.declared import points_by_function
from autograder.core.registry import EXERCISES, PROJECT_ROOT
from autograder.core.vocabulary import Job, Problem
from autograder.demo.fill import filled_notebook
from autograder.grading import preflight
from autograder.grading.discover import discover
from autograder.grading.workers import grade_all, grade_job
from autograder.sandbox import tiktoken_cache
from autograder.sandbox.limits import Limits

KV = EXERCISES["kv_cache"]
ATTENTION = EXERCISES["attention"]
# Points of the attention notebook: the sum of its checks' points (test_exercises.py compares
# it with the total the course promises).
ATTENTION_POINTS = sum(points_by_function(ATTENTION).values())
SECRET = b"class-run-secret"


def _write(root, student, exercise, replacements=None, stubs=()):
    folder = root / student / exercise.name
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / exercise.notebook
    nbformat.write(filled_notebook(exercise, replacements, stubs), path)
    return path


# -- a check that raises: a grader error, logged, never charged as a wrong answer --------------------------
BUGGY_CHECKS = '''
import numpy as np
from autograder.checks.api import check, expect_close


@check("kv_cache_size", "a check whose own code is broken", points=1)
def check_broken(kv_cache_size):
    kv_cache_size(12, 768, 1)
    {}["a key the check forgot"]


@check("kv_cache_size", "a check that trusts the type of the value", points=1)
def check_trusting(kv_cache_size):
    numbers, size = kv_cache_size(12, 768, 1)
    expect_close(np.add(numbers, 0), 18432, what="numbers")


@check("kv_cache_size", "a sound check", points=1)
def check_sound(kv_cache_size):
    expect_close(kv_cache_size(12, 768, 1), [18432, 36864], what="(numbers, bytes)")
'''


@pytest.fixture
def buggy_kv(tmp_path):
    """The kv_cache exercise with other hidden checks: its folder holds ``BUGGY_CHECKS``."""
    folder = tmp_path / "kv_cache"
    folder.mkdir()
    (folder / "checks.py").write_text(BUGGY_CHECKS, encoding="utf-8")
    return dataclasses.replace(KV, folder=folder)


@pytest.mark.slow
def test_a_check_that_raises_is_a_grader_error_not_a_wrong_answer(tmp_path, buggy_kv):
    weird = 'def kv_cache_size(n_layers, d_model, n_tokens, bytes_per_number=2):\n    return ("many", "bytes")\n'
    root = tmp_path / "submitted"
    jobs = [Job(_write(root, "ref", KV), "ref", buggy_kv), Job(_write(root, "odd", KV, {"kv_cache_size": weird}), "odd", buggy_kv)]
    out = tmp_path / "graded"
    results, failures, _ = grade_all(jobs, SECRET, Limits(), workers=2, out=out)
    assert failures == 2
    by = {r.student_id: {c.name.split(": ", 1)[1]: c for c in r.checks} for r in results}
    for student in ("ref", "odd"):
        broken = by[student]["a check whose own code is broken"]
        assert broken.score == 0 and "grader error" in broken.output and Problem.GRADER_ERROR in broken.problems
        assert "forgot" not in broken.output            # the check's internals stay hidden
    assert by["ref"]["a check that trusts the type of the value"].score == 1
    trusting = by["odd"]["a check that trusts the type of the value"]
    assert trusting.score == 0 and "could not be checked" in trusting.output and not trusting.problems
    assert by["odd"]["a sound check"].score == 0 and by["ref"]["a sound check"].score == 1
    log = (out / "grader-errors.log").read_text(encoding="utf-8")
    assert log.count("KeyError: 'a key the check forgot'") == 2 and "Traceback" in log
    assert "a check that trusts" not in log


def test_an_exception_out_of_the_grader_is_logged_with_its_traceback(tmp_path, monkeypatch):
    from autograder.grading import workers as grade
    path = _write(tmp_path, "ann", KV)

    def broken(*a, **k):
        raise MemoryError()
    monkeypatch.setattr(grade, "grade_notebook", broken)
    result, failed = grade_job(Job(path, "ann", KV), SECRET, Limits())
    assert failed and {Problem.GRADER_ERROR, Problem.TOO_LARGE} <= result.all_problems
    assert "ran out of memory" in result.notes[0] and "MemoryError" in result.grader_log[0]
    assert result.score == 0 and result.max_score == 15


# -- a worker killed mid-class ---------------------------------------------------------------------------
KILLER = "import os\n_ = os.kill(os.getppid(), 9)\n"


@pytest.mark.slow
def test_a_killed_worker_costs_only_its_notebook_and_the_class_keeps_full_pool_width(tmp_path):
    root = tmp_path / "submitted"
    for s in ("ann", "bob", "cid", "dee", "eve"):
        _write(root, s, ATTENTION)
    _write(root, "kim", ATTENTION, {"causal_mask": KILLER})
    jobs = discover(root)
    pools = []
    results, failures, _ = grade_all(jobs, SECRET, Limits(confine=False), workers=2,
                                  on_pool=lambda size, indices, alone: pools.append((size, indices, alone)))
    scores = {r.student_id: r.score for r in results}
    assert scores == {"ann": ATTENTION_POINTS, "bob": ATTENTION_POINTS, "cid": ATTENTION_POINTS, "dee": ATTENTION_POINTS,
                      "eve": ATTENTION_POINTS, "kim": 0} and failures == 0
    kim = next(r for r in results if r.student_id == "kim")
    assert "killed the grader's worker" in kim.notes[0] and Problem.WORKER_KILLED in kim.all_problems
    # Every pool is as wide as asked (or as the notebooks left): the class never turns serial.
    # The worker that died by SIGKILL names kim, so kim alone collects strikes: a second pool
    # (with whatever was unfinished), then a pool of its own, which it breaks too.
    assert pools[0][:2] == (2, list(range(6))) and all(size == min(2, len(ix)) for size, ix, _ in pools), pools
    isolated = [jobs[ix[0]].student_id for _, ix, alone in pools if alone]
    assert isolated == ["kim"], pools


# -- restarts and time are budgeted where they are spent ----------------------------------------------------
def test_a_crashing_function_costs_only_its_own_checks(hand_in):
    crash = "import os\ndef kv_cache_size(n_layers, d_model, n_tokens, bytes_per_number=2):\n    os._exit(3)\n"
    result = hand_in(KV, {"kv_cache_size": crash}, limits=Limits(max_restarts=1))
    lost = {c.name for c in result.checks if c.score < c.max_score}
    assert lost == {c.name for c in result.checks if c.function == "kv_cache_size"}
    outputs = [c.output for c in result.checks if c.function == "kv_cache_size"]
    assert "exited with status 3" in outputs[0] and "not run again" in outputs[-1]
    assert Problem.CRASH in result.all_problems and result.score == 12


@pytest.mark.slow  # slow tier (docs/development.md): waits out a time budget
def test_a_notebook_that_uses_up_its_time_budget_is_flagged(hand_in):
    hang = "def kv_cache_size(n_layers, d_model, n_tokens, bytes_per_number=2):\n    while True:\n        pass\n"
    result = hand_in(KV, {"kv_cache_size": hang}, limits=Limits(notebook_seconds=3.0))
    assert Problem.TIME_BUDGET in result.all_problems
    assert any("used up its 3 s" in c.output for c in result.checks)


# -- any console, any locale ---------------------------------------------------------------------------------
HOSTILE_NAME = '''
def kv_cache_size(n_layers, d_model, n_tokens, bytes_per_number=2):
    raise type("Err\\u202e\\U0001f353\\u00e9", (Exception,), {})("caf\\u00e9 \\u2192 \\U0001f353")
'''


def _class_with_unicode_names(root):
    _write(root, "ünï 🍓", KV)
    _write(root, "zoë", KV, {"kv_cache_size": HOSTILE_NAME})
    _write(root, "plain", KV, stubs=("decode_step",))


def _grade_cli(root, out, extra_env):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG", "PYTHONIO", "PYTHONUTF8"))}
    env.update(COURSE_SECRET="locale-secret", **extra_env)
    return subprocess.run([sys.executable, "-m", "autograder", "grade", str(root), "--out", str(out), "--jobs", "2"],
                          cwd=PROJECT_ROOT, env=env, capture_output=True, timeout=600)


def _csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return sorted(tuple(sorted(row.items())) for row in csv.DictReader(f))


@pytest.mark.slow
def test_cp1252_console_and_c_locale_give_the_same_grades(tmp_path):
    root = tmp_path / "submitted"
    _class_with_unicode_names(root)
    runs = {}
    for name, env in {"utf8": {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"},
                      "cp1252": {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "cp1252"},
                      "C": {"LANG": "C", "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}}.items():
        out = tmp_path / f"graded-{name}"
        proc = _grade_cli(root, out, env)
        assert proc.returncode == 0, (name, proc.stderr.decode("utf-8", "replace")[-2000:])
        results = {s: json.loads((out / "kv_cache" / s / "results.json").read_text(encoding="utf-8"))
                   for s in ("ünï 🍓", "zoë", "plain")}
        for data in results.values():
            data.pop("execution_time")
        runs[name] = (_csv(out / "grades.csv"), results)
    assert runs["utf8"] == runs["cp1252"] == runs["C"]
    rows = {dict(r)["student_id"]: dict(r) for r in runs["C"][0]}
    assert set(rows) == {"ünï 🍓", "zoë", "plain"}
    assert rows["ünï 🍓"]["total"] == "15" and rows["zoë"]["total"] == "12"
    zoe = runs["C"][1]["zoë"]["tests"]
    raised = next(t["output"] for t in zoe if t["score"] == 0)
    assert "\\u202e" in raised and "\u202e" not in raised and "🍓" in raised   # bidi escaped, emoji kept


# -- preflight -------------------------------------------------------------------------------------------------
def test_tiktoken_cache_missing_or_truncated_stops_the_run(tmp_path, monkeypatch, capsys):
    key = __import__("hashlib").sha1(tiktoken_cache.CL100K_URL.encode()).hexdigest()
    good = tiktoken_cache.cache_dir() / key
    with pytest.raises(preflight.PreflightError, match="missing"):
        preflight.check_tiktoken_cache(tmp_path)
    (tmp_path / key).write_bytes(good.read_bytes()[:1000])
    with pytest.raises(preflight.PreflightError, match="truncated"):
        preflight.check_tiktoken_cache(tmp_path)
    (tmp_path / key).write_bytes(good.read_bytes())
    preflight.check_tiktoken_cache(tmp_path)        # the full file passes
    # through the command line: exit status 3, nobody graded, nobody charged
    monkeypatch.setattr(tiktoken_cache, "cache_dir", lambda: tmp_path / "empty")
    monkeypatch.setenv("COURSE_SECRET", "x")
    nb = _write(tmp_path / "submitted", "ann", EXERCISES["tokens"])
    out = tmp_path / "graded"
    assert cli.main(["grade", str(nb.parent), "--out", str(out)]) == preflight_exit()
    assert "cl100k_base" in capsys.readouterr().err and not out.exists()


def test_every_class_run_entry_stops_at_the_preflight_without_tiktokens_file(tmp_path, monkeypatch, capsys):
    """The one entry of a class run (``grade_class``, which the CLI, the demo and the benchmarks call):
    with tiktoken's cache empty it raises the instructor-facing error and grades nobody."""
    from autograder.grading.class_run import ClassRun, RunOptions, grade_class
    monkeypatch.setattr(tiktoken_cache, "cache_dir", lambda: tmp_path / "empty-cache")
    nb = _write(tmp_path / "submitted", "ann", EXERCISES["tokens"])
    out = tmp_path / "graded"
    with pytest.raises(preflight.PreflightError, match="cl100k_base file is missing") as stop:
        grade_class(ClassRun(RunOptions(out=out), Limits(), secret=b"secret", jobs=discover(nb.parent)))
    assert "python -m autograder caches" in str(stop.value)   # it says how to fix it
    assert not out.exists()                                  # nobody graded, nobody charged


@pytest.mark.slow
def test_the_demo_stops_at_the_preflight_without_tiktokens_file(tmp_path, monkeypatch, capsys):
    """The demo grades its class through ``grade_class``: before setup filled tiktoken's cache it stops
    with the preflight's error (exit status 3) instead of charging its reference student."""
    from autograder.demo.run import main as demo_main
    monkeypatch.setattr(tiktoken_cache, "cache_dir", lambda: tmp_path / "empty-cache")
    work = tmp_path / "demo"
    assert demo_main(["--dir", str(work), "--jobs", "1"]) == cli.PREFLIGHT_FAILED
    assert "cl100k_base" in capsys.readouterr().err and not (work / "graded").exists()


def preflight_exit():
    return cli.PREFLIGHT_FAILED


@pytest.mark.slow
def test_missing_secret_stops_the_run_and_new_secret_is_private_from_the_start(tmp_path, monkeypatch, capsys):
    secret_file = tmp_path / "course" / ".course_secret"
    secret_file.parent.mkdir()
    monkeypatch.setattr(seeds, "SECRET_FILE", secret_file)
    monkeypatch.setattr(cli, "SECRET_FILE", secret_file)
    monkeypatch.delenv("COURSE_SECRET", raising=False)
    nb = _write(tmp_path / "submitted", "ann", KV)
    out = tmp_path / "graded"
    assert cli.main(["grade", str(nb.parent), "--out", str(out)]) == cli.PREFLIGHT_FAILED
    assert "--new-secret" in capsys.readouterr().err and not secret_file.exists() and not out.exists()
    old_umask = os.umask(0)           # even with a permissive umask the file is never readable by others
    try:
        seeds.new_secret(secret_file)
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600 and len(secret_file.read_text().strip()) == 64
    with pytest.raises(FileExistsError):
        seeds.new_secret(secret_file)  # never overwritten
    with pytest.raises(SystemExit) as usage:  # --new-secret over an existing secret: a usage error
        cli.main(["grade", str(nb.parent), "--out", str(out), "--new-secret"])
    assert usage.value.code == 2 and not out.exists()
    secret_file.unlink()
    assert cli.main(["grade", str(nb.parent), "--out", str(out), "--new-secret", "--quiet"]) == 0
    assert secret_file.exists() and stat.S_IMODE(secret_file.stat().st_mode) == 0o600
    assert json.loads((out / "kv_cache" / "ann" / "results.json").read_text(encoding="utf-8"))["score"] == 15


# -- an interrupted run, resumed ------------------------------------------------------------------------------
class _Interrupt(BaseException):
    pass


def _comparable(results):
    return [(r.student_id, r.assignment_id, r.notebook, r.score, r.max_score, r.notes, sorted(r.all_problems),
             [(c.name, c.score, c.max_score, c.output) for c in r.checks]) for r in results]


@pytest.mark.slow
def test_an_interrupted_run_resumes_to_the_uninterrupted_results(tmp_path):
    from exercises.kv_cache.hand_ins import MISTAKES
    root = tmp_path / "submitted"
    _write(root, "ann", KV)
    _write(root, "ben", KV, stubs=KV.functions)
    for m in MISTAKES[:3]:
        _write(root, f"m-{m.label}", KV, {m.function: m.code})
    (root / "cat" / "kv_cache").mkdir(parents=True)
    (root / "cat" / "kv_cache" / "kv_cache.ipynb").write_text("not a notebook")
    jobs = discover(root)
    whole, _, _ = grade_all(jobs, SECRET, Limits(), workers=2, out=tmp_path / "whole")

    out = tmp_path / "resumed"
    seen = []

    def stop_after_three(i, result, reused):
        seen.append(i)
        if len(seen) == 3:
            raise _Interrupt()
    with pytest.raises(_Interrupt):
        grade_all(jobs, SECRET, Limits(), workers=2, out=out, progress=stop_after_three)
    reused = []
    again, _, _ = grade_all(jobs, SECRET, Limits(), workers=2, out=out,
                         progress=lambda i, r, was_reused: reused.append(was_reused))
    assert sum(reused) == 3 and len(reused) == len(jobs)
    assert _comparable(again) == _comparable(whole)
    # a changed notebook is graded again, the others are reused
    _write(root, "ben", KV)
    reused.clear()
    changed, _, _ = grade_all(jobs, SECRET, Limits(), workers=2, out=out,
                           progress=lambda i, r, was_reused: reused.append(was_reused))
    assert sum(reused) == len(jobs) - 1 and next(r for r in changed if r.student_id == "ben").score == 15
    # another secret means other cases: nothing is reused
    reused.clear()
    grade_all(jobs, b"another secret", Limits(), workers=2, out=out,
              progress=lambda i, r, was_reused: reused.append(was_reused))
    assert sum(reused) == 0


def test_each_grading_worker_gets_its_own_memory_limit():
    code = ("import resource; from autograder.grading.pool import _init_worker; _init_worker(None, 3 << 30); "
            "print(resource.getrlimit(resource.RLIMIT_AS)[0])")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=60)
    assert proc.stdout.strip() == str(3 << 30), proc.stderr
    assert Limits().grader_memory_bytes == 4 * 1024 ** 3


def test_every_submission_kind_implements_the_written_protocol():
    from autograder.grading.notebook import BrokenSubmission
    from autograder.submission.local import LocalSubmission
    from autograder.submission.protocol import Submission
    from autograder.submission.remote import ChildSubmission
    for submission in (ChildSubmission([]), LocalSubmission({}), BrokenSubmission("no notebook")):
        assert isinstance(submission, Submission)
        submission.close()


# -- one bug, charged once, cannot be gamed ------------------------------------------------------
LYING_SOFTMAX = '''_LIE = [False]

def softmax(z, axis=-1):
    z = np.asarray(z, dtype=float)
    if _LIE[0]:
        return np.zeros_like(z)
    e = np.exp(z - np.max(z, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)
'''
LAZY_ROW = '''def attention_row(q, K, V):
    _LIE[0] = True  # from now on softmax answers zeros, so "the reference with my softmax" agrees
    K, V = np.asarray(K, dtype=float), np.asarray(V, dtype=float)
    return K @ np.asarray(q, dtype=float), np.zeros(len(K)), np.zeros(V.shape[1])
'''


def test_a_helper_that_passed_its_own_checks_excuses_nothing(hand_in):
    """A softmax that is right when checked alone and wrong once attention_row has run would
    otherwise make a do-nothing attention_row "fully explained by its helper" (found by an
    attack pass): only a helper charged for its bug can excuse its caller."""
    from autograder.core.registry import EXERCISES
    result = hand_in(EXERCISES["attention"], {"softmax": LYING_SOFTMAX, "attention_row": LAZY_ROW})
    by_function = {}
    for c in result.checks:
        by_function.setdefault(c.function, []).append(c)
    assert all(c.score == c.max_score for c in by_function["softmax"])
    weights = [c for c in by_function["attention_row"] if c.score < c.max_score]
    assert weights and not any("passed on account of" in c.output for c in by_function["attention_row"])
