"""Do the visible checks in the released notebooks catch the course's named mistakes, say
"not implemented" for untouched stubs, and pass the reference?

Each exercise's release runs in ONE real kernel (nbclient): its helper and module cells
once, then, for each hand-in (reference, stubs, one realistic mistake), its solution cells
filled that way followed by every visible check cell. Demonstrations and plots are skipped.
"""
import importlib

import jupytext
import nbformat
import pytest

from autograder.core.registry import EXERCISES
from autograder.course import visible
from autograder.course.visible_cell import same_as_expected
from autograder.demo.fill import reference_code
from autograder.demo.mistakes import all_mistakes, mistakes_module


def named(exercise):
    """The mistakes the course text names, as realistic code (``NAMED`` of the exercise's
    hand_ins.py): ``{label: phrase a visible check must print}``."""
    return mistakes_module(exercise).NAMED


def test_every_course_mistake_is_listed():
    known = {m.id for m in all_mistakes()}
    for name, exercise in EXERCISES.items():
        assert named(exercise), f"exercises/{name}/hand_ins.py names no mistake (NAMED)"
        assert {f"{name}-{label}" for label in named(exercise)} <= known


@pytest.mark.parametrize("name", list(EXERCISES))
def test_each_visible_case_passes_with_the_reference(name):
    """Drift: the expected value of every case is what the reference gives on its inputs."""
    exercise = EXERCISES[name]
    ref = importlib.import_module(f"solutions.{name}")
    for case in visible.visible_cases(exercise):
        run, prelude = visible._call_source(case, 1)
        namespace = dict(vars(ref))
        exec(prelude + f"_run = {run}", namespace)
        if case.compare == "raises":
            with pytest.raises(Exception) as info:
                namespace["_run"]()
            assert type(info.value).__name__ == case.expected
            continue
        got = namespace["_run"]()
        got = got[case.part] if case.part is not None else got
        assert same_as_expected(got, case.expected, case.compare, case.atol), case.name


def _outputs(cell):
    return "".join(o.get("text", "") + o.get("ename", "") + o.get("evalue", "") for o in cell.outputs)


class Kernel:
    """The release of one exercise, run cell by cell in one kernel."""

    def __init__(self, exercise, tmp_path):
        from nbclient import NotebookClient
        self.exercise = exercise
        self.nb = nbformat.read(exercise.release_notebook, as_version=4)
        text = jupytext.read(exercise.text_form, fmt="py:percent")
        module_ids = {f"{exercise.name}-{i:02d}" for i, c in enumerate(text.cells) if c.metadata.get("module")}
        self.setup = [c for c in self.nb.cells if c.get("id") in module_ids
                      or c.metadata.get("nbgrader", {}).get("grade_id") == "visible_checker"]
        self.solutions = [c for c in self.nb.cells if c.metadata.get("nbgrader", {}).get("solution")]
        self.checks = [c for c in self.nb.cells
                       if c.metadata.get("nbgrader", {}).get("grade_id", "").startswith("visible_")
                       and c.metadata["nbgrader"]["grade_id"] not in ("visible_checker", "visible_summary")]
        self.client = NotebookClient(self.nb, timeout=60, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}}, allow_errors=True)

    def run(self, cell):
        cell.outputs = []
        self.client.execute_cell(cell, self.nb.cells.index(cell))
        return _outputs(cell)

    def hand_in(self, code):
        """Fill every solution cell from ``code`` ({function: source}) and run the visible checks;
        returns ``{grade_id: printed text}``."""
        for cell in self.solutions:
            cell.source = code[cell.metadata["nbgrader"]["grade_id"]]
            self.run(cell)
        return {c.metadata["nbgrader"]["grade_id"]: self.run(c) for c in self.checks}


@pytest.mark.parametrize("name", [n if n == "embeddings" else pytest.param(n, marks=pytest.mark.slow) for n in EXERCISES])
def test_visible_checks_in_the_release(name, tmp_path):
    exercise = EXERCISES[name]
    kernel = Kernel(exercise, tmp_path)
    reference = reference_code(exercise)
    stubs = {c.metadata["nbgrader"]["grade_id"]: c.source for c in kernel.solutions}
    mistakes = {m.label: m for m in all_mistakes() if m.exercise == name}
    cases = visible.visible_cases(exercise)
    with kernel.client.setup_kernel():
        for cell in kernel.setup:
            assert "Error" not in kernel.run(cell)

        printed = kernel.hand_in(reference)
        assert set(printed) == {f"visible_{f}" for f in exercise.functions}
        text = "\n".join(printed.values())
        assert "FAIL" not in text and text.count("PASS") == len(cases), text

        printed = kernel.hand_in(stubs)
        for grade_id, text in printed.items():
            function = grade_id.removeprefix("visible_")
            n = sum(c.function == function for c in cases)
            # printed: one FAIL line per check; the cell does not raise (the summary cell does)
            assert text.count("FAIL  ") == n and text.count("      not implemented yet") == n, text
            assert "VisibleCheckFailed" not in text, text

        for label, phrase in named(exercise).items():
            mistake = mistakes[label]
            printed = kernel.hand_in(dict(reference, **{mistake.function: mistake.code}))
            failing = [t for t in printed.values() if "FAIL" in t and phrase in t]
            assert failing, f"{mistake.id}: no visible check named it:\n" + "\n".join(printed.values())
            assert "That is the value you get when you " in failing[0]


