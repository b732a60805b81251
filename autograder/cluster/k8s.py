"""``python -m autograder k8s-job --shards N --image IMAGE --claim PVC``: Kubernetes manifests.

For a course whose JupyterHub runs on Kubernetes: the class is graded by an Indexed Job
(``completionMode: Indexed``, ``completions: N``), one pod per shard. Kubernetes gives each
pod its index in ``JOB_COMPLETION_INDEX`` (0 to N-1), and the pod grades shard index+1 of N
(``--shard K/N``, 1-based as everywhere else). ``backoffLimitPerIndex`` retries a failed
index on its own (a retried shard resumes from its records on the volume) without touching
the others; ``restartPolicy: Never``, which it requires, is set. A second, ordinary Job
runs the merge once the first has completed (Kubernetes has no dependency between Jobs:
``kubectl wait --for=condition=complete`` on the first, then apply the second).

Both pods mount one shared volume (a PersistentVolumeClaim that many pods can mount, e.g.
ReadWriteMany on NFS, CephFS or a cloud file store) at ``--mount`` (default ``/course``):
the nbgrader course folder with ``submitted/`` and ``gradebook.db``; the shards write to
``graded-shards/shard-K`` and the merge to ``graded/`` there. The course secret comes from a
Kubernetes Secret mounted as a file (never in a command line or an environment variable a
pod listing shows).

These manifests are validated against the Kubernetes API schemas offline
(``tests/cluster/test_cluster.py``, with the ``kubernetes-validate`` package); they have not been run
on a cluster.
"""
from __future__ import annotations

import shlex
import sys
from pathlib import Path, PurePosixPath

SECRET_MOUNT = "/var/run/course-secret"
KUBERNETES_VERSION = "1.33.0"  # backoffLimitPerIndex is generally available from 1.33 (beta from 1.29)


def _q(value) -> str:
    return shlex.quote(str(value))


def shard_script(shards: int, mount="/course", submitted="submitted", work="graded-shards", jobs=1,
                 python="python", secret_key="secret") -> str:
    """The shell text each shard pod runs: K from ``$JOB_COMPLETION_INDEX`` + 1, then the grade command."""
    root = PurePosixPath(mount)
    return (f'K=$((JOB_COMPLETION_INDEX + 1)); exec {_q(python)} -m autograder grade {_q(root / submitted)} '
            f'--shard "$K/{shards}" --out {_q(root / work)}/shard-"$K" --jobs {int(jobs)} --quiet '
            f'--secret-file {_q(PurePosixPath(SECRET_MOUNT) / secret_key)}')


def merge_args(shards: int, mount="/course", work="graded-shards", out="graded", python="python") -> list:
    """The merge pod's command (``list`` of ``str``)."""
    root = PurePosixPath(mount)
    return [python, "-m", "autograder", "merge", *(str(root / work / f"shard-{k}") for k in range(1, shards + 1)),
            "--out", str(root / out), "--quiet"]


def _pod_spec(container, claim, mount, secret_name=None):
    volumes = [{"name": "course", "persistentVolumeClaim": {"claimName": claim}}]
    container["volumeMounts"] = [{"name": "course", "mountPath": str(mount)}]
    if secret_name:
        volumes.append({"name": "course-secret", "secret": {"secretName": secret_name, "defaultMode": 0o400}})
        container["volumeMounts"].append({"name": "course-secret", "mountPath": SECRET_MOUNT, "readOnly": True})
    return {"restartPolicy": "Never", "containers": [container], "volumes": volumes}


