"""Fixtures for the hidden checks: every student-facing name, injected by name.

A check written as ``def check_x(attention_row): ...`` receives a callable that runs the
student's ``attention_row`` wherever the submission lives (child process or kernel).
Names that start with a capital letter are classes: calling the fixture instantiates the
student's class and returns a handle to the object.
"""
import pytest

from autograder.core.registry import ALL_FUNCTIONS


def _fixture_for(name):
    if name[:1].isupper():
        def make(submission):
            return lambda *args, **kwargs: submission.new(name, *args, **kwargs)
    else:
        def make(submission):
            return submission.function(name)
    make.__name__ = name
    return pytest.fixture(name=name)(make)


for _name in ALL_FUNCTIONS:
    globals()[f"_student_{_name}"] = _fixture_for(_name)
