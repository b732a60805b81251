"""Does hostile or broken student code cost only its own points, with a message saying why?

Each test hands in the reference attention notebook with one thing broken, the way a
student might, and checks the grade and the feedback.
"""

import os
import time
from dataclasses import replace

import nbformat
import pytest
from conftest import SECRET

from autograder.checks.declared import points_by_function
from autograder.core.registry import EXERCISES
from autograder.demo.fill import filled_notebook
from autograder.grading.notebook import grade_notebook
from autograder.sandbox.limits import Limits, StudentCodeError
from autograder.submission.remote import ChildSubmission

ATTENTION = EXERCISES["attention"]
# Points of the attention notebook: the sum of its checks' points (test_exercises.py compares
# it with the total the course promises).
ATTENTION_POINTS = sum(points_by_function(ATTENTION).values())
FAST = Limits(call_seconds=2.0, retry_seconds=0.5, cell_seconds=2.0)


def _by_function(result):
    out = {}
    for c in result.checks:
        got, top = out.get(c.function, (0.0, 0.0))
        out[c.function] = (got + c.score, top + c.max_score)
    return out


def _lost_only(result, functions):
    """Every function outside ``functions`` has full marks; those inside have none."""
    for fn, (got, top) in _by_function(result).items():
        if fn in functions:
            assert got == 0, (fn, got)
        else:
            assert got == top, (fn, got, top)


@pytest.mark.slow
def test_endless_loop_costs_only_that_function(hand_in):
    loop = "def causal_mask(T):\n    while True:\n        pass\n"
    # A wall-clock window wide enough that the loop gets its hung_cpu_seconds of CPU time even on a
    # loaded machine (with FAST's 0.5 s, a busy machine stops it by the wall clock first).
    result = hand_in(ATTENTION, {"causal_mask": loop}, limits=replace(FAST, retry_seconds=10.0))
    mask = [c for c in result.checks if c.function == "causal_mask"]
    # The hanging cell costs the cell limit once; every later call into the loop is stopped
    # sooner (Limits.hung_cpu_seconds), and says so.
    assert all(c.score == 0 and "did not return within" in c.output for c in mask)
    assert "had already run out of time once" in mask[-1].output
    by = _by_function(result)
    assert by["attention_row"] == (5, 5) and by["softmax"] == (3, 3)
    # attention_matrix calls the hanging mask only when causal=True: the rest still pass.
    grid = {c.name: c.score for c in result.checks if c.function == "attention_matrix"}
    assert grid['attention_matrix: weights for "river bank loan"'] == 1
    assert grid['attention_matrix: causal weights for "river bank loan"'] == 0


@pytest.mark.slow
def test_loop_that_ignores_the_alarm_is_killed(hand_in):
    code = ("import signal\n"
            "def causal_mask(T):\n"
            "    signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
            "    while True:\n"
            "        pass\n")
    result = hand_in(ATTENTION, {"causal_mask": code}, limits=FAST)
    by = _by_function(result)
    assert by["causal_mask"][0] == 0 and by["softmax"] == (3, 3) and by["attention_row"] == (5, 5)


def test_process_exit_is_a_crash_and_grading_goes_on(hand_in):
    code = "import os\ndef project_qkv(X, W_Q, W_K, W_V):\n    os._exit(3)\n"
    result = hand_in(ATTENTION, {"project_qkv": code}, limits=FAST)
    _lost_only(result, {"project_qkv"})
    assert all("died" in c.output for c in result.checks if c.function == "project_qkv")


@pytest.mark.slow
def test_megabytes_of_printing_cost_nothing(hand_in):
    code = ("print('x' * 50_000_000)\n"
            "def causal_mask(T):\n"
            "    for _ in range(200_000):\n"
            "        print('spam line')\n"
            "    return np.tril(np.ones((T, T), dtype=bool))\n")
    result = hand_in(ATTENTION, {"causal_mask": code})
    assert result.score == result.max_score


