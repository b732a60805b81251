"""Can everyone read the pages we write? axe-core's WCAG 2.2 A/AA rules in a real headless Chromium.

axe-core (the npm registry's accessibility engine, pinned and installed by scripts/setup.sh into
.cache/axe-core) runs inside the page through Selenium and chromedriver (Debian's chromium and
chromium-driver, as in tests/nbgrader_glue/test_hub_browser.py). Checked: the class report of a
small graded class (a failed check with a named mistake, a late row, an identical flag, a problem,
an attempted import of the solutions) and a learned_attention student report with named mistakes
and heatmaps; the visible checks' output in a notebook run in a real kernel and rendered to HTML by
nbconvert (a stub notebook and one with a catalogued mistake); no violation of impact serious or
critical is allowed. Then the keyboard: Tab
reaches every link of the class report, each with a visible focus outline.
"""
import csv
import json
from pathlib import Path

import numpy as np
import pytest

from autograder.core.vocabulary import CheckResult, NotebookResult, Problem
from autograder.grading.outputs import write_results
from autograder.reports import class_report
from autograder.reports import console as report
from autograder.reports.student import write_html

ROOT = Path(__file__).resolve().parents[2]
AXE_JS = ROOT / ".cache" / "axe-core" / "node_modules" / "axe-core" / "axe.min.js"
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
SQRT = "forget to divide the scores by sqrt(d_k)"


def _check(function, name, points, earned, mistakes=(), problems=(), output="wrong", grid=False):
    details = None
    if earned < points:
        expected = [[0.7, 0.2, 0.1], [0.1, 0.6, 0.3], [0.2, 0.3, 0.5]] if grid else [0.33, 0.67]
        got = [[0.5, 0.3, 0.2], [0.2, 0.5, 0.3], [0.3, 0.3, 0.4]] if grid else [0.27, 0.73]
        details = {"what": "weights", "expected": expected, "got": got, "mistakes": list(mistakes)}
    return CheckResult(function, f"{function}: {name}", earned, points, "" if earned >= points else output,
                       frozenset(problems), details=details)


@pytest.fixture
def small_class(tmp_path):
    """attention for four students (one named mistake, a timeout, an attempted import of the
    solutions), grades.csv with a late row and an identical flag."""
    out = tmp_path / "graded"
    blocked = "attention_row raised ImportError: 'solutions.attention' is not available to submissions"
    results = [
        NotebookResult("s1", "attention", "attention.ipynb", [_check("attention_row", "weights", 1, 1),
                                                              _check("softmax", "rows", 2, 2)]),
        NotebookResult("s2", "attention", "attention.ipynb", [_check("attention_row", "weights", 1, 0, [SQRT]),
                                                              _check("softmax", "rows", 2, 1)]),
        NotebookResult("s3", "attention", "attention.ipynb", [
            _check("attention_row", "weights", 1, 0, output=blocked),
            _check("softmax", "rows", 2, 0, problems=[Problem.TIMEOUT])]),
        NotebookResult("s4", "attention", "attention.ipynb", [_check("attention_row", "weights", 1, 1),
                                                              _check("softmax", "rows", 2, 2)],
                       problems={Problem.IDENTICAL}),
    ]
    for r in results:
        write_results(r, out)
        write_html(r, out)
    report.write_grades_csv(results, out / "grades.csv")
    path = out / "grades.csv"
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["late_penalty"] = "10%" if r["student_id"] == "s2" else "0"
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return out


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    assert AXE_JS.is_file(), f"axe-core is not installed ({AXE_JS}): run `bash scripts/setup.sh` (needs npm)"
    assert Path(CHROMEDRIVER).is_file(), "chromium-driver is missing: run `bash scripts/setup.sh` as root"
    options = Options()
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--window-size=1366,900"):
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('profile')}")
    options.binary_location = CHROMIUM
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_script_timeout(120)
    yield driver
    driver.quit()


def _axe(driver, page, include=None):
    """axe-core's violations of ``TAGS`` on ``page``: ``[(rule id, impact, nodes, html of first node)]``.
    ``include``: CSS selectors of the parts to check (axe's context), or None for the whole page."""
    driver.get(page.as_uri())
    driver.execute_script(AXE_JS.read_text(encoding="utf-8"))
    found = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "const context = arguments[1] ? {include: arguments[1].map(s => [s])} : document;"
        "axe.run(context, {runOnly: {type: 'tag', values: arguments[0]}, resultTypes: ['violations']})"
        ".then(r => done(JSON.stringify(r.violations))).catch(e => done(JSON.stringify({error: String(e)})));",
        TAGS, include)
    violations = json.loads(found)
    assert isinstance(violations, list), violations
    return [(v["id"], v["impact"], len(v["nodes"]), v["nodes"][0]["html"][:200]) for v in violations]


def _serious(violations):
    return [v for v in violations if v[1] in ("serious", "critical")]


def _learned_attention_report(tmp_path):
    """A learned_attention report with named mistakes and heatmaps (the page axe found 7 contrast
    failures on)."""
    checks = [_check("attention_backward", "d_scores through the softmax and the scaling", 1, 0,
                     ["drop the 1/sqrt(d_k) scaling in the backward pass"], grid=True),
              _check("multi_head_attention", "each head's weights", 1, 0, [SQRT], grid=True),
              _check("positional_encoding", "the text's table", 1, 1)]
    result = NotebookResult("s2", "learned_attention", "learned_attention.ipynb", checks)
    return write_html(result, tmp_path / "graded")


