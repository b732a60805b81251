"""Reference solutions, one module per exercise, GENERATED from exercises/*.py.

Run `python -m autograder build` after editing an exercise; tests/test_build.py fails
when a module here differs from what its exercise generates.
"""
