"""nbgrader configuration for the students of this course (the instructor's config loads it too).

A student's nbgrader needs to know the course id and where the exchange is; without this
file ``nbgrader fetch_assignment`` looks in /usr/local/share/nbgrader/exchange and fails.
Put it where every student's nbgrader reads it: ``/etc/jupyter/nbgrader_config.py`` on a
shared machine, or each student's ``~/.jupyter/nbgrader_config.py`` (see docs/students.md).
"""
import os

c = get_config()  # noqa: F821 (provided by traitlets when nbgrader loads this file)

c.CourseDirectory.course_id = os.environ.get("NBGRADER_COURSE_ID", "lm-reads-text")
# Where release/fetch/submit/collect meet; every student must be able to write to it.
c.Exchange.root = os.environ.get("NBGRADER_EXCHANGE", "/srv/nbgrader/exchange")
# `nbgrader validate` runs every cell, not only nbgrader's grade cells: the hidden-test
# cells are empty in the release, so without this the untouched release "passes". With it,
# a self-check that fails (or a stub that raises NotImplementedError) fails validation.
c.Validator.validate_all = True
# Said to the notebooks nbgrader runs (their kernels inherit it): with validate_all on, the summary
# cell reports failing visible checks; without these settings each hidden-test cell does
# (autograder/course/build.py, COURSE_SETTINGS_LOADED).
os.environ["LMRT_COURSE_SETTINGS"] = "1"
