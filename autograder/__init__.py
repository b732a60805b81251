"""Autograder for the course unit on how a language model reads text: the engine.

The course itself is ``exercises/<name>/``, one folder per exercise, discovered by
``exercises.py``. Entry points: ``python -m autograder grade PATH`` (grading, ``cli.py``),
``python -m autograder new NAME`` (a new exercise folder from a template, ``new.py``),
``python -m autograder.build`` (generating notebooks, solutions and pages from
``exercises/``), ``python -m autograder.demo`` (a simulated class through nbgrader). See
README.md and docs/.
"""
