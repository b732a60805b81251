"""Grades and named mistakes into the course's LMS: Canvas, Moodle, Brightspace and Blackboard import files.

* ``roster.py``: ``roster.csv``, the course's student ids mapped to each LMS's ids; the one way
  student ids are compared (``student_key``); loads the students into nbgrader's gradebook;
  lists who submitted nothing.
* ``graded.py``: what a class run wrote (grades.csv, results.json), read back; the items file.
* ``table.py``: the students x items table every file shares, in each item's scale, and which
  cells are written (nothing a held grade would lose).
* ``feedback.py``: the sentences a student reads beside the grade (Moodle).
* ``canvas.py``, ``moodle.py`` (CSV and XML), ``brightspace.py``, ``blackboard.py``: the formats.
* ``command.py``: ``python -m autograder lms {canvas,moodle,moodle-xml,brightspace,blackboard,items}``
  and ``python -m autograder roster {check,load} FILE``.

docs/lms.md says which vendor documentation and code each format follows.
"""