@pytest.mark.slow
def test_memory_bomb_is_an_error_not_a_crash_of_the_grader(hand_in):
    code = "def softmax(z, axis=-1):\n    big = np.ones(10 ** 11)\n    return big\n"
    result = hand_in(ATTENTION, {"softmax": code}, limits=FAST)
    out = [c.output for c in result.checks if c.function == "softmax"]
    assert all("MemoryError" in o or "died" in o for o in out), out
    assert _by_function(result)["project_qkv"] == (2, 2)


def test_the_grader_packages_cannot_be_imported(hand_in):
    code = ("def project_qkv(X, W_Q, W_K, W_V):\n"
            "    from solutions.attention import project_qkv as theirs\n"
            "    return theirs(X, W_Q, W_K, W_V)\n"
            "def causal_mask(T):\n"
            "    import autograder\n"
            "    return np.tril(np.ones((T, T), dtype=bool))\n"
            "def attention_row(q, K, V):\n"
            "    from exercises.attention import checks   # the hidden checks and their values\n"
            "    return checks.CAT_SCORES, checks.CAT_WEIGHTS, checks.CAT_CONTEXT\n")
    result = hand_in(ATTENTION, {"project_qkv": code, "causal_mask": "", "attention_row": ""})
    for c in result.checks:
        if c.function in ("project_qkv", "causal_mask", "attention_row"):
            assert "ImportError" in c.output and "not available to submissions" in c.output


def test_monkeypatching_numpy_in_the_submission_gains_nothing(hand_in):
    code = ("np.allclose = lambda *a, **k: True\n"
            "np.testing.assert_allclose = lambda *a, **k: None\n"
            "def attention_row(q, K, V):\n"
            "    return np.zeros(len(K)), np.zeros(len(K)), np.zeros(np.shape(V)[1])\n")
    result = hand_in(ATTENTION, {"attention_row": code})
    assert _by_function(result)["attention_row"] == (0, 5)


def test_returning_an_object_that_is_not_data_is_explained(hand_in):
    code = "def softmax(z, axis=-1):\n    return object()\n"
    result = hand_in(ATTENTION, {"softmax": code})
    out = [c.output for c in result.checks if c.function == "softmax"]
    assert all("expected numbers" in o and "object" in o for o in out)


def test_cells_deleted_reordered_retyped_and_decorated_do_not_matter(tmp_path):
    nb = filled_notebook(ATTENTION)
    code = [c for c in nb.cells if c.cell_type == "code"]
    markdown = [c for c in nb.cells if c.cell_type == "markdown"]
    for i, c in enumerate(code):
        c.id = f"renamed-{i}"
        c.metadata = {"tags": ["whatever"], "nbgrader": {"garbage": True}}
    markdown[0].cell_type = "raw"  # retyped
    extra = nbformat.v4.new_code_cell("import warnings, sys\nwarnings.warn('noisy')\n"
                                      "print('Grüße, 注意力 🚀', file=sys.stderr)\nlabel = 'façade ✓'")
    nb.cells = list(reversed(code)) + markdown[1:3] + [extra]  # reversed, markdown mostly deleted
    path = tmp_path / "messy.ipynb"
    nbformat.write(nb, path)
    result = grade_notebook(path, ATTENTION, "s2", SECRET)
    assert result.score == result.max_score


def test_a_file_that_is_not_a_notebook_scores_zero_with_the_reason(tmp_path):
    path = tmp_path / "attention.ipynb"
    path.write_text('{"cells": [ this is not json', encoding="utf-8")
    result = grade_notebook(path, ATTENTION, "s3", SECRET)
    assert result.score == 0 and result.max_score == ATTENTION_POINTS
    assert "not a valid notebook" in result.notes[0]
    assert all("not a valid notebook" in c.output for c in result.checks)


def test_missing_function_is_named(hand_in):
    result = hand_in(ATTENTION, {"attention_row": "def attention_rows(q, K, V):\n    pass\n"})
    out = [c.output for c in result.checks if c.function == "attention_row"]
    assert all("not defined in your notebook" in o for o in out)
    assert _by_function(result)["attention_matrix"] == (7, 7)


