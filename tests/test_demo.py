"""Does the demo class run end to end and grade each simulated student as designed?"""
import csv

from autograder.demo.run import run
from autograder.demo.students import STUDENTS
from autograder.exercises import EXERCISES


def test_demo_class_through_nbgrader(tmp_path):
    results = run(tmp_path / "demo", jobs=2, quiet=True)
    by = {(r.student_id, r.assignment_id): r for r in results}
    assert len(by) == len(STUDENTS) * len(EXERCISES)
    for name in EXERCISES:
        assert by[("ada", name)].score == by[("ada", name)].max_score > 0
        assert by[("bo", name)].score == 0
        for student in ("cy", "dee", "eve"):
            r = by[(student, name)]
            assert 0 <= r.score <= r.max_score
    # each student with mistakes loses points somewhere, and keeps some
    for student in ("cy", "dee", "eve"):
        total = sum(by[(student, n)].score for n in EXERCISES)
        top = sum(by[(student, n)].max_score for n in EXERCISES)
        assert 0 < total < top
    with open(tmp_path / "demo" / "graded" / "grades.csv", newline="") as f:
        assert len(list(csv.DictReader(f))) == len(by)
    assert (tmp_path / "demo" / "graded" / "attention" / "eve" / "feedback.txt").is_file()
