"""One call made n times in one exchange (``submission.repeat``: ``submission/repeated.py``,
``child/repeat.py``): each repetition sees what a separate call would see, and the first one
that fails ends it as that call would have failed."""
import numpy as np
import pytest

from autograder.checks.helpers import RecordingSubmission
from autograder.sandbox.limits import Limits, StudentCodeError
from autograder.submission.local import LocalSubmission
from autograder.submission.remote import ChildSubmission
from autograder.submission.repeated import Accept

LIMITS = Limits(call_seconds=5.0, retry_seconds=1.0, cell_seconds=5.0, call_cpu_seconds=0.5)

CODE = '''
import numpy as np

calls = 0

def doubled_sum(a):
    a *= 2                      # writes into its argument
    return float(a.sum())

def appended(items):
    items.append(len(items))    # writes into its argument
    return list(items)

def counted():
    global calls
    calls += 1
    return calls

def raises_at_fourth():
    global calls
    calls += 1
    if calls == 4:
        raise ValueError("the fourth call")
    return calls

def hangs_at_third():
    global calls
    calls += 1
    if calls == 3:
        while True:
            pass
    return calls

def stubborn_at_second():
    global calls
    calls += 1
    while calls == 2:           # swallows the grader's alarm: only the grader's deadline ends it
        try:
            while True:
                pass
        except BaseException:
            pass
    return calls

def draw(rng):
    return int(rng.integers(0, 1000))

def id_or_junk(rng):
    global calls
    calls += 1
    return "junk" if calls == 3 else calls
'''


def _child():
    sub = ChildSubmission([(1, CODE)], LIMITS)
    sub.ensure_started()
    return sub


def _local():
    ns = {"__name__": "__main__"}
    exec(compile(CODE, "<cell 1>", "exec"), ns)
    return LocalSubmission(ns)


@pytest.fixture(params=["child", "local"])
def make(request):
    """A function making a fresh submission of ``CODE``, in a child process or in this one."""
    made = []

    def new():
        sub = _child() if request.param == "child" else _local()
        made.append(sub)
        return sub
    yield new
    for sub in made:
        sub.close()


def test_a_function_that_writes_into_its_argument_sees_a_fresh_copy_each_time(make):
    sub = make()
    a = np.array([1.0, 2.0, 3.0])
    # Each call doubles a fresh copy of [1, 2, 3]: 2 + 4 + 6 = 12 every time.
    assert sub.repeat("doubled_sum", 5, (a,)) == [12.0] * 5
    assert sub.repeat("appended", 3, ([7],)) == [[7, 1]] * 3
    separate = [sub.function("appended")([7]) for _ in range(3)]
    assert separate == [[7, 1]] * 3
    assert a.tolist() == [1.0, 2.0, 3.0]            # the caller's array is never touched


def test_the_generator_state_advances_as_with_separate_calls(make):
    sub = make()
    rng = sub.probe("generator", 2026)
    got = sub.repeat("draw", 40, (rng,))
    mine = np.random.default_rng(2026)              # numpy's own generator, called 40 times here
    assert got == [int(mine.integers(0, 1000)) for _ in range(40)]
    # and it goes on from there: the next separate call draws the 41st number
    assert sub.function("draw")(rng) == int(mine.integers(0, 1000))


def test_a_raise_in_repetition_k_reports_that_error_and_the_values_before_it(make):
    sub = make()
    with pytest.raises(StudentCodeError) as caught:
        sub.repeat("raises_at_fourth", 10)
    exc = caught.value
    assert exc.kind == "raised" and exc.detail == "ValueError: the fourth call"
    assert exc.results_before == [1, 2, 3]
    assert sub.function("counted")() == 5           # no call ran after the fourth
    # the same message as the fourth of separate calls gives, in a fresh notebook
    other = make()
    fn = other.function("raises_at_fourth")
    assert [fn() for _ in range(3)] == [1, 2, 3]
    with pytest.raises(StudentCodeError) as separate:
        fn()
    assert str(separate.value) == str(exc)


def test_accept_ends_the_repetition_at_the_first_value_outside_it(make):
    sub = make()
    rng = sub.probe("generator", 1)
    assert sub.repeat("id_or_junk", 6, (rng,), accept={1, 2, 3, 4, 5, 6}) == [1, 2, "junk"]
    assert sub.function("counted")() == 4           # three calls, then this one
    assert sub.repeat("counted", 3, accept={5, 6}) == [5, 6, 7]
    assert sub.repeat("counted", 0) == []
    with pytest.raises(ValueError):
        sub.repeat("counted", -1)


def test_a_missing_function_is_missing(make):
    with pytest.raises(StudentCodeError) as caught:
        make().repeat("not_there", 3)
    assert caught.value.kind == "missing"


def test_a_repetition_that_hangs_is_stopped_by_the_per_call_limit_and_named_a_hang():
    with _child() as sub, _child() as other:
        with pytest.raises(StudentCodeError) as caught:
            sub.repeat("hangs_at_third", 400)
        exc = caught.value
        assert exc.kind == "timeout" and exc.results_before == [1, 2]
        assert "did not return within 0.5 s of CPU time" in str(exc)   # LIMITS.call_cpu_seconds
        assert "hangs_at_third" in sub.timed_out
        # separate calls: the third one times out with the same message and bookkeeping
        fn = other.function("hangs_at_third")
        assert [fn(), fn()] == [1, 2]
        with pytest.raises(StudentCodeError) as separate:
            fn()
        assert str(separate.value) == str(exc) and sub.timed_out == other.timed_out
        # the child still answers, the notebook's budget is not spent, and the function that
        # hung is under the short limit from now on, as after a separate call
        assert sub.function("counted")() == 4
        assert sub.seconds_left() > 0


