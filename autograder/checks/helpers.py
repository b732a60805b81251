"""When a check fails, whether the student's own helpers explain it: the calls a check makes are recorded
(``RecordingSubmission``), the reference is run again with the student's helpers in place of its own
(``_reference_with``), and a failure the helpers explain is charged to the helper, once
(``judge_excuse``, see ``checks/plugin.py``). ``reference_submission`` is the reference solution as
a submission (for blaming a check that fails on it too)."""
from __future__ import annotations

import importlib
import types

from autograder.checks.answered import HelperAnswers, own_code_refusal
from autograder.checks.sameness import copied, same_value
from autograder.submission.repeated import arguments, check_times, check_vary


def _plain(value) -> bool:
    """Whether ``value`` is plain data a fresh run can be given too: no handle to an object that
    lives in the submission's own process (a generator or a model the check built there)."""
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(_plain(v) for v in value.values())
    return type(value).__name__ not in ("RemoteObject", "LocalObject")


class _Call:
    __slots__ = ("name", "args", "kwargs", "result", "failed", "error")

    def __init__(self, name, args, kwargs, *result, error=None):
        """``result``: the value, for a call that returned (else it is still running, or failed
        with ``error``)."""
        self.name, self.args, self.kwargs = name, args, kwargs
        self.result, self.failed = (result[0], False) if result else (None, True)
        self.error = error  # the exception a failed call raised


class RecordingSubmission:
    """The submission, with every call of its functions and their results logged in ``calls``."""

    def __init__(self, submission, calls):
        self._submission, self._calls = submission, calls

    def function(self, name):
        inner = self._submission.function(name)

        def call(*args, **kwargs):
            record = _Call(name, *copied((args, kwargs)))
            self._calls.append(record)
            try:
                record.result = inner(*args, **kwargs)
            except BaseException as exc:
                record.error = exc
                raise
            record.failed = False
            return record.result
        call.__name__ = name
        return call

    def repeat(self, name, times, args=(), kwargs=None, accept=None, vary=None):
        """The submission's ``repeat`` (``submission/repeated.py``), each repetition logged as a
        call of its own, as separate calls would be: one ``_Call`` per value returned and, when a
        repetition failed, one failed ``_Call`` with its error. Without ``vary`` the logged calls
        share one copy of the arguments (the excuse's rules copy a call's arguments before they
        use them)."""
        shared = copied((tuple(args), dict(kwargs or {})))
        plan = check_vary(vary, check_times(times), tuple(args))  # a check's mistake: ValueError here

        def logged(k):
            return copied((arguments(args, plan, k), dict(kwargs or {}))) if plan else shared
        try:
            results = self._submission.repeat(name, times, args, kwargs, accept=accept, vary=vary)
        except BaseException as exc:
            done = list(getattr(exc, "results_before", ()))
            for k, value in enumerate(done):
                self._calls.append(_Call(name, *logged(k), value))
            self._calls.append(_Call(name, *logged(len(done)), error=exc))
            raise
        for k, value in enumerate(results):
            self._calls.append(_Call(name, *logged(k), value))
        return results

    def __getattr__(self, name):
        return getattr(self._submission, name)


def _reference_with(ref_fn, helpers, through=()):
    """``ref_fn`` with the global names in ``helpers`` bound to other callables.

    ``through`` names other reference functions ``ref_fn`` reaches (``train_step`` calls
    ``model_forward``, which calls ``positional_encoding``): they keep the reference's code
    but look their own globals up in the same namespace, so a helper bound here is the one
    they call too, however deep the call.
    """
    namespace = dict(ref_fn.__globals__)
    for name in through:
        fn = namespace.get(name)
        if isinstance(fn, types.FunctionType) and name not in helpers:
            namespace[name] = types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__,
                                                 fn.__closure__)
    namespace.update(helpers)
    return types.FunctionType(ref_fn.__code__, namespace, ref_fn.__name__, ref_fn.__defaults__,
                              ref_fn.__closure__)


class Excuse:
    """What ``judge_excuse`` found.

    Attributes:
        blamed: tuple of helper names that explain the caller's wrong answers (``()``: no excuse).
        refused: ``None``, or why helpers that would explain the answers excuse nothing
            (their answers depend on what ran before; feedback text).
    """

    __slots__ = ("blamed", "refused", "raised")

    def __init__(self, blamed=(), refused=None, raised=False):
        self.blamed, self.refused, self.raised = tuple(blamed), refused, raised

    def text(self, function: str) -> str:
        """The feedback of a check of ``function`` this excuse lets pass (``blamed`` is not empty)."""
        names = " and ".join(self.blamed)
        if self.raised:
            return (f"passed on account of {names}: given the right answers of {names}, your {function} "
                    f"returns the right value, so the mistake is in {names}, which raised, and is charged "
                    f"there only")
        return (f"passed on account of {names}: your {function} returns what the reference {function} "
                f"returns when it calls your {names}, so the mistake is in {names} and is charged there only")


