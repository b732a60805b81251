"""``python -m autograder new NAME [--title T] [--summary S] [--no-build]``: start an exercise from a template.

Writes ``exercises/NAME/`` (``exercise.toml``, ``__init__.py``, ``notebook.py``, ``cases.py``,
``checks.py``, ``wrong.py``, ``hand_ins.py``, ``worked.py``: see ``autograder.core.registry``) holding a tiny working exercise:
one function, ``mean_vector(X)``, the average of a text's token vectors, with two hidden
checks (2 points: a declared case that students also see, and a randomized check), one named mistake (averaging each token's entries
instead of each column) and one parity corpus entry. It is registered by being there: the
registry discovers the folder. The command then builds it (``python -m autograder build
NAME``: its three notebooks, README's table, the worked-examples page); its reference gets full
marks and its stub 0, and the test suite covers it with no edit anywhere else. Then replace the template's function, checks and mistakes with the exercise's own
(``docs/authoring.md`` walks through it).
"""
from __future__ import annotations

import argparse
import keyword
import subprocess
import sys
from pathlib import Path

from autograder.core.registry import COURSE_DIR, EXERCISES

TOML = '''\
# The "{name}" exercise, as the registry (autograder/core/registry.py) reads it.
order = {order}
title = {title_toml}
summary = {summary_toml}
# The total the course promises for this notebook; the points of checks.py must add up to it.
points = 2
# Images the solution notebook draws, at least.
plots = 0
# The functions students write, in notebook order (the contract the checks call).
functions = ["mean_vector"]

# Functions whose reference calls other student functions go here, e.g.
# [helpers]
# attention_row = ["softmax"]

# Hand-ins of the parity corpus (autograder/demo/corpus.py): notebook styles, file layout
# and, for some, a mistake of hand_ins.py; graded by nbgrader and by the autograder alike.
[[parity]]
styles = ["magics", "docstring_questions"]
layout = "plain"

[[parity]]
styles = ["loop_definitions"]
layout = "copy"
mistake = "wrong_axis"
'''

INIT = '''"""The "{name}" exercise: its notebook source, fixed cases, hidden checks, wrong implementations,
hand-ins and worked figures."""
'''

NOTEBOOK = '''\
# %% [markdown]
# # {title}
#
# One way to read a text is to average the vectors of its tokens into one vector. It loses
# the order of the words, which is why attention exists, but it is a start.
#
# **What you implement** (fill every cell that says `raise NotImplementedError()`):
#
# | function | what it returns |
# |---|---|
# | `mean_vector(X)` | the average of the rows of `X` |
#
# Conventions: vectors are **rows**; arrays are numpy `float64`.
#
# **Visible checks.** Under the function a locked cell runs it on a worked example and prints
# PASS, or what was expected and what came back. After you submit, hidden checks with cases
# randomized for each student grade the notebook.

# %% module=true
import numpy as np

# %% checker=true

# %% [markdown]
# ## 1. The mean of the token vectors
#
# `X` holds one token vector per row, shape (T, d). Return their average, shape (d,).

# %% solution="mean_vector"
def mean_vector(X):
    """The average of the token vectors.

    Args:
        X: token vectors, one per row, shape (T, d), float.
    Returns:
        ndarray of shape (d,), float64: the mean of the rows.
    """
    ### BEGIN SOLUTION
    return np.asarray(X, dtype=float).mean(axis=0)
    ### END SOLUTION


# %% visible="mean_vector"

# %% tests="mean_vector"

# %% summary=true
'''

CASES = '''\
"""Fixed cases of the "{name}" exercise, each declared once (see ``autograder.checks.cases``).

``python -m autograder build`` writes the visible ones into the notebook as values only; a
``Check`` with points is a hidden check too (``checks.py`` adds it). The figures come from
``worked.py``, the mistakes' sentences and values from ``wrong.py``.
"""
from autograder.authoring import Case, Check

from .worked import MEAN_THE_CAT, X_THE_CAT
from .wrong import WRONG_AXIS, _wrong_axis

CASES = [
    Check("mean_vector", 'the mean of "the cat"', points=1, name="check_the_cat", cases=[
        Case("mean_vector({{X}})", inputs={{"X": X_THE_CAT}}, expected=MEAN_THE_CAT, what="mean vector",
             mistakes={{WRONG_AXIS: _wrong_axis(X_THE_CAT)}}),
    ]),
]
'''

CHECKS = '''\
"""Hidden checks of the "{name}" exercise (see ``autograder.checks.api``).

The fixed case ("the cat", ``worked.py``) is declared once in ``cases.py``; the line below makes
it a hidden check. Randomized cases are compared with the reference solution
(``solutions/{name}.py``). The known mistake's value comes from its small wrong implementation
(``wrong.py``), so the feedback can name it when a student's value matches.
"""
from autograder.authoring import check, expect_close, hidden_checks
from solutions import {name} as ref

from .cases import CASES
from .wrong import WRONG_AXIS, _wrong_axis

globals().update(hidden_checks(CASES))  # the graded fixed cases of cases.py, first (declared.py's order)


@check("mean_vector", "random cases", points=1)
def check_random(mean_vector, rng):
    X = rng.normal(size=(5, 3))
    expect_close(mean_vector(X), ref.mean_vector(X), what="mean vector",
                 mistakes={{WRONG_AXIS: _wrong_axis(X)}})
'''