@pytest.mark.slow
def test_pages_pass_axe_wcag_22_aa(small_class, browser, tmp_path):
    pair = {"students": ["s1", "s4"], "shared": 120, "share": [0.9, 0.95],
            "evidence": {"softmax": ["def softmax(z):\n    return z", "def softmax(x):\n    return x"]}}
    (small_class / "near_copies.json").write_text(json.dumps({"assignments": {"attention": [pair]}}), encoding="utf-8")
    page = class_report.write_all(small_class)["html"]
    assert "<td>s1 &amp; s4</td>" in page.read_text(encoding="utf-8")
    assert _serious(_axe(browser, page)) == []
    assert _serious(_axe(browser, small_class / "attention" / "s2" / "report.html")) == []
    assert _serious(_axe(browser, _learned_attention_report(tmp_path))) == []


@pytest.mark.slow
def test_axe_finds_what_it_is_asked_to(browser, tmp_path):
    """The harness is not blind: a page with low-contrast text and a tiny crowded link fails."""
    page = tmp_path / "bad.html"
    page.write_text("<!DOCTYPE html><html lang='en'><head><title>bad</title></head><body>"
                    "<p style='color: #bbb; background: #fff'>faint text</p>"
                    "<p><a href='#a' style='display: inline-block; width: 8px; height: 8px'></a>"
                    "<a href='#b' style='display: inline-block; width: 8px; height: 8px'>b</a></p></body></html>",
                    encoding="utf-8")
    rules = {v[0] for v in _serious(_axe(browser, page))}
    assert {"color-contrast", "link-name"} <= rules


@pytest.mark.slow
def test_keyboard_reaches_every_link_with_a_visible_focus(small_class, browser):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    page = class_report.write_all(small_class)["html"]
    browser.get(page.as_uri())
    links = browser.execute_script("return [...document.querySelectorAll('a[href]')].map(a => a.outerHTML)")
    assert len(links) > 5
    reached, outlines = [], []
    for _ in range(len(links) + 2):
        ActionChains(browser).send_keys(Keys.TAB).perform()
        focused = browser.execute_script(
            "const a = document.activeElement; const s = getComputedStyle(a);"
            "return [a.tagName, a.outerHTML, s.outlineStyle, parseFloat(s.outlineWidth)];")
        if focused[0] == "A":
            reached.append(focused[1])
            outlines.append((focused[2], focused[3]))
    assert set(links) <= set(reached)
    assert all(style != "none" and width >= 2 for style, width in outlines), outlines
    # the grid says pass and fail in text too, not by colour alone
    cells = browser.execute_script("return [...document.querySelectorAll('table.grid tbody td.p, table.grid tbody "
                                   "td.f, table.grid tbody td.h')].map(td => td.textContent)")
    assert cells and all(any(w in c for w in ("passed", "failed", "some points")) for c in cells), cells
    assert np.all([c.strip()[0] in "\u2713\u2717\u00bd" for c in cells])


@pytest.mark.slow
def test_the_demos_pages_pass_axe(demo_class, browser):
    """The demo class's class.html and every student's learned_attention and attention report."""
    graded = demo_class[1] / "graded"
    pages = [graded / "class.html"] + sorted(graded.glob("learned_attention/*/report.html")) \
        + sorted(graded.glob("attention/*/report.html"))
    assert len(pages) > 5
    found = {page.relative_to(graded).as_posix(): _serious(_axe(browser, page)) for page in pages}
    assert {k: v for k, v in found.items() if v} == {}


def _notebook_page(nb, tmp_path, name):
    """``nb`` run in a real kernel (nbclient; a failing cell does not stop it) and written as HTML by
    nbconvert: ``(page, selectors of the visible-check cells' outputs)``."""
    from nbclient import NotebookClient
    from nbconvert import HTMLExporter
    NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    page = tmp_path / f"{name}.html"
    page.write_text(HTMLExporter().from_notebook_node(nb)[0], encoding="utf-8")
    ids = [c.id for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id", "").startswith("visible_")]
    return page, [f'[id="cell-id={i}"] .jp-OutputArea-output' for i in ids]


@pytest.mark.slow
def test_the_visible_checks_output_in_a_notebook_passes_axe(browser, tmp_path):
    """What the visible checks print (PASS/FAIL, expected and got, the named mistake) and the
    summary cell's one error, as a student sees them: our outputs, not nbconvert's own page chrome
    (its prompts' colours are the template's)."""
    import nbformat

    from autograder.core.registry import EXERCISES
    from autograder.demo.fill import filled_notebook
    from autograder.demo.mistakes import all_mistakes
    exercise = EXERCISES["attention"]
    mistake = next(m for m in all_mistakes() if m.exercise == "attention" and m.label == "no_sqrt_scaling")
    for name, nb in (("mistake", filled_notebook(exercise, {mistake.function: mistake.code})),
                     ("stubs", nbformat.read(exercise.release_notebook, as_version=4))):
        page, outputs = _notebook_page(nb, tmp_path, name)
        text = page.read_text(encoding="utf-8")
        assert "FAIL  " in text and "VisibleCheckFailed" in text and len(outputs) == len(exercise.functions) + 2
        assert _serious(_axe(browser, page, outputs)) == [], name