def judge_excuse(function, calls, helpers, reference, submission, through=(), fresh=None) -> Excuse:
    """Whether the student's helpers, and they alone, explain a wrong answer of ``function``.

    Args:
        function: the student-facing function whose check failed.
        calls: the check's ``_Call``s of the student's functions (all of them; those of
            ``function`` are used).
        helpers: the names ``function``'s reference calls that are student functions.
        reference: the exercise's reference module (``solutions.<name>``).
        submission: the submission; the helpers are called through it, so the reference
            runs in the grader and only the student's helpers run in the student's process.
        through: other student functions the reference reaches that stay the reference's
            (see ``_reference_with``); the student's helpers are the ones they call.
        fresh: ``fresh(helper)`` -> a submission of the same notebook in a fresh state (run to
            the helper's hidden-test cell, none of the caller's code or the checks' calls run),
            or ``None`` when there is none; ``None``: the helpers' answers are replayed in
            ``submission`` itself.
    Returns:
        an ``Excuse``. ``blamed`` names the helpers whose wrong values change the reference's
        answer, when (1) the reference calling all the student's helpers returns, on every
        recorded call, what the student's function returned, and differs from the plain
        reference at least once; (2) the helpers' answers on the exact inputs that reference
        passed them, replayed in a fresh state, are the answers they gave during that
        computation (a helper whose answers depend on what ran before, such as a flag set
        when the caller runs, excuses nothing: ``refused`` says so); and (3) on at least one
        of those inputs a blamed helper's answer differs from the reference helper's (the
        helper really is wrong there); and (4) the student's ``function``, called again with its
        helpers answering as the reference helpers do on the reference's inputs, returns the
        plain reference's value on every call (``answered.own_code_refusal``: a caller that
        does nothing, however its helpers answer, excuses nothing; inputs that hold handles to
        objects of the submission's process, such as sampling's generators, are matched by
        handle). A call that raised is explained only by ``raised_in_helpers``.
    """
    mine = [c for c in calls if c.name == function]
    ref_fn = getattr(reference, function, None)
    if mine and ref_fn is not None and any(c.failed for c in mine):
        return raised_in_helpers(function, mine, helpers, reference, submission, through)
    if not mine or ref_fn is None:
        return Excuse()
    heard = []  # (helper, args, kwargs, answer) of the helpers' calls from the hybrid reference

    def recorded(name):
        inner = submission.function(name)

        def call(*args, **kwargs):
            record = [name, *copied((args, kwargs)), None]
            answer = inner(*args, **kwargs)
            record[3] = copied(answer)
            heard.append(record)
            return answer
        call.__name__ = name
        return call
    student = {h: recorded(h) for h in helpers}

    def run(fn, c):  # on fresh copies: a reference may write into its arguments
        args, kwargs = copied((c.args, c.kwargs))
        return fn(*args, **kwargs)
    hybrid = _reference_with(ref_fn, student, through)
    try:
        if not all(same_value(c.result, run(hybrid, c)) for c in mine):
            return Excuse()
        plain_fn, table = _plain_reference(reference, function, helpers, through)
        plain = [run(plain_fn, c) for c in mine]
        if all(same_value(c.result, want) for c, want in zip(mine, plain, strict=False)):
            return Excuse()
        answers = list(heard)
        student = {h: submission.function(h) for h in helpers}  # no more recording
        if len(helpers) == 1:
            blamed = list(helpers)
        else:
            blamed = []
            for h in helpers:
                one = _reference_with(ref_fn, {h: student[h]}, tuple(through) + tuple(helpers))
                if any(not same_value(run(one, c), want) for c, want in zip(mine, plain, strict=False)):
                    blamed.append(h)
            blamed = blamed or list(helpers)
    except Exception:  # the reference choked on a helper's value, or a helper failed
        return Excuse()
    verdict = _replayed(answers, blamed, reference, submission, fresh)
    if verdict.blamed:
        refusal = own_code_refusal(function, mine, plain, table, submission)
        if refusal is not None:
            return Excuse(refused=refusal)
    return verdict


