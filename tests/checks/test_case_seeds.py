"""Randomized hidden cases are seeded per submission (student, check, digest of the code as
graded): the cases a failing check shows cannot be collected into a table of answers."""
import ast
import importlib
import os
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.checks.plugin import run_checks
from autograder.core.registry import EXERCISES
from autograder.demo.environ import patched_environ
from autograder.demo.fill import filled_notebook
from autograder.submission import digest as code_digest
from autograder.submission.local import LocalSubmission
from autograder.submission.notebook import read_notebook

SECRET = b"seed-test-secret"
TOKENS = EXERCISES["tokens"]
RANDOM_CHECK = "bpe_encode: random corpora: seen and unseen words, new characters, runs"


def _lookup_code(table):
    """A ``bpe_encode`` that knows no BPE: it answers from a table of cases seen in feedback."""
    return (f"ANSWERS = {table!r}\n\n"
            "def bpe_encode(word, merges, end_of_word='</w>'):\n"
            "    key = (word, tuple(tuple(m) for m in merges), end_of_word)\n"
            "    if key in ANSWERS:\n"
            "        return list(ANSWERS[key])\n"
            "    return list(word) + ([end_of_word] if end_of_word is not None else [])\n")


def _learn(table, details):
    """Add the failing case that feedback shows (its call and expected value) to ``table``."""
    call = ast.parse(details["what"], mode="eval").body
    word, merges = (ast.literal_eval(a) for a in call.args)
    eow = next((ast.literal_eval(k.value) for k in call.keywords if k.arg == "end_of_word"), "</w>")
    table[(word, tuple(tuple(m) for m in merges), eow)] = tuple(details["expected"])


def _resubmit(tmp_path, table, round_no, fixed_digests=None):
    """Grade one resubmission of the lookup-table notebook; returns the random check's result."""
    code = _lookup_code(table)
    path = tmp_path / f"round{round_no}.ipynb"
    nbformat.write(filled_notebook(TOKENS, {"bpe_encode": code}), path)
    digests = fixed_digests or code_digest.digests_for_notebook(read_notebook(path, TOKENS.release_notebook), TOKENS)
    namespace = dict(vars(importlib.import_module("solutions.tokens")))
    exec(compile(code, "cell", "exec"), namespace)
    results = run_checks(TOKENS, LocalSubmission(namespace), "s1", SECRET, select="bpe_encode",
                         code_digests=digests)
    return next(r for r in results if r.name == RANDOM_CHECK)


@pytest.mark.slow
def test_a_lookup_table_never_passes_a_randomized_check_over_30_resubmissions(tmp_path):
    table = {}
    for round_no in range(30):
        result = _resubmit(tmp_path, table, round_no)
        assert result.score == 0, f"the lookup table passed after {round_no} resubmissions"
        assert result.details and "expected" in result.details  # feedback still shows the case
        _learn(table, result.details)
    assert len(table) >= 25  # it learned a case from each failure, and none helped


def test_the_same_strategy_wins_when_the_cases_stay_the_same(tmp_path):
    """Control: with the cases fixed (a seed without the code's digest), the table learns them."""
    table, fixed = {}, {"*": "0" * 64, "bpe_encode": "0" * 64}
    for round_no in range(40):
        result = _resubmit(tmp_path, table, round_no, fixed)
        if result.score == result.max_score:
            break
        _learn(table, result.details)
    assert result.score == result.max_score


def test_same_notebook_same_digest_any_code_change_a_new_one(tmp_path):
    code = filled_notebook(TOKENS)
    a, b = tmp_path / "a.ipynb", tmp_path / "b.ipynb"
    nbformat.write(code, a)
    nbformat.write(code, b)
    da = code_digest.digests_for_notebook(read_notebook(a, TOKENS.release_notebook), TOKENS)
    assert da == code_digest.digests_for_notebook(read_notebook(b, TOKENS.release_notebook), TOKENS)
    for cell in code.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "get_pair_counts":
            cell.source += "\n# one more comment"
    nbformat.write(code, b)
    db = code_digest.digests_for_notebook(read_notebook(b, TOKENS.release_notebook), TOKENS)
    assert set(da) == set(db) == {*TOKENS.functions, "*"}
    assert all(da[f] != db[f] for f in da)  # every function's test cell comes after get_pair_counts
    # saved outputs, markdown and the newlines that end a cell are not code any path can observe
    for cell in code.cells:
        if cell.cell_type == "code":
            cell.outputs = [nbformat.v4.new_output("stream", text="printed\n")]
            cell.source = cell.source + "\n\n"
        elif cell.cell_type == "markdown":
            cell.source += "\n\nA note of my own."
    nbformat.write(code, a)
    assert code_digest.digests_for_notebook(read_notebook(a, TOKENS.release_notebook), TOKENS) == db