@pytest.mark.slow
def test_a_repetition_that_swallows_the_alarm_gets_the_deadline_of_one_call():
    """The child's alarm cannot stop it; the grader's deadline is one call's (call_seconds + 2 s),
    not 400 calls' or the notebook's budget: a timeout, as a separate call would be."""
    limits = Limits(call_seconds=1.0, retry_seconds=1.0, cell_seconds=5.0, call_cpu_seconds=0.5)
    with ChildSubmission([(1, CODE)], limits) as sub:
        with pytest.raises(StudentCodeError) as caught:
            sub.repeat("stubborn_at_second", 400)
        assert caught.value.kind == "timeout" and caught.value.results_before == [1]
        assert "did not return within 1 s" in str(caught.value)
        assert sub.seconds_left() > limits.notebook_seconds - 30


def test_recording_logs_each_repetition_as_a_call(make):
    sub = make()
    calls = []
    recording = RecordingSubmission(sub, calls)
    a = np.array([1.0, 2.0])
    assert recording.repeat("doubled_sum", 4, (a,)) == [6.0] * 4
    assert [(c.name, c.failed, c.result) for c in calls] == [("doubled_sum", False, 6.0)] * 4
    assert all(c.args[0].tolist() == [1.0, 2.0] for c in calls)
    calls.clear()
    with pytest.raises(StudentCodeError):
        recording.repeat("raises_at_fourth", 10)
    assert [(c.failed, c.result) for c in calls] == [(False, 1), (False, 2), (False, 3), (True, None)]
    assert calls[-1].error.kind == "raised"


VARY = '''
def run(prefix, n, rng):
    prefix.append(-1)                # writes into its argument
    return prefix[:-1] + [int(rng.integers(0, 10)) for _ in range(n)]
'''


@pytest.mark.parametrize("kind", ["child", "local"])
def test_an_argument_can_vary_between_repetitions(kind):
    if kind == "child":
        sub = ChildSubmission([(1, VARY)], LIMITS)
    else:
        ns = {"__name__": "__main__"}
        exec(compile(VARY, "<cell 1>", "exec"), ns)
        sub = LocalSubmission(ns)
    seeds = (5, 6, 7, 8)
    # each run draws from its own generator: numpy's, seeded here the same way
    want = [[4, 4] + [int(g.integers(0, 10)) for _ in range(2)] for g in map(np.random.default_rng, seeds)]
    try:
        rngs = sub.probe_each("generator", [(seed,) for seed in seeds])
        calls = []
        got = RecordingSubmission(sub, calls).repeat("run", 4, ([4, 4], 2, None), vary={2: rngs})
        assert got == want
        assert [c.args[2] is rng for c, rng in zip(calls, rngs, strict=True)] == [True] * 4
        assert all(c.args[0] == [4, 4] for c in calls)
        # an Accept of lists: the runs go on while item 2 is the first run's; they end after the
        # first run whose item 2 differs, which is the list's last
        allowed = {want[0][2]}
        expected = []
        for run in want:
            expected.append(run)
            if run[2] not in allowed:
                break
        fresh = sub.probe_each("generator", [(seed,) for seed in seeds])
        got = sub.repeat("run", 4, ([4, 4], 2, None), vary={2: fresh}, accept=Accept(allowed, length=4, at=2))
        assert got == expected
        with pytest.raises(ValueError):
            sub.repeat("run", 4, ([4, 4], 2, None), vary={2: rngs[:3]})
        with pytest.raises(ValueError):
            sub.repeat("run", 4, ([4, 4], 2, None), vary={3: rngs})
    finally:
        sub.close()


@pytest.mark.parametrize("kind", ["child", "local"])
def test_one_repetition_with_a_varied_argument_gets_that_argument(kind):
    if kind == "child":
        sub = ChildSubmission([(1, VARY)], LIMITS)
    else:
        ns = {"__name__": "__main__"}
        exec(compile(VARY, "<cell 1>", "exec"), ns)
        sub = LocalSubmission(ns)
    try:
        rng = sub.probe("generator", 9)
        mine = np.random.default_rng(9)
        assert sub.repeat("run", 1, ([4, 4], 2, None), vary={2: [rng]}) == \
            [[4, 4] + [int(mine.integers(0, 10)) for _ in range(2)]]
    finally:
        sub.close()


def test_thousands_of_quick_calls_come_back_in_a_few_lines():
    """The child answers the values of a repetition in batches (``ok_many``), in order, each
    as a separate call would have returned it."""
    sub = ChildSubmission([(1, CODE)], LIMITS)
    lines = []
    try:
        rng = sub.probe("generator", 2026)
        exchange = sub._exchange

        def counting(message, seconds, more=None):
            if more is None:
                return exchange(message, seconds, more)
            inner = more.__call__

            class Counted:
                def __getattr__(self, name):
                    return getattr(more, name)

                def __call__(self, answer):
                    lines.append(len(answer.get("ok_many", [answer.get("ok")])))
                    return inner(answer)
            return exchange(message, seconds, Counted())
        sub._exchange = counting
        got = sub.repeat("draw", 3000, (rng,))
        mine = np.random.default_rng(2026)
        assert got == [int(mine.integers(0, 1000)) for _ in range(3000)]
        assert sum(lines) == 3000 and len(lines) < 100, lines
    finally:
        sub.close()
