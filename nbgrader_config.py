"""nbgrader configuration for this course: the repository root is the course directory.

Run nbgrader from this folder. Layout: source/ (instructor notebooks, generated from
exercises/), assignments/ (the student release; nbgrader's release directory), and, once
a term runs, submitted/, autograded/ and feedback/ beside them (git-ignored), with the
gradebook in gradebook.db here (nbgrader's SQLite default) and `nbgrader export`'s table
in gradebook.csv (git-ignored). The settings students share (course id, exchange,
validation) are in student/nbgrader_config.py, loaded first.
"""
from pathlib import Path

c = get_config()  # noqa: F821 (provided by traitlets when nbgrader loads this file)

COURSE_ROOT = Path(__file__).resolve().parent
load_subconfig(str(COURSE_ROOT / "student" / "nbgrader_config.py"))  # noqa: F821 (traitlets)

c.CourseDirectory.root = str(COURSE_ROOT)
c.CourseDirectory.release_directory = "assignments"
# Ship and collect only notebooks, plus the two files nbgrader's exchange writes beside a
# submission: timestamp.txt (submission time: late penalties, export's timestamp column)
# and submission_secret.txt (release_feedback needs it to address each student's feedback).
c.CourseDirectory.include = ["*.ipynb", "timestamp.txt", "submission_secret.txt"]

# assignments/ is committed (python -m autograder build makes it with nbgrader itself), so
# generate_assignment would skip it as "existing" and leave the gradebook empty: regenerate
# (the same files) and record the assignment, its notebooks and grade cells in the gradebook.
c.GenerateAssignment.force = True
# Feedback always shows the latest grades (python -m autograder grade may run again).
c.GenerateFeedback.force = True
# `nbgrader export` writes here (git-ignored), not into whatever folder it is run from,
# unless `--to FILE` says otherwise. Set on ExportPlugin, the section nbgrader's `--to` flag
# writes: a value on CsvExportPlugin (a subclass, so more specific) would beat the flag.
c.ExportPlugin.to = str(COURSE_ROOT / "gradebook.csv")
# nbgrader's CSV table, with cells escaped against spreadsheet formulas (autograder/reports/csvsafe.py)
c.ExportApp.plugin_class = "autograder.nbgrader_glue.export.SafeCsvExportPlugin"

# Per-cell limit when nbgrader autograde runs a notebook (seconds).
c.Execute.timeout = 60
# A student who deletes a hidden-test cell gets it back instead of silently losing points.
c.OverwriteCells.add_missing_cells = True
# nbgrader's OverwriteCells, minus its "checksum has changed" warning for hidden-test cells
# that are exactly as released (nbgrader stores their checksum with the hidden code, so it
# warns for every honest submission); edited locked cells are still reported and restored.
c.Autograde.sanitize_preprocessors = [
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "autograder.nbgrader_glue.cells.OverwriteReleasedCells",
    "nbgrader.preprocessors.CheckCellMetadata",
]
