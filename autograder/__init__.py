"""Autograder for the course unit on how a language model reads text: the engine.

The course itself is ``exercises/<name>/``, one folder per exercise, discovered by
``core/registry.py``. One entry point, ``python -m autograder SUBCOMMAND`` (``cli.py``): ``grade PATH``,
``report``, ``build [--check]`` (notebooks, solutions and pages from ``exercises/``), ``new NAME`` (a new
exercise folder), ``gradescope`` (the upload zip), ``demo`` (a simulated class through nbgrader),
``caches`` and ``container`` (Gradescope's runtime). The grader is laid out by stage, on the shared vocabulary ``core/``: ``course/``,
``checks/``, ``sandbox/``, ``child/``, ``submission/``, ``grading/``, ``reports/``, ``nbgrader_glue/``,
``gradescope/``. Exercises import only ``authoring``.
"""
