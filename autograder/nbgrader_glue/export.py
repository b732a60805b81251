"""``nbgrader export`` for this course: nbgrader's CSV table, with every cell escaped.

nbgrader's ``CsvExportPlugin`` joins the values with commas as they are: a student id or a
name such as ``=HYPERLINK("http://x","y")`` becomes a formula when the table is opened in a
spreadsheet, and a comma in a name shifts the columns. ``SafeCsvExportPlugin`` writes the
same columns and values (each as ``str``, as nbgrader does) through ``csvsafe``: quoted where
needed, and text that would start a formula prefixed with ``'``. ``nbgrader_config.py``
selects it (``ExportApp.plugin_class``); ``ExportPlugin.to`` (or ``--to FILE``) and the ``--assignment`` /
``--student`` filters apply as before. Importing this module imports nbgrader.
"""
from nbgrader.api import MissingEntry
from nbgrader.plugins import CsvExportPlugin

from autograder.reports import csvsafe

COLUMNS = ["assignment", "duedate", "timestamp", "student_id", "last_name", "first_name", "email",
           "raw_score", "late_submission_penalty", "score", "max_score"]


class SafeCsvExportPlugin(CsvExportPlugin):
    """nbgrader's CSV export (same columns, same values), escaped by ``csvsafe``."""

    def export(self, gradebook):
        """Write one row per (assignment, student) of ``gradebook`` to ``self.to`` (UTF-8)."""
        dest = self.to or "grades.csv"
        students = [str(s) for s in self.student]
        assignments = [str(a) for a in self.assignment]
        self.log.info("Exporting grades to %s", dest)
        with open(dest, "w", newline="", encoding="utf-8") as fh:
            writer = csvsafe.writer(fh, lineterminator="\n")
            writer.writerow(COLUMNS)
            for assignment in gradebook.assignments:
                if assignments and assignment.name not in assignments:
                    continue
                for student in gradebook.students:
                    if students and student.id not in students:
                        continue
                    row = {"assignment": assignment.name, "duedate": assignment.duedate,
                           "student_id": student.id, "last_name": student.last_name,
                           "first_name": student.first_name, "email": student.email,
                           "max_score": assignment.max_score}
                    try:
                        sub = gradebook.find_submission(assignment.name, student.id)
                    except MissingEntry:
                        row.update(timestamp="", raw_score=0.0, late_submission_penalty=0.0, score=0.0)
                    else:
                        penalty = sub.late_submission_penalty
                        row.update(timestamp=sub.timestamp, raw_score=sub.score, late_submission_penalty=penalty,
                                   score=max(0.0, sub.score - penalty))
                    # as nbgrader writes them: None as "", everything else as str()
                    writer.writerow(["" if row[k] is None else str(row[k]) for k in COLUMNS])
