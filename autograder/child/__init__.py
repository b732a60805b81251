"""The child process that runs one submission's code: standard library and numpy only.

The grader starts it (``autograder/submission/remote.py``) and talks to it through two pipes in the
``wire`` format. Modules: ``main`` (entry point and confinement), ``server`` (requests),
``cells`` (running the notebook's cells), ``landlock`` (self-confinement), ``timing``
(time limits), ``errors`` (describing student exceptions), ``wire`` (the plain-data
format, shared with the grader), ``probes`` (helper objects the checks ask for) and
``removal`` (removing a tree of any shape, shared with the grader).
Every module here must import only the standard library, numpy and each other
(relatively): the child imports this package as ``child``, never through ``autograder``.
"""