WRONG = '''\
"""Small wrong implementations of the "{name}" exercise, and the sentences that name them.

Each computes what a known mistake gives, so a declared case (``cases.py``) or a randomized
check (``checks.py``) can name the mistake when a student's value matches it. Each sentence
is typed once, here.
"""
import numpy as np

WRONG_AXIS = "average each token's entries instead of each column"


def _wrong_axis(X):
    return np.asarray(X, dtype=float).mean(axis=1)
'''

HAND_INS = '''\
"""Realistic wrong hand-ins of the {name} exercise: the mistakes the course text names.

Each names the checks it must fail by their function names in ``checks.py``.
"""
from autograder.authoring import Mistake

E = "{name}"

MISTAKES = [
    Mistake(E, "mean_vector", "wrong_axis", \'\'\'
def mean_vector(X):
    return np.asarray(X, dtype=float).mean(axis=1)    # each token's mean, not each column's
\'\'\', failing=("check_the_cat", "check_random"),
        feedback="average each token's entries instead of each column"),
]

# The mistakes the course text names, and a phrase the visible check that catches each must
# print (tests/course/test_visible.py hands each in to the released notebook).
NAMED = {{
    "wrong_axis": "average each token's entries instead of each column",
}}

# Who hands in which of these in the demo class (autograder.demo.students), e.g. {{"cy": ["wrong_axis"]}}.
DEMO = {{}}
'''

WORKED = '''\
"""Worked values of the "{name}" exercise.

Each entry is a figure the course text prints, where it prints it, and how the reference
solution (``solutions/{name}.py``) reproduces it; ``docs/worked-examples.md`` shows them side by side.
"""
import numpy as np

from autograder.authoring import FOUNDATIONS, Source, Worked

INPUTS = Source(FOUNDATIONS, "Part IV: Anatomy of an LLM Request / Tokenize, Embed, and Add Position")

# "the cat": each token's embedding plus its position stamp, one row per token.
X_THE_CAT = np.array([[1.0, 0.0], [1.0, 1.0]])
# Their mean, the figure the declared case compares with.
MEAN_THE_CAT = [1.0, 0.5]

WORKED = [
    Worked('input vector of "cat" (its embedding plus its position stamp)', INPUTS, [1, 1],
           lambda ref: X_THE_CAT[1]),
]
'''

TEMPLATE = {"exercise.toml": TOML, "__init__.py": INIT, "notebook.py": NOTEBOOK, "cases.py": CASES,
            "checks.py": CHECKS, "wrong.py": WRONG, "hand_ins.py": HAND_INS, "worked.py": WORKED}


def _toml_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def create(name: str, title: str | None = None, root=COURSE_DIR, summary: str | None = None):
    """Write ``root/name/`` from the template.

    Args:
        name: the exercise's name: a lowercase Python identifier, not a keyword, not taken.
        title: the notebook's title (default: from the name).
        root: the course folder (default ``exercises/``).
        summary: the one-line summary of README's exercise table (default: the title).
    Returns:
        the new folder (``Path``).
    Raises:
        ValueError: a bad or taken name.
    """
    root = Path(root)
    if not (name.isidentifier() and name == name.lower() and not keyword.iskeyword(name)
            and not name.startswith("_")):
        raise ValueError(f"{name!r}: an exercise name must be a lowercase Python identifier "
                         "(it is a folder, a package and an nbgrader assignment id)")
    folder = root / name
    if folder.exists() or name in EXERCISES:
        raise ValueError(f"{folder} exists already")
    title = title or name.replace("_", " ").capitalize()
    order = max((e.order for e in EXERCISES.values()), default=0) + 1
    title_toml, summary_toml = _toml_string(title), _toml_string(summary or title)
    folder.mkdir(parents=True)
    for file, text in TEMPLATE.items():
        (folder / file).write_text(text.format(name=name, title=title, title_toml=title_toml, order=order,
                                               summary_toml=summary_toml),
                                   encoding="utf-8")
    return folder


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder new", description=__doc__.split("\n")[0])
    parser.add_argument("name", help="the exercise's name (a lowercase identifier, e.g. layer_norm)")
    parser.add_argument("--title", help="the notebook's title")
    parser.add_argument("--summary", help="one line for README's exercise table (default: the title)")
    parser.add_argument("--no-build", action="store_true", help="only write the folder; build later with "
                        "python -m autograder build NAME")
    args = parser.parse_args(argv)
    try:
        folder = create(args.name, args.title, summary=args.summary)
    except ValueError as exc:
        parser.error(str(exc))
    print(f"wrote {folder}/ ({', '.join(TEMPLATE)})")
    if args.no_build:
        return 0
    # A fresh interpreter: this one's registry was read before the folder existed.
    return subprocess.call([sys.executable, "-m", "autograder", "build", args.name], cwd=folder.parent.parent)

