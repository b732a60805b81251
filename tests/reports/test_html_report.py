"""Does the HTML report show what failed and why, escape submission text, and render in a browser?"""
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

from autograder.core.registry import EXERCISES
from autograder.core.vocabulary import CheckResult, NotebookResult
from autograder.demo.mistakes import all_mistakes
from autograder.reports.student import render_html, write_html

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def wrong_axis(tmp_path_factory):
    """The attention notebook with the softmax over the wrong axis, graded for real."""
    import nbformat

    from autograder.demo.fill import filled_notebook
    from autograder.grading.notebook import grade_notebook
    mistake = {m.id: m for m in all_mistakes()}["attention-softmax_wrong_axis"]
    exercise = EXERCISES["attention"]
    path = tmp_path_factory.mktemp("hand-in") / "s1-attention.ipynb"
    nbformat.write(filled_notebook(exercise, {mistake.function: mistake.code}), path)
    return grade_notebook(path, exercise, "s1", b"test-secret")


def test_report_names_the_mistake_and_draws_the_weights(wrong_axis, tmp_path):
    path = write_html(wrong_axis, tmp_path)
    assert path == tmp_path / "attention" / "s1" / "report.html"
    page = path.read_text(encoding="utf-8")
    failed = [c for c in wrong_axis.checks if c.score < c.max_score]
    assert page.count("class='check failed'") == len(failed) > 0
    assert page.count("class='check passed'") == len(wrong_axis.checks) - len(failed)
    assert "softmax over the wrong axis" in page
    assert "That is the value you get when you take the softmax over the wrong axis" in page
    # the worked example's expected weights ("river bank loan") beside the student's
    assert "0.401112" in page and "0.197776" in page
    # each failed grid comparison: the student's heatmap beside the expected one, except for
    # fixed checks that withhold their expected value (checks/withheld.py): no heatmap of it
    grids = [c for c in failed if c.details and np.ndim(c.details["got"]) == 2
             and not c.details.get("withheld")]
    assert grids and page.count("<table class='heatmap'>") == 2 * len(grids)
    assert "<caption>your values</caption>" in page and "background: rgb(" in page


def test_every_submission_text_is_escaped():
    hostile = "<script>alert(1)</script>"
    check = CheckResult("tokens", f"learn_bpe: {hostile}", 0.0, 1.0, f"expected [], got {hostile}",
                        details={"what": hostile, "expected": [("e", "s")], "got": [(hostile, "s")],
                         "mistakes": [hostile]})
    result = NotebookResult(f"s<{hostile}>", "tokens", "t.ipynb", [check], notes=[hostile])
    page = render_html(result)
    assert "<script" not in page and "&lt;script&gt;" in page
    assert "class='parted'" in page  # the merge sequences, side by side, parting at row 1


def test_sequences_are_shown_side_by_side():
    check = CheckResult("learn_bpe", "learn_bpe: merges", 0.0, 1.0, "wrong merges",
                        details={"what": "merges", "expected": [("e", "s"), ("es", "t")],
                         "got": [("e", "s"), ("s", "t")], "mistakes": []})
    page = render_html(NotebookResult("s1", "tokens", "tokens.ipynb", [check]))
    assert re.search(r"<tr class='parted'><td>2</td><td>s t</td><td>es t</td></tr>", page)


def test_report_renders_in_headless_chromium(wrong_axis, tmp_path):
    from PIL import Image
    assert CHROMIUM, "chromium is not installed: run `bash scripts/setup.sh` as root, or `apt-get install chromium`"
    page = write_html(wrong_axis, tmp_path / "out")
    shot = tmp_path / "shot.png"
    profile = tmp_path / "profile"
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               f"--user-data-dir={profile}", f"--screenshot={shot}", "--window-size=1000,1400",
               page.as_uri()]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, HOME=str(tmp_path)))
    assert shot.is_file(), done.stderr[-2000:]
    image = Image.open(shot).convert("L")
    assert image.size == (1000, 1400)
    pixels = np.asarray(image, dtype=float)
    assert pixels.std() > 20, "the screenshot is (nearly) blank"
    # the failed checks' red borders and the heatmaps' colours are there, not just text
    colour = np.asarray(Image.open(shot).convert("RGB"), dtype=int)
    assert np.sum((colour[..., 0] > 150) & (colour[..., 1] < 80) & (colour[..., 2] < 80)) > 200