def _plain_reference(reference, function, helpers, through=()):
    """``(plain_fn, table)``: the reference ``function`` calling the reference ``helpers``, and the
    ``HelperAnswers`` those helpers' answers are recorded in as it runs (for rule 5)."""
    table = HelperAnswers()

    def answering(name):
        ref_helper = getattr(reference, name)

        def call(*args, **kwargs):
            record = copied((args, kwargs))
            answer = ref_helper(*args, **kwargs)
            table.add(name, *record, copied(answer))
            return answer
        call.__name__ = name
        return call
    plain_fn = _reference_with(getattr(reference, function),
                               {h: answering(h) for h in helpers if hasattr(reference, h)}, through)
    return plain_fn, table


def raised_in_helpers(function, mine, helpers, reference, submission, through=()) -> Excuse:
    """``judge_excuse`` when calls of ``function`` raised: excused when every call that raised
    did so inside one of ``helpers`` (``StudentCodeError.helper``: a helper not implemented, or
    raising) and the student's ``function``, called again with its helpers answering as the
    reference's do, returns the plain reference's value on every call ``mine`` (rule 4,
    ``answered.own_code_refusal``). ``blamed``: those raising helpers; ``raised`` is set. A call
    that raised inside ``function`` itself (a stub), hung or crashed, or raised inside a
    function that is not a charged helper, excuses nothing. Args as for ``judge_excuse``."""
    inside = {getattr(c.error, "helper", None) for c in mine if c.failed}
    if not inside or not inside <= set(helpers):
        return Excuse()
    plain_fn, table = _plain_reference(reference, function, helpers, through)
    try:
        plain = []
        for c in mine:
            args, kwargs = copied((c.args, c.kwargs))
            plain.append(plain_fn(*args, **kwargs))
    except Exception:  # the reference itself fails on these inputs: nothing to compare with
        return Excuse()
    refusal = own_code_refusal(function, mine, plain, table, submission)
    if refusal is not None:
        return Excuse(refused=refusal)
    return Excuse(sorted(inside), raised=True)


def _replayed(answers, blamed, reference, submission, fresh):
    """Rules (2) and (3) of ``judge_excuse`` on the recorded helper ``answers``."""
    wrong = False
    try:
        for name, args, kwargs, answer in answers:
            ref_helper = getattr(reference, name, None)
            if name in blamed and ref_helper is not None:
                a, k = copied((args, kwargs))
                if not same_value(answer, ref_helper(*a, **k), ordered=True):
                    wrong = True
    except Exception:  # the reference helper choked on an input: the helper is not proven wrong
        return Excuse()
    if not wrong:
        return Excuse()
    by_helper = {}
    for record in answers:
        by_helper.setdefault(record[0], []).append(record)
    changed = []
    for name, records in by_helper.items():
        # A call given a handle to an object of the submission's own process (sampling's
        # generators and models) cannot be replayed elsewhere: only plain-data calls are.
        records = [r for r in records if _plain((r[1], r[2]))]
        if not records:
            continue
        other = fresh(name) if fresh is not None else None
        where = other if other is not None else submission
        try:
            fn = where.function(name)
            for _, args, kwargs, answer in records:
                a, k = copied((args, kwargs))
                if not same_value(answer, fn(*a, **k), ordered=True):
                    changed.append(name)
                    break
        except Exception:  # it raised, hung or crashed where it answered before
            changed.append(name)
    if changed:
        names = " and ".join(sorted(changed))
        return Excuse(refused=f"not excused by {names}: {names} answered the inputs this check's reference "
                              f"passed it differently in a fresh run of your notebook, so its answers "
                              f"depend on what ran before it")
    return Excuse(blamed)


class FreshRuns:
    """``runs(helper)``: the notebook of ``submission`` run afresh to ``helper``'s hidden-test cell,
    with no check's call and none of a caller's code run in it (``submission.fresh``; one per
    helper per notebook, started only when asked), or ``None`` when the submission cannot be
    run afresh (``judge_excuse`` then replays in the submission). ``close()`` ends them."""

    def __init__(self, submission):
        self.submission, self.runs = submission, {}

    def __call__(self, helper):
        from autograder.sandbox.limits import StudentCodeError
        if helper not in self.runs:
            make = getattr(self.submission, "fresh", None)
            other = None
            if make is not None:
                try:
                    other = make(f"test_{helper}")
                except StudentCodeError:
                    pass  # it cannot even start again: its calls fail, and excuse nothing
            self.runs[helper] = other
        return self.runs[helper]

    def close(self):
        for other in self.runs.values():
            if other is not None:
                try:
                    other.close()
                except Exception:
                    pass
        self.runs = {}


def reference_submission(exercise):
    from autograder.submission.local import LocalSubmission
    module = importlib.import_module(f"solutions.{exercise.name}")
    return LocalSubmission(dict(vars(module)))