def manifests(shards: int, image: str, claim: str, name="autograde", namespace=None, mount="/course",
              submitted="submitted", work="graded-shards", out="graded", jobs=1, parallelism=None,
              backoff_per_index=2, secret_name="course-secret", secret_key="secret", python="python",
              cpu=None, memory="4Gi") -> tuple[dict, dict]:
    """The Indexed Job that grades the shards and the Job that merges them (Kubernetes
    ``batch/v1`` objects as ``dict``; see the module docstring).

    Args:
        shards: N (completions). image: the container image (the course's Python, its pinned
            packages and this grader, libseccomp2). claim: the PersistentVolumeClaim's name.
        name: prefix of the Jobs' names. namespace: their namespace (``None``: kubectl's).
        mount: where the volume is mounted; submitted, work, out: folders under it.
        jobs: grading workers per shard pod (also its CPU request unless ``cpu``).
        parallelism: pods at once (default: all N). backoff_per_index: retries of one index.
        secret_name, secret_key: the Kubernetes Secret holding the course secret, and its key.
        python: the interpreter in the image. memory: each pod's memory request and limit.
    Returns:
        ``(shards_job, merge_job)``.
    Raises:
        ValueError: ``shards``, ``jobs``, ``parallelism`` or ``backoff_per_index`` out of range.
    """
    if shards < 1 or jobs < 1 or (parallelism is not None and parallelism < 1) or backoff_per_index < 0:
        raise ValueError("shards, jobs and parallelism must be at least 1, backoff_per_index at least 0")
    meta = {"labels": {"app.kubernetes.io/name": "autograder", "app.kubernetes.io/part-of": name}}
    if namespace:
        meta["namespace"] = namespace
    resources = {"requests": {"cpu": str(cpu or jobs), "memory": memory}, "limits": {"memory": memory}}
    grade = {"name": "grade", "image": image, "workingDir": str(mount),
             "command": ["/bin/sh", "-c", shard_script(shards, mount, submitted, work, jobs, python, secret_key)],
             "resources": resources}
    shards_job = {"apiVersion": "batch/v1", "kind": "Job",
                  "metadata": {"name": f"{name}-shards", **meta},
                  "spec": {"completionMode": "Indexed", "completions": shards,
                           "parallelism": parallelism or shards,
                           "backoffLimitPerIndex": backoff_per_index, "maxFailedIndexes": shards,
                           "template": {"metadata": {"labels": meta["labels"]},
                                        "spec": _pod_spec(grade, claim, mount, secret_name)}}}
    merge = {"name": "merge", "image": image, "workingDir": str(mount),
             "command": merge_args(shards, mount, work, out, python),
             "resources": {"requests": {"cpu": "1", "memory": memory}, "limits": {"memory": memory}}}
    merge_job = {"apiVersion": "batch/v1", "kind": "Job",
                 "metadata": {"name": f"{name}-merge", **meta},
                 "spec": {"backoffLimit": 1, "template": {"metadata": {"labels": meta["labels"]},
                                                          "spec": _pod_spec(merge, claim, mount)}}}
    return shards_job, merge_job


def write(folder, shards_job: dict, merge_job: dict) -> tuple[Path, Path]:
    """Write ``shards-job.yaml`` and ``merge-job.yaml`` into ``folder``; returns their paths."""
    import yaml
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = folder / "shards-job.yaml", folder / "merge-job.yaml"
    for path, doc in zip(paths, (shards_job, merge_job), strict=True):
        head = (f"# Written by `python -m autograder k8s-job` (validated offline against the Kubernetes "
                f"{KUBERNETES_VERSION} schemas, not run on a cluster)\n")
        path.write_text(head + yaml.safe_dump(doc, sort_keys=False, width=1000), encoding="utf-8")
    return paths


def add_arguments(parser):
    """The ``k8s-job`` subcommand's arguments."""
    parser.add_argument("--shards", type=int, required=True, help="N: pods of the Indexed Job, one per shard")
    parser.add_argument("--image", required=True,
                        help="container image with Python, the pinned packages and the grader")
    parser.add_argument("--claim", required=True, help="PersistentVolumeClaim holding the course folder (shared)")
    parser.add_argument("--out", default="k8s", help="folder for shards-job.yaml and merge-job.yaml (default: k8s/)")
    parser.add_argument("--name", default="autograde", help="Job name prefix (default: autograde)")
    parser.add_argument("--namespace", help="the Jobs' namespace (default: kubectl's)")
    parser.add_argument("--mount", default="/course", help="where pods mount the volume (default: /course)")
    parser.add_argument("--jobs", type=int, default=1, help="grading workers (and CPUs) per shard pod (default: 1)")
    parser.add_argument("--parallelism", type=int, help="shard pods at once (default: all)")
    parser.add_argument("--backoff-per-index", type=int, default=2, help="retries of one shard (default: 2)")
    parser.add_argument("--secret-name", default="course-secret",
                        help="Kubernetes Secret with the course secret under key 'secret' (default: course-secret)")
    parser.add_argument("--python", default="python", help="the interpreter in the image (default: python)")
    parser.add_argument("--memory", default="4Gi", help="memory request and limit per pod (default: 4Gi)")


def command(args, parser) -> int:
    """Run ``python -m autograder k8s-job``: write the two manifests (exit 0)."""
    try:
        jobs = manifests(args.shards, args.image, args.claim, name=args.name, namespace=args.namespace,
                         mount=args.mount, jobs=args.jobs, parallelism=args.parallelism,
                         backoff_per_index=args.backoff_per_index, secret_name=args.secret_name,
                         python=args.python, memory=args.memory)
    except ValueError as exc:
        parser.error(str(exc))
    shards_path, merge_path = write(args.out, *jobs)
    ns = f" -n {args.namespace}" if args.namespace else ""
    print(f"wrote {shards_path} and {merge_path}; run them with:\n"
          f"  kubectl{ns} apply -f {shards_path}\n"
          f"  kubectl{ns} wait --for=condition=complete --timeout=24h job/{args.name}-shards\n"
          f"  kubectl{ns} apply -f {merge_path}", file=sys.stdout)
    return 0
