"""grades.csv's gradebook columns: ``late``, ``score`` and ``manual overrides`` (``totals.Totals``)."""
import csv

from autograder.core.vocabulary import CheckResult, NotebookResult
from autograder.nbgrader_glue.totals import Override, Totals
from autograder.reports.console import write_grades_csv


def _result(student, earned):
    checks = [CheckResult("softmax", "softmax: sums to one", earned[0], 3.0, ""),
              CheckResult("attention_row", "attention_row: weights", earned[1], 16.0, "")]
    return NotebookResult(student, "attention", "attention.ipynb", checks)


def _rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return {r["student_id"]: r for r in csv.DictReader(f)}


def test_rows_recorded_in_a_gradebook_carry_its_late_penalty_final_score_and_overrides(tmp_path):
    stale = Override("attention.ipynb", "test_attention_row", 14.0, 16.0, 4.0, stale=True)
    totals = {
        # ann: a grader's 14 replaces the checks' 16 on attention_row: raw 3 + 14 = 17, on time.
        ("ann", "attention"): Totals(17.0, 0.0, 19.0, [stale]),
        # ben: 19 raw, 19 taken by a "zero" late policy: export's max(0, 19 - 19) = 0.
        ("ben", "attention"): Totals(19.0, 19.0, 19.0),
        # cy: a penalty larger than the raw score still gives 0, never a negative score.
        ("cy", "attention"): Totals(5.0, 8.0, 19.0),
    }
    results = [_result("ann", (3.0, 16.0)), _result("ben", (3.0, 16.0)), _result("cy", (0.0, 5.0)),
               _result("dee", (3.0, 10.0))]  # dee: not recorded in a gradebook
    rows = _rows(write_grades_csv(results, tmp_path / "grades.csv", totals))
    got = {s: (r["total"], r["late"], r["score"], r["manual overrides"]) for s, r in rows.items()}
    assert got == {
        "ann": ("19", "0", "17", "test_attention_row: manual 14 replaces automatic 16 "
                                 "(given before the automatic score changed from 4)"),
        "ben": ("19", "19", "0", ""),
        "cy": ("5", "8", "0", ""),
        "dee": ("13", "0", "13", ""),
    }


def test_totals_notes_say_why_the_report_total_differs():
    kept = Override("attention.ipynb", "test_attention_row", 14.0, 16.0, 16.0, stale=False)
    notes = Totals(17.0, 2.0, 19.0, [kept]).notes()
    assert notes == ["manual overrides: test_attention_row: manual 14 replaces automatic 16. A grader's score "
                     "counts where one was given: 17 of 19 points",
                     "late: the course's late-work policy takes 2 points: final score 15 of 19"]
    assert Totals(19.0, 0.0, 19.0).notes() == []
