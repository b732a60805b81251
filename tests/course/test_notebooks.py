"""Does every solution notebook run top to bottom, draw its plots, and pass its own hidden cells?"""
import re

import pytest

from autograder.checks.declared import check_metas, points_by_function
from autograder.core.registry import EXERCISES
from autograder.course.visible import visible_cases


@pytest.mark.slow
@pytest.mark.parametrize("name", list(EXERCISES))
def test_solution_notebook_runs_end_to_end(name, executed_notebook):
    exercise = EXERCISES[name]
    nb = executed_notebook(exercise)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    errors = [o for o in outputs if o.output_type == "error"]
    assert not errors, [f"{o.ename}: {o.evalue}" for o in errors]
    assert not [o for o in outputs if o.output_type == "stream" and o.name == "stderr"
                and "Traceback" in o.text]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= exercise.plots  # as exercise.toml declares
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    for line in exercise.prints:  # as exercise.toml declares (the equal-weights twins of
        # learned_attention, 54% / 46%, are asserted by that notebook's own demo cell)
        assert line in text, line
    for function, points in points_by_function(exercise).items():
        assert re.search(rf"^{function}: {points:g} of {points:g} points$", text, re.M), function
    # the visible checks all pass, and the summary says what the hidden grading adds
    n = len(visible_cases(exercise))
    visible = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                      and c.metadata.get("nbgrader", {}).get("grade_id", "") in
                      {f"visible_{f}" for f in exercise.functions} for o in c.outputs)
    assert re.findall(r"^PASS  ", visible, re.M) == ["PASS  "] * n and "FAIL" not in visible, visible
    assert f"{n} of {n} visible checks pass." in text
    total = sum(points_by_function(exercise).values())
    assert f"{len(check_metas(exercise))} hidden checks grade this notebook for {total:g} points" in text
