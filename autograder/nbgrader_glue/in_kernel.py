"""The hidden test cells' entry point inside ``nbgrader autograde``.

Each graded notebook has, per student-facing function, a hidden test cell::

    from autograder.nbgrader_glue.in_kernel import grade
    grade("attention", "attention_row")

It runs the same pytest checks as ``python -m autograder grade``, on the functions in
the kernel's namespace, prints the feedback, and evaluates to the points earned, which
nbgrader takes as the cell's partial credit. Nothing is written to stderr (nbgrader
gives 0 to a test cell with any stderr output). When no check passes it raises, so
nbgrader records 0 for the cell.
"""
import contextlib
import os
import sys
import warnings
from pathlib import Path

from autograder.checks.plugin import run_checks
from autograder.checks.seeds import load_secret
from autograder.child.cells import Shell
from autograder.core.registry import find
from autograder.submission.digest import digest_in_kernel
from autograder.submission.local import LocalSubmission

CHARGED_KEY = "_autograder_charged_functions"


class ChecksFailed(AssertionError):
    """No check of this function passed; the message lists why."""


def student_id_from_cwd(cwd=None):
    """The student id nbgrader grades in: ``autograded/<student_id>/<assignment>`` is the cwd."""
    cwd = Path(cwd or Path.cwd())
    if cwd.parent.parent.name == "autograded":
        return cwd.parent.name
    return "anonymous"


def _namespace():
    try:
        from IPython import get_ipython
        shell = get_ipython()
        if shell is not None:
            return shell.user_ns
    except ImportError:
        pass
    return sys._getframe(2).f_globals


class _FreshCells:
    """The runner behind the fresh run's ``get_ipython()``: the magics the grader's child runs
    (``%time``, ``%%time``, ``%%capture``: their code, in the fresh namespace, as IPython runs
    it in the kernel's) run here in the fresh namespace, the rest do nothing, with the magic
    table the child uses (``child/cells.py``'s ``Shell``). Without it a ``%%time`` solution
    cell would define its function in the kernel, not in the fresh run."""

    def __init__(self, shell, ns):
        self._shell, self.ns = shell, ns

    def run_source(self, source, label, top=False, value=False):
        code = self._shell.transform_cell(source)
        if value:
            try:
                return eval(compile(code, "<cell>", "eval"), self.ns)
            except SyntaxError:
                pass
        exec(compile(code, "<cell>", "exec"), self.ns)
        return None


def _fresh_runner(exercise, shell=None):
    """``run(checkpoint)`` -> a new namespace holding the kernel's earlier cells run again up to
    the hidden-test cell of ``checkpoint`` (``test_<function>``), with none of the checks' calls
    made in it; ``None`` outside IPython. ``judge_excuse`` (``checks/helpers.py``) replays a
    helper's answers there, so a helper that answers otherwise once its caller has run is seen."""
    if shell is None:
        try:
            from IPython import get_ipython
        except ImportError:
            return None
        shell = get_ipython()
    history = getattr(getattr(shell, "history_manager", None), "input_hist_raw", None)
    if shell is None or history is None:
        return None
    from autograder.submission.digest import cell_text, course_cell_texts
    cells = list(history)[1:-1]
    course = course_cell_texts(exercise)

    def run(checkpoint):
        function = checkpoint[len("test_"):]
        ns = {"__name__": "__main__"}
        magics = Shell(_FreshCells(shell, ns))
        ns["get_ipython"] = lambda: magics
        with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            for text in cells:
                if cell_text(text) in course:
                    if f'"{function}"' in text or f"'{function}'" in text:
                        break  # the helper's own hidden-test cell: its checks ran here
                    continue
                try:
                    exec(compile(shell.transform_cell(text), "<cell>", "exec"), ns)
                except BaseException:  # noqa: BLE001 (a failing cell fails here as it did in the kernel)
                    continue
        pyplot = sys.modules.get("matplotlib.pyplot")
        if pyplot is not None:  # the figures of the run again are not this cell's output
            pyplot.close("all")
        return ns
    return run


def grade(exercise_name, function, namespace=None, student_id=None, code_digest=None, fresh_namespace=None):
    """Run the hidden checks of ``function`` and return the points earned (``float``).

    Args:
        exercise_name: e.g. "attention".
        function: the student-facing function, e.g. "attention_row".
        namespace: where the student's functions are (default: the notebook's globals).
        fresh_namespace: with ``namespace``, ``fresh_namespace(checkpoint)`` runs the same code again
            in a new namespace (``LocalSubmission.fresh``); without ``namespace`` the kernel's history
            is run again.
        student_id: for the per-student seeds (default: from nbgrader's working directory).
        code_digest: digest of the notebook's code before this cell, for the seeds (default:
            from the kernel's history, ``digest.digest_in_kernel``, the same digest
            ``python -m autograder grade`` computes from the notebook file).
    Raises:
        ChecksFailed: when no check passes (score 0).
    """
    ns = namespace if namespace is not None else _namespace()
    sid = student_id or student_id_from_cwd()
    exercise = find(exercise_name)
    if code_digest is None and namespace is None:
        code_digest = digest_in_kernel(exercise)
    # Functions charged in earlier hidden-test cells of this kernel: only those may excuse a
    # caller ("one bug, charged once", plugin.py). Kept in the kernel's namespace because the
    # hidden cells re-import the grader each time.
    charged = ns.setdefault(CHARGED_KEY, set())
    fresh = _fresh_runner(exercise) if namespace is None else fresh_namespace
    with warnings.catch_warnings(), contextlib.redirect_stderr(sys.stdout):
        warnings.simplefilter("ignore")
        results = run_checks(exercise, LocalSubmission(ns, fresh), sid, load_secret(create=True), select=function,
                             charged=set(charged), code_digests={function: code_digest} if code_digest else None)
    charged.update(r.function for r in results if r.score < r.max_score)
    earned = sum(r.score for r in results)
    available = sum(r.max_score for r in results)
    lines = [f"{'PASS' if r.score == r.max_score else 'FAIL'}  {r.score:g}/{r.max_score:g}  {r.name}"
             + (f"\n      {r.output}" if r.output else "") for r in results]
    report = "\n".join(lines) + f"\n{function}: {earned:g} of {available:g} points"
    if earned == 0:
        raise ChecksFailed("\n" + report)
    print(report)
    return float(earned)
