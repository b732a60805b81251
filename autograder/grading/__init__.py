"""Grading: one notebook (``notebook``, its stages named in ``notebook.STAGES``), then a class
(``class_run``, its stages named in ``class_run.STAGES``: the one entry every class run goes through),
the workers that grade a class's notebooks (``workers``, on the ``pool``, started early: ``early``),
discovery of hand-ins, the preflight, resume, one shard of a class (``shards``), identical hand-ins,
late resubmissions, and what a run writes (``outputs``)."""
