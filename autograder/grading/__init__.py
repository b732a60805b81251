"""Grading: one notebook (``notebook``, its stages named in ``notebook.STAGES``), then a class
(``class_run``: the one entry every class run goes through, with the preflight and the reports), the
worker pool, discovery of hand-ins, the preflight, resume, identical hand-ins and problem notes."""