def test_cases_are_computed_against_the_reference_text_the_build_just_made():
    """The build passes the freshly generated reference; a stale solutions/ module must not win."""
    import solutions
    import solutions.attention  # noqa: F401  (imported first, as in a long-lived process)
    before = solutions.attention
    exercise = EXERCISES["attention"]
    text = exercise.solution_module.read_text(encoding="utf-8")
    # a reference whose softmax ignores its axis: the softmax grid case's wrong-axis value changes
    broken = text.replace("def softmax(z, axis=-1):", "def softmax(z, axis=-1):\n    axis = -1")
    grid = 'softmax: each row of the scaled "river bank loan" scores sums to 1'
    cases = {c.name: c for c in visible.visible_cases(exercise, broken)}
    assert "take the softmax over the wrong axis (each column sums to 1 instead of each row)" \
        not in visible.shown_mistakes(cases[grid])
    cases = {c.name: c for c in visible.visible_cases(exercise)}
    assert "take the softmax over the wrong axis (each column sums to 1 instead of each row)" \
        in visible.shown_mistakes(cases[grid])
    assert solutions.attention is before  # the committed module is back in place


@pytest.mark.parametrize("name", list(EXERCISES))
def test_the_grader_never_runs_a_visible_check(name):
    """The grading child runs a notebook's definitions and assignments only: the check and
    summary cells must call nothing at top level except inside an ``if`` or an expression."""
    import ast
    release = nbformat.read(EXERCISES[name].release_notebook, as_version=4)
    cells = [c for c in release.cells
             if c.metadata.get("nbgrader", {}).get("grade_id", "").startswith("visible_")
             and c.metadata["nbgrader"]["grade_id"] != "visible_checker"]
    assert len(cells) == len(EXERCISES[name].functions) + 1
    for cell in cells:
        for node in ast.parse(cell.source).body:
            assert isinstance(node, (ast.FunctionDef, ast.If, ast.Expr)), ast.dump(node)[:200]


@pytest.mark.slow
def test_every_failing_visible_check_of_top_p_names_the_dropped_crossing_token(tmp_path):
    """With p = 0.4 on "the cat" the crossing token is the only one: dropping it leaves nothing
    and every share nan; that check names the mistake as the p = 0.75 one does."""
    exercise = EXERCISES["sampling"]
    kernel = Kernel(exercise, tmp_path)
    mistake = next(m for m in all_mistakes() if m.id == "sampling-crossing_token_dropped")
    with kernel.client.setup_kernel():
        for cell in kernel.setup:
            kernel.run(cell)
        text = kernel.hand_in(dict(reference_code(exercise), top_p_filter=mistake.code))["visible_top_p_filter"]
    phrase = "drop the token whose share makes the total reach p"
    assert text.count("FAIL  ") >= 2 and text.count("FAIL  ") == text.count(phrase), text


@pytest.mark.slow
def test_a_visible_failure_that_comes_from_a_function_failing_above_says_so(tmp_path):
    """One bug, charged once, in the visible checks too: decode_step's cases run the student's
    KVCache; with a KVCache that fails its own check, each failing decode_step case and the
    summary point at KVCache instead of listing decode_step as a failure of its own."""
    exercise = EXERCISES["kv_cache"]
    kernel = Kernel(exercise, tmp_path)
    summary = next(c for c in kernel.nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "visible_summary")
    with kernel.client.setup_kernel():
        for cell in kernel.setup:
            kernel.run(cell)
        # KVCache stacking its rows side by side: the transpose of what decode_step reads
        stacked = next(m for m in all_mistakes() if m.id == "kv_cache-rows_as_columns")
        printed = kernel.hand_in(dict(reference_code(exercise), KVCache=stacked.code))
        raised = kernel.run(summary)
    assert "FAIL  " in printed["visible_KVCache"]
    decode = printed["visible_decode_step"]
    assert decode.count("FAIL  ") >= 1, decode
    assert decode.count("FAIL  ") == decode.count("This check runs KVCache, which fails a visible check above"), decode
    assert "runs KVCache: fix that first" in raised, raised
    assert "Failing: decode_step" not in raised and "Also failing: decode_step" not in raised, raised