def _digests_with(change):
    """The tokens digests of the reference hand-in after ``change(cells)``."""
    import tempfile
    nb = filled_notebook(TOKENS)
    change(nb.cells)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.ipynb"
        nbformat.write(nb, path)
        return code_digest.digests_for_notebook(read_notebook(path, TOKENS.release_notebook), TOKENS)


def _solution(cells, grade_id):
    return next(c for c in cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def test_code_that_reads_its_own_line_numbers_gets_new_cases():
    """Leading blank lines move every line number of a cell (code can read them with
    ``sys._getframe().f_lineno``), so they are code: the attack stored a table of answers as the
    number of leading blank lines of filler cells and kept its cases over 17 regrades."""
    plain = _digests_with(lambda cells: None)

    def blank_line(cells):
        cell = _solution(cells, "get_pair_counts")
        cell.source = "\n" + cell.source
    assert _digests_with(blank_line)["bpe_encode"] != plain["bpe_encode"]

    def indented_string(cells):  # whitespace inside a string is a value the code can read
        cells.insert(1, nbformat.v4.new_code_cell("FILLER = ' '"))
    def wider_string(cells):
        cells.insert(1, nbformat.v4.new_code_cell("FILLER = '  '"))
    assert _digests_with(indented_string)["bpe_encode"] != _digests_with(wider_string)["bpe_encode"]

    def split(cells):  # the same text in two cells: the boundary counts
        cell = _solution(cells, "get_pair_counts")
        first, rest = cell.source.split("\n", 1)
        cell.source = first + "\n"
        cells.insert(cells.index(cell) + 1, nbformat.v4.new_code_cell(rest))
    assert _digests_with(split)["bpe_encode"] != plain["bpe_encode"]

    def markdown(cells):  # no code can read a markdown cell's text
        cell = next(c for c in cells if c.cell_type == "markdown")
        cell.source += "\n\nMy own note, with   spaces."
    assert _digests_with(markdown) == plain


@pytest.mark.slow
def test_the_kernel_computes_the_graders_digest(tmp_path):
    """nbgrader autograde's path (the hidden-test cell in the student's kernel) seeds with the
    digest ``python -m autograder grade`` computes from the file, for the same notebook."""
    from nbclient import NotebookClient
    nb = filled_notebook(TOKENS)
    nb.cells.insert(1, nbformat.v4.new_code_cell("%time x = 1\n"))  # IPython syntax, and
    nb.cells.insert(2, nbformat.v4.new_code_cell("   "))  # an empty cell, which nbclient skips
    nb.cells.insert(3, nbformat.v4.new_code_cell("\n\n  # leading blank lines, trailing spaces   \nY = 2\n\n"))
    path = tmp_path / "tokens.ipynb"
    nbformat.write(nb, path)
    expected = code_digest.digests_for_notebook(read_notebook(path, TOKENS.release_notebook), TOKENS)
    # As nbgrader runs it: hidden-test cells hold their source-notebook text (OverwriteCells);
    # each prints the digest the kernel computes where its checks would run.
    source = {c.metadata["nbgrader"]["grade_id"]: c.source for c in nbformat.read(TOKENS.source_notebook, 4).cells
              if c.metadata.get("nbgrader", {}).get("grade_id")}
    probe = ("from autograder.submission.digest import digest_in_kernel\nfrom autograder.core.registry import find\n"
             "print('DIGEST', digest_in_kernel(find('tokens')))")
    probed = {}
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        if gid.startswith("test_"):
            cell.source = probe if gid == "test_bpe_encode" else source[gid]
            probed[gid] = cell
    env = {"PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
           "COURSE_SECRET": "kernel", "PYTHONPATH": str(TOKENS.source_notebook.parent.parent.parent),
           "MPLCONFIGDIR": str(tmp_path / "mpl")}
    with patched_environ(env):
        NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True,
                       resources={"metadata": {"path": str(tmp_path)}}).execute()
    printed = "".join(o.get("text", "") for o in probed["test_bpe_encode"].outputs)
    assert f"DIGEST {expected['bpe_encode']}" in printed, printed