def test_syntax_error_costs_only_the_cell(hand_in):
    result = hand_in(ATTENTION, {"causal_mask": "def causal_mask(T:\n    return None\n"})
    assert any("SyntaxError" in n for n in result.notes)
    by = _by_function(result)
    assert by["causal_mask"][0] == 0 and by["attention_row"] == (5, 5)


def test_seeds_differ_between_students_and_repeat_for_one(hand_in):
    from autograder.checks.seeds import case_seed
    assert case_seed(SECRET, "alice", "check_x") == case_seed(SECRET, "alice", "check_x")
    assert case_seed(SECRET, "alice", "check_x") != case_seed(SECRET, "bob", "check_x")
    assert case_seed(b"other", "alice", "check_x") != case_seed(SECRET, "alice", "check_x")


def test_child_inputs_are_copies():
    """The child gets data, not the grader's arrays: nothing it does reaches them."""
    import numpy as np
    with ChildSubmission([(1, "def poke(a):\n    a[0] = 99\n    return a\n")], FAST) as sub:
        a = np.zeros(3)
        out = sub.function("poke")(a)
        assert a[0] == 0 and out[0] == 99
        with pytest.raises(StudentCodeError) as info:
            sub.function("nope")()
        assert info.value.kind == "missing"


def test_installed_packages_stay_importable_in_the_child():
    """The venv may live inside the project; hiding the grader must not hide numpy's neighbours."""
    code = "import json, tiktoken, matplotlib\ndef ok():\n    return [tiktoken.__name__, matplotlib.__name__]\n"
    with ChildSubmission([(1, code)], FAST) as sub:
        assert sub.ensure_started()["errors"] == []
        assert sub.function("ok")() == ["tiktoken", "matplotlib"]


def test_the_course_folder_network_and_grader_are_out_of_reach():
    """The sandbox shows no course file: solutions and the secret do not exist there; the
    project folder holds only the mount points of what is shown (the venv, the child
    package, tiktoken's cache). (Before bubblewrap, Landlock refused them with EPERM.)"""
    from autograder.core.registry import PROJECT_ROOT
    code = f'''
import os, signal, socket, subprocess
def attempt(name):
    actions = {{
        "solutions": lambda: open({str(PROJECT_ROOT / "solutions" / "attention.py")!r}).read(),
        "secret": lambda: open({str(PROJECT_ROOT / ".course_secret")!r}).read(),
        "course": lambda: sorted(os.listdir({str(PROJECT_ROOT)!r})),
        "root": lambda: open("/grader-escape-test", "w").write("x"),
        "signal": lambda: os.kill({os.getpid()}, 0),  # the grader: not in its PID namespace
        "network": lambda: socket.create_connection(("127.0.0.1", 9), timeout=1),
        "program": lambda: subprocess.run(["/bin/true"]).returncode,
        "cwd": lambda: open("scratch.txt", "w").write("fine"),
    }}
    try:
        return ["allowed", actions[name]()]
    except Exception as exc:
        return [type(exc).__name__, str(exc)]
'''
    with ChildSubmission([(1, code)], FAST) as sub:
        probe = sub.function("attempt")
        assert probe("solutions")[0] == "FileNotFoundError"
        assert probe("secret")[0] == "FileNotFoundError"
        assert probe("course") == ["allowed", [".cache", ".venv", "autograder"]]
        assert probe("root")[0] in ("OSError", "PermissionError")  # read-only file system
        assert probe("signal")[0] in ("ProcessLookupError", "PermissionError")
        for name in ("network", "program"):
            assert probe(name)[0] == "PermissionError", name
        assert probe("cwd") == ["allowed", 4]


