"""Per-call and per-cell CPU-time limits (``Limits.call_cpu_seconds``, ``cell_cpu_seconds``):
code that computes without end is stopped by its CPU time, code that waits by the wall-clock
backstop, and the feedback says which. The values of the limits are measured
(``limits.CALL_CPU_MEASURED``): the default must leave a wide margin over every function's
slowest honest call, and never exceed the wall-clock limit it sits under."""
import pytest

from autograder.sandbox.limits import CALL_CPU_MEASURED, Limits, StudentCodeError
from autograder.submission.remote import ChildSubmission

CODE = """
import time
def spin():
    while True:
        pass
def nap():
    time.sleep(60)
def honest(n):
    total = 0
    for i in range(n):
        total += i * i
    return total
"""


@pytest.mark.parametrize("confine", [False, True])
def test_a_busy_loop_is_stopped_by_cpu_time_and_a_sleep_by_the_wall_clock(confine):
    limits = Limits(call_seconds=30.0, call_cpu_seconds=0.5, retry_seconds=30.0, confine=confine)
    with ChildSubmission([(1, CODE)], limits) as sub:
        with pytest.raises(StudentCodeError) as spun:
            sub.function("spin")()
        assert spun.value.kind == "timeout" and spun.value.detail == "did not return within 0.5 s of CPU time"
        # 10**5 squares: ~10 ms of CPU, far under the limit; the child is still usable.
        assert sub.function("honest")(10 ** 5) == sum(i * i for i in range(10 ** 5))
    with ChildSubmission([(1, CODE)], Limits(call_seconds=1.0, call_cpu_seconds=0.5, confine=confine)) as sub:
        with pytest.raises(StudentCodeError) as napped:
            sub.function("nap")()
        assert napped.value.kind == "timeout" and napped.value.detail == "did not return within 1 s"


def test_a_busy_cell_is_stopped_by_cpu_time():
    limits = Limits(cell_seconds=30.0, cell_cpu_seconds=0.5, confine=False)
    with ChildSubmission([(1, "x = 1\n"), (2, "while True:\n    pass\n"), (3, "y = 2\n")], limits) as sub:
        errors = sub.ensure_started()["errors"]
    assert [(e["cell"], e["type"]) for e in errors] == [("cell 2", "Timeout")]
    assert errors[0]["message"] == "cell did not finish within 0.5 s of CPU time"


def test_the_default_limits_leave_a_wide_margin_over_the_measurements():
    limits = Limits()
    slowest_call = max(max(v for v in pair if v is not None)
                       for table in CALL_CPU_MEASURED.values() for name, pair in table.items() if name != "(cells)")
    slowest_cells = max(max(v for v in pair if v is not None)
                        for table in CALL_CPU_MEASURED.values() for name, pair in table.items() if name == "(cells)")
    assert limits.call_cpu_seconds * 1000 >= 20 * slowest_call
    # a function that already hung once is cut sooner, still far above any honest call
    assert limits.hung_cpu_seconds * 1000 >= 10 * slowest_call
    assert limits.hung_cpu_seconds < limits.call_cpu_seconds
    assert limits.cell_cpu_seconds * 1000 >= 5 * slowest_cells
    assert limits.call_cpu_seconds <= limits.call_seconds and limits.cell_cpu_seconds <= limits.cell_seconds
    assert set(CALL_CPU_MEASURED) == {"tokens", "embeddings", "attention", "next_token", "kv_cache",
                                      "learned_attention", "sampling"}


CALLER = CODE + """
def caller():
    return spin()
def slow_honest():
    return honest(3 * 10 ** 6)   # several tenths of a second of CPU, and no hung function on the stack
"""


@pytest.mark.parametrize("confine", [False, True])
@pytest.mark.slow  # slow tier (docs/development.md): waits out hangs
def test_a_function_that_hung_once_is_stopped_sooner_and_only_it(confine):
    limits = Limits(call_seconds=30.0, call_cpu_seconds=2.0, retry_seconds=30.0, hung_cpu_seconds=0.1,
                    confine=confine)
    with ChildSubmission([(1, CALLER)], limits) as sub:
        with pytest.raises(StudentCodeError) as first:
            sub.function("spin")()
        assert first.value.detail == "did not return within 2 s of CPU time"
        # A caller that runs into the same loop: stopped at the first check, 0.1 s of CPU.
        with pytest.raises(StudentCodeError) as again:
            sub.function("caller")()
        assert again.value.detail == ("did not return within 0.1 s of CPU time (stopped inside spin, which had "
                                      "already run out of time once)")
        # Honest work longer than 0.1 s that never enters spin runs to its end.
        assert sub.function("slow_honest")() == sum(i * i for i in range(3 * 10 ** 6))


def test_later_cells_that_run_into_a_hung_function_are_stopped_sooner():
    limits = Limits(cell_seconds=30.0, cell_cpu_seconds=2.0, hung_cpu_seconds=0.1, confine=False)
    cells = [(1, CALLER), (2, "spin()\n"), (3, "x = caller()\n"), (4, "y = slow_honest()\n")]
    with ChildSubmission(cells, limits) as sub:
        errors = sub.ensure_started()["errors"]
        assert sub.function("honest")(3) == 5   # the notebook ran on: y was computed
    assert [(e["cell"], e["message"]) for e in errors] == [
        ("cell 2", "cell did not finish within 2 s of CPU time (stopped inside spin)"),
        ("cell 3", "cell did not finish within 0.1 s of CPU time (spin, which it ran into, had already run out "
                   "of time once) (stopped inside caller)")]
