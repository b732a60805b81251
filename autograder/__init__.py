"""Autograder for the course unit on how a language model reads text.

Entry points: ``python -m autograder grade PATH`` (grading, ``cli.py``), ``python -m
autograder.build`` (generating notebooks and solutions from ``exercises/``), ``python -m
autograder.demo`` (a simulated class through nbgrader). See README.md and docs/.
"""
