"""Grades and named mistakes into the course's LMS: Canvas, Moodle and Brightspace import files.

* ``roster.py``: ``roster.csv``, the course's student ids mapped to each LMS's ids; loads the
  students into nbgrader's gradebook; lists who submitted nothing.
* ``graded.py``: what a class run wrote (grades.csv, results.json), read back.
* ``table.py``: the students x assignments table the three files share, and the feedback text.
* ``canvas.py``, ``moodle.py``, ``brightspace.py``: the three import formats.
* ``command.py``: ``python -m autograder lms {canvas,moodle,brightspace} GRADED_DIR --roster FILE``
  and ``python -m autograder roster {check,load} FILE``.

docs/lms.md says which vendor documentation each format follows.
"""
