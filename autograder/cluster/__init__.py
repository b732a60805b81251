"""A class run spread over machines: shards graded apart, merged by one writer.

* which students a shard grades (``--shard K/N``), and the manifest each shard writes beside its
  results, are the class run's own (``grading/shards.py``);
* ``merge``: ``python -m autograder merge``: checks that the shards form the whole class,
  then writes what a single class run writes, once;
* ``slurm``: ``python -m autograder slurm``: a Slurm job array (one task per shard) and a
  merge job that waits for it;
* ``k8s``: ``python -m autograder k8s-job``: a Kubernetes Indexed Job and a merge Job.

docs/cluster.md is the instructor's page.
"""
