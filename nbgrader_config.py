"""nbgrader configuration for this course: the repository root is the course directory.

Run nbgrader from this folder. Layout: source/ (instructor notebooks, generated from
exercises/), assignments/ (the student release; nbgrader's release directory), and, once
a term runs, submitted/, autograded/ and feedback/ beside them (git-ignored), with the
gradebook in gradebook.db here (nbgrader's SQLite default).
"""
import os
from pathlib import Path

c = get_config()  # noqa: F821 (provided by traitlets when nbgrader loads this file)

COURSE_ROOT = Path(__file__).resolve().parent

c.CourseDirectory.root = str(COURSE_ROOT)
c.CourseDirectory.course_id = os.environ.get("NBGRADER_COURSE_ID", "lm-reads-text")
c.CourseDirectory.release_directory = "assignments"
# Ship only notebooks: nothing else that happens to sit in source/<assignment>/.
c.CourseDirectory.include = ["*.ipynb"]
# Where release/fetch/submit/collect meet; must be writable by students (see README).
c.Exchange.root = os.environ.get("NBGRADER_EXCHANGE", "/srv/nbgrader/exchange")

# Per-cell limit when nbgrader autograde runs a notebook (seconds).
c.Execute.timeout = 60
# A student who deletes a hidden-test cell gets it back instead of silently losing points.
c.OverwriteCells.add_missing_cells = True
