"""Does every solution notebook run top to bottom, draw its plots, and pass its own hidden cells?"""
import re

import pytest

from autograder.exercises import EXERCISES
from autograder.check_files import check_metas, points_by_function
from autograder.visible import visible_cases

# Plots each notebook draws (heatmaps of similarities and attention weights, tokens per
# word, rows projected with and without a cache; where "it" looks before and after training,
# seed 5 against seed 4, and two heads); next_token draws none.
IMAGES = {"tokens": 1, "embeddings": 2, "attention": 2, "next_token": 0, "kv_cache": 1, "learned_attention": 3}
# Text the solution notebook must print: the course text's numbers (WORKED_EXAMPLES.md, section 8).
# The equal-weights twins (54% / 46%) are asserted by that notebook's own demo cell.
_TEXT_LOSSES = {1000: "0.000", 500: "0.000", 200: "0.001", 100: "0.003", 50: "0.022", 25: "0.418", 0: "3.928"}
PRINTS = {"learned_attention": [f"step {s:4d}   loss {v}" for s, v in _TEXT_LOSSES.items()] + [
    "dog:0.99", f"step {500:4d}   loss 0.467", f"step {1000:4d}   loss 0.463", "purred 53.6%, barked 46.4%",
    "cat:0.60"]}


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
    assert len(images) >= IMAGES[name]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    for line in PRINTS.get(name, ()):
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
