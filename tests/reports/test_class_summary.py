"""Does the class report drawn from its one-pass summary (``class_summary``, the results.json files
read one at a time) show what each notebook's results.json says, in the order ``load`` gives?

The classes are written by hand (results.json through ``outputs.write_results``, or as Gradescope's
JSON); the expected cells, orders and steps below are worked out by hand from them.
"""
import csv
import json
import re

from autograder.core.vocabulary import CheckResult, NotebookResult
from autograder.grading import outputs
from autograder.grading.outputs import write_results
from autograder.reports import class_load, class_report
from autograder.reports.class_summary import Summary

SQRT = "forget to divide the scores by sqrt(d_k)"
NO_SCALE = "drop the 1/sqrt(d_k) scaling in the backward pass"


def _check(name, points, earned, mistakes=()):
    details = {"what": "w", "expected": [0.5, 0.5], "got": [0.4, 0.6], "mistakes": list(mistakes)} \
        if earned < points else None
    return CheckResult(name.split(": ", 1)[0], name, earned, points, "" if earned >= points else "wrong",
                       frozenset(), details=details)


def _grid(page):
    """``{student: [cell class, ...]}`` of the page's first grid, in its rows' order (a list of pairs)."""
    table = page.split("<table class='grid'>", 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr><th scope='row'>(?:<a [^>]*>)?([^<]+)(?:</a>)?</th>(.*?)</tr>", table)
    return [(student, re.findall(r"<td class='([a-z])'>", cells)) for student, cells in rows]


def test_a_check_first_seen_in_a_later_notebook_is_a_column_the_earlier_ones_lack(tmp_path):
    out = tmp_path / "graded"
    for r in (NotebookResult("ann", "attention", "attention.ipynb",
                             [_check("attention_row: weights", 1, 1), _check("attention_row: context", 1, 0)]),
              NotebookResult("bob", "attention", "attention.ipynb",
                             [_check("attention_row: weights", 1, 0.5), _check("attention_row: context", 1, 1),
                              _check("softmax: no overflow", 2, 0)]),
              NotebookResult("cat", "attention", "attention.ipynb", [_check("softmax: no overflow", 2, 2)])):
        write_results(r, out)
    written = class_report.write_all(out)
    with open(written["checks"], newline="", encoding="utf-8") as f:
        assert [r["check"] for r in csv.DictReader(f)] == [
            "attention_row: weights", "attention_row: context", "softmax: no overflow"]
    # each check failed by one student: rows by their gaps over (weights, context, softmax)
    assert _grid(written["html"].read_text(encoding="utf-8")) == [
        ("ann", ["p", "f", "n"]), ("bob", ["h", "p", "f"]), ("cat", ["n", "n", "p"])]


def _gradescope(folder, student, tests):
    data = {"score": sum(t[1] for t in tests), "extra_data": {"assignment": "a", "student_id": student},
            "tests": [{"name": n, "score": s, "max_score": 1, "output": "", "extra_data": {"function": n[0]}}
                      for n, s in tests]}
    folder.mkdir(parents=True)
    (folder / "results.json").write_text(json.dumps(data), encoding="utf-8")


def test_checks_are_in_the_order_the_students_first_show_them_not_the_folders(tmp_path):
    # the folders sort zed's before amy's; the report goes by student: amy's order of checks counts
    _gradescope(tmp_path / "submission_1", "zed", [("x: one", 1), ("y: two", 0)])
    _gradescope(tmp_path / "submission_2", "amy", [("y: two", 1), ("x: one", 0)])
    _gradescope(tmp_path / "submission_3", "amy", [("x: one", 1)])  # a second results.json of amy's
    written = class_report.write_all(tmp_path)
    with open(written["checks"], newline="", encoding="utf-8") as f:
        assert [(r["check"], r["passed"]) for r in csv.DictReader(f)] == [("y: two", "1"), ("x: one", "1")]
    assert written["entries"] == 2
    assert written["notes"] == ["submission_3/results.json: a second results.json of amy for a; the first "
                                "(submission_2/results.json) is shown"]
    # columns (y, x), each failed once: amy passed the first column, zed did not
    assert _grid(written["html"].read_text(encoding="utf-8")) == [("amy", ["p", "f"]), ("zed", ["f", "p"])]


def test_grades_csv_is_read_a_row_at_a_time_and_its_last_row_of_a_pair_counts(tmp_path):
    with open(tmp_path / "grades.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["student_id", "assignment_id", "late", "problems"])
        writer.writerows([["s1", "a", "", "not submitted"], ["s2", "a", "2 days", "timeout; crash"],
                          ["s3", "a", "", "not submitted"], ["s1", "a", "", ""], ["s4", "a", "0", ""]])
    assert class_load.read_grades_merge(tmp_path / "grades.csv") == {
        ("s2", "a"): ({"late": "2 days"}, frozenset({"timeout", "crash"})),
        ("s3", "a"): ({}, frozenset({"not submitted"}))}
    assert class_report.not_submitted(tmp_path) == [("s3", "a")]


def test_a_summary_keeps_no_entry_and_reads_each_once(tmp_path):
    out = tmp_path / "graded"
    for student, earned in (("ann", 0), ("bob", 1)):
        write_results(NotebookResult(student, "attention", "attention.ipynb",
                                     [_check("attention_row: weights", 1, earned, [SQRT])]), out)
    listing = class_load.Listing(out)
    read = []
    summary = Summary.of(e for e in listing.entries() if not read.append(e.student))
    assert read == ["ann", "bob"] and summary.count == 2
    held = [x for x in (summary.groups["attention"].rows + summary.late + summary.problems)
            if isinstance(x, class_load.Entry)]
    assert held == [] and [r[1] for r in summary.groups["attention"].rows] == ["ann", "bob"]
    assert summary.mistakes() == [("attention", "attention_row", SQRT, [("ann", 0)])]


def test_the_students_paths_are_read_from_their_results_files(tmp_path):
    out = tmp_path / "graded"
    for assignment, function, mistake in (("attention", "attention_row", SQRT),
                                          ("learned_attention", "attention_backward", NO_SCALE)):
        write_results(NotebookResult("ann", assignment, f"{assignment}.ipynb",
                                     [_check(f"{function}: case", 1, 0, [mistake])]), out)
    steps = outputs.student_paths(out)["ann"]  # course order: attention before learned_attention
    assert [(s.assignment, s.family.id, s.status, s.mistakes, s.before) for s in steps] == [
        ("attention", "sqrt_dk", "made", [SQRT], []),
        ("learned_attention", "sqrt_dk", "again", [NO_SCALE], ["attention"])]