def test_a_submission_is_one_process_and_leaves_nothing_running():
    """fork is refused by the sandbox's seccomp allow-list (threads work); unconfined,
    what it leaves running is ended when its grading ends."""
    code = ("import os, threading, time\n"
            "def spawn():\n"
            "    box = []\n"
            "    t = threading.Thread(target=lambda: box.append(1))\n"
            "    t.start(); t.join()\n"
            "    r, w = os.pipe()\n"
            "    try:\n"
            "        first = os.fork()\n"
            "    except PermissionError:\n"
            "        return ['refused', len(box)]\n"
            "    if first == 0:\n"
            "        os.setsid()\n"
            "        if os.fork() == 0:\n"
            "            os.write(w, str(os.getpid()).encode())\n"
            "            time.sleep(300)\n"
            "        os._exit(0)\n"
            "    return [int(os.read(r, 20)), len(box)]\n")
    with ChildSubmission([(1, code)], FAST) as sub:
        assert sub.function("spawn")() == ["refused", 1]  # threads still work
    with ChildSubmission([(1, code)], Limits(call_seconds=2.0, confine=False)) as sub:
        pid, threads_ran = sub.function("spawn")()
        assert threads_ran == 1
    time.sleep(0.2)
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        state = "gone"
    assert state in ("gone", "Z", "X"), state


def test_garbage_written_into_the_answer_channel_is_ignored():
    code = ("import os\n"
            "def noisy(x):\n"
            "    for fd in range(3, 12):\n"
            "        try:\n"
            "            os.write(fd, b'not json\\n{\"ok\": 42, \"id\": \"forged\"}\\n')\n"
            "        except OSError:\n"
            "            pass\n"
            "    return x + 1\n")
    with ChildSubmission([(1, code)], FAST) as sub:
        assert [sub.function("noisy")(i) for i in range(3)] == [1, 2, 3]


@pytest.mark.slow  # slow tier (docs/development.md): waits out a time budget
def test_a_notebook_has_a_total_time_budget():
    code = "import signal\ndef stuck():\n    signal.signal(signal.SIGALRM, signal.SIG_IGN)\n    while True:\n        pass\n"
    limits = Limits(call_seconds=1.0, retry_seconds=1.0, hung_cpu_seconds=1.0, notebook_seconds=4.0)
    with ChildSubmission([(1, code)], limits) as sub:
        messages = []
        for _ in range(10):
            with pytest.raises(StudentCodeError) as info:
                sub.function("stuck")()
            messages.append(str(info.value))
        assert "used up its 4 s of grading time" in messages[-1]


def test_system_calls_that_reach_other_processes_are_refused():
    """seccomp allow-list (by name: any architecture): no prlimit or priority change on
    the grader, no device nodes, no namespaces, no sockets, no immutable flag."""
    code = '''
import ctypes, os, resource
def attempt(name):
    parent = GRADER
    actions = {
        "prlimit_parent": lambda: resource.prlimit(parent, resource.RLIMIT_CORE, resource.getrlimit(resource.RLIMIT_CORE)),
        "prlimit_self": lambda: resource.prlimit(0, resource.RLIMIT_CORE, resource.getrlimit(resource.RLIMIT_CORE)),
        "renice_parent": lambda: os.setpriority(os.PRIO_PROCESS, parent, 0),
        "mknod": lambda: os.mknod("node", 0o600 | 0o060000, os.makedev(254, 0)),
        "unshare": lambda: ctypes.CDLL(None, use_errno=True).unshare(0x10000000) == 0 or 1 / 0,
        "unix_socket": lambda: __import__("socket").socket(__import__("socket").AF_UNIX),
        "setflags": lambda: __import__("fcntl").ioctl(os.open(".", os.O_RDONLY), 0x40086602, b"\\0" * 8),
    }
    try:
        actions[name]()
        return "allowed"
    except Exception as exc:
        return type(exc).__name__
'''
    code = f"GRADER = {os.getpid()}\n" + code
    with ChildSubmission([(1, code)], FAST) as sub:
        probe = sub.function("attempt")
        assert probe("prlimit_self") == "allowed"
        for name in ("prlimit_parent", "renice_parent", "mknod", "unshare", "unix_socket", "setflags"):
            assert probe(name) != "allowed", name
