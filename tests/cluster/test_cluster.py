"""A class graded in shards: the split by student, the merge's refusals, the merge equal to a
single run (slow), and the Kubernetes manifests validated offline against the API schemas.
The Slurm cluster itself is tests/cluster/test_slurm.py."""
import csv
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.checks.declared import check_metas
from autograder.cluster import k8s, merge
from autograder.core.registry import EXERCISES, PROJECT_ROOT
from autograder.core.vocabulary import CheckResult, Job, NotebookResult
from autograder.demo.fill import filled_notebook
from autograder.grading import shards
from autograder.grading.discover import discover
from autograder.sandbox.limits import Limits

KV = EXERCISES["kv_cache"]
EMB = EXERCISES["embeddings"]
SECRET = b"cluster-test-secret"


# -- the split ------------------------------------------------------------------------------------------------
def _jobs(weights):
    """Fake-free jobs: ``{student: notebooks}`` as Job objects (paths need not exist to be split)."""
    jobs = []
    for student, count in weights.items():
        for i in range(count):
            jobs.append(Job(Path(f"/submitted/{student}/ex{i}/ex{i}.ipynb"), student, None))
    return jobs


def test_the_split_worked_by_hand():
    # heaviest first, each to the lightest shard (lowest number on a tie):
    # a(3) -> 1 [3,0]; b(2) -> 2 [3,2]; c(2) -> 2 [3,4]; d(1) -> 1 [4,4]
    assert shards.assign(_jobs({"d": 1, "c": 2, "b": 2, "a": 3}), 2) == {"a": 1, "b": 2, "c": 2, "d": 1}


def test_the_split_keeps_students_whole_is_stable_and_balanced():
    rng = random.Random(31)
    for _trial in range(20):
        weights = {f"s{i:03d}": rng.choice([1, 1, 2, 6, 6, 7]) for i in range(rng.randint(1, 120))}
        jobs = _jobs(weights)
        n = rng.randint(1, 9)
        shard_of = shards.assign(jobs, n)
        shuffled = jobs[:]
        rng.shuffle(shuffled)
        assert shards.assign(shuffled, n) == shard_of  # the roster decides, not the listing order
        parts = [shards.select(jobs, k, n) for k in range(1, n + 1)]
        assert sorted(j.path for p in parts for j in p) == sorted(j.path for j in jobs)  # each job once
        for p in parts:
            for j in p:
                assert all(shard_of[j.student_id] == shard_of[o.student_id]
                           for o in jobs if o.student_id == j.student_id)
        loads = [sum(weights[s] for s in {j.student_id for j in p}) for p in parts]
        assert max(loads) - min(loads) <= max(weights.values())  # no shard more than one student heavier


def test_shard_spec():
    assert shards.parse_spec("2/8") == (2, 8)
    for bad in ("0/3", "4/3", "3", "a/b", "1/0", "-1/2"):
        with pytest.raises(ValueError, match="--shard"):
            shards.parse_spec(bad)


# -- the merge's refusals (shards written without grading: results made up here) ----------------------------
def _class(root, students, exercise=KV):
    for s in students:
        folder = root / s / exercise.name
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(filled_notebook(exercise), folder / exercise.notebook)
    return root


def _made_up_result(job, score_of=lambda m: m.points):
    checks = [CheckResult(m.function, m.name, float(score_of(m)), m.points, "") for m in check_metas(job.exercise)]
    return NotebookResult(job.student_id, job.exercise.assignment, job.path.name, checks, confinement="test")


def _write_shards(tmp_path, submitted, n, secret=SECRET, limits=None, which=None, finish=True, folder="shard"):
    jobs = discover(submitted)
    dirs = {}
    for k in which or range(1, n + 1):
        mine = shards.select(jobs, k, n)
        run = shards.ShardRun(tmp_path / f"{folder}-{k}", k, n, submitted, jobs, mine, secret,
                              limits or Limits(), "bubblewrap")
        run.start()
        if finish:
            run.finish([_made_up_result(j) for j in mine], 0, 0)
        dirs[k] = tmp_path / f"{folder}-{k}"
    return dirs


def _refused(folders, out, *phrases):
    with pytest.raises(merge.NotWhole) as info:
        merge.merge(folders, out, gradebook_option="none")
    text = " | ".join(info.value.problems)
    for phrase in phrases:
        assert phrase in text, text
    assert not Path(out).exists()  # nothing written
    return text


def test_the_merge_refuses_shards_that_do_not_form_the_whole(tmp_path):
    submitted = _class(tmp_path / "submitted", [f"st{i}" for i in range(7)])
    out = tmp_path / "graded"
    d = _write_shards(tmp_path, submitted, 3)
    _refused([d[1], d[3]], out, "shard 2/3 is missing")
    _refused([d[1], d[2], d[3], tmp_path / "nowhere"], out, "nowhere: no shard.json")
    _refused([d[1], d[2], d[2], d[3]], out, "shard 2/3 is given twice")
    # shard 2 cut for another N
    other = _write_shards(tmp_path, submitted, 2, which=[2], folder="two")
    _refused([d[1], other[2], d[3]], out, "different numbers of shards")
    # a shard graded with another secret, another limit: named, never the secret itself
    alien = _write_shards(tmp_path, submitted, 3, secret=b"another-secret", which=[2], folder="alien")
    text = _refused([d[1], alien[2], d[3]], out, "the course secret", "shards 1/3, 3/3 versus 2/3")
    assert "another-secret" not in text and SECRET.decode() not in text
    slow = _write_shards(tmp_path, submitted, 3, limits=Limits(call_seconds=99), which=[2], folder="limits")
    _refused([d[1], slow[2], d[3]], out, "the limits")
    # a shard killed part-way (its manifest still says running)
    killed = _write_shards(tmp_path, submitted, 3, which=[2], finish=False, folder="killed")
    _refused([d[1], killed[2], d[3]], out, "did not finish", "run it again with the same --out")
    # a student in two shards (a manifest edited, or cut by another rule)
    manifest = json.loads((d[1] / shards.MANIFEST).read_text())
    stolen = json.loads((d[2] / shards.MANIFEST).read_text())["students"][0]
    twice = tmp_path / "twice"
    twice.mkdir()
    (twice / shards.MANIFEST).write_text(json.dumps(dict(manifest, students=manifest["students"] + [stolen])))
    _refused([twice, d[2], d[3]], out, f"student {stolen!r} is in more than one shard")
    (twice / shards.MANIFEST).write_text(json.dumps(dict(manifest, shard=4)))
    _refused([twice, d[2], d[3]], out, "twice/shard.json: damaged", "shard 1/3 is missing")
    # a notebook collected again after its shard graded it
    victim = sorted(submitted.glob("st0/*/*.ipynb"))[0]
    nbformat.write(filled_notebook(KV, stubs=KV.functions), victim)
    _refused([d[1], d[2], d[3]], out, "st0/kv_cache/kv_cache.ipynb: changed since shard")
    # a student added since the shards were cut
    nbformat.write(filled_notebook(KV), victim)
    _class(submitted, ["late-comer"])
    _refused([d[1], d[2], d[3]], out, "other students or notebooks than when the shards were cut")


def test_the_merge_names_shards_from_other_environments_and_writes_every_student(tmp_path):
    submitted = _class(tmp_path / "submitted", [f"st{i}" for i in range(5)])
    d = _write_shards(tmp_path, submitted, 2)
    path = d[2] / shards.MANIFEST
    data = json.loads(path.read_text())
    data["environment"]["blas"] = {"name": "mkl", "version": "2025.1", "configuration": ""}
    path.write_text(json.dumps(data))
    checked = merge.merge([d[2], d[1]], tmp_path / "graded", gradebook_option="none")
    assert len(checked.warnings) == 1 and "different environments" in checked.warnings[0]
    assert "shards 2: " in checked.warnings[0] and "BLAS mkl 2025.1" in checked.warnings[0]
    with open(tmp_path / "graded" / "grades.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    full = f"{KV.points:g}"  # the total the course promises (exercise.toml)
    assert sorted(r["student_id"] for r in rows) == [f"st{i}" for i in range(5)]
    assert {r["total"] for r in rows} == {full}
    # same code handed in by every student: flagged across the two shards
    assert all("identical" in r["problems"] for r in rows)
    summary = json.loads((tmp_path / "graded" / "shards.json").read_text())
    assert [s["shard"] for s in summary["shards"]] == [1, 2]


def test_the_manifest_records_what_the_shard_ran_on(tmp_path):
    import numpy
    submitted = _class(tmp_path / "submitted", ["a", "b", "c"])
    d = _write_shards(tmp_path, submitted, 2)
    data = shards.read_manifest(d[1])
    env = data["environment"]
    assert env["numpy"] == numpy.__version__ and env["python"] == ".".join(map(str, sys.version_info[:3]))
    assert env["blas"]["name"] == numpy.show_config(mode="dicts")["Build Dependencies"]["blas"]["name"]
    assert data["confinement"] == "bubblewrap" and data["status"] == "complete"
    from autograder.grading.resume import grader_version
    assert data["grader"] == grader_version()
    assert SECRET.hex() not in json.dumps(data) and SECRET.decode() not in json.dumps(data)
    import hashlib
    import hmac
    assert data["secret"] == hmac.new(SECRET, b"autograder shard: same course secret", hashlib.sha256).hexdigest()


# -- a merge equals a single run ------------------------------------------------------------------------------
def _grade(args, env=None):
    proc = subprocess.run([sys.executable, "-m", "autograder", *map(str, args)], cwd=PROJECT_ROOT,
                          capture_output=True, text=True, timeout=900,
                          env={**os.environ, "COURSE_SECRET": SECRET.decode(), **(env or {})})
    return proc


def _rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _results(out):
    found = {}
    for p in sorted(Path(out).glob("*/*/results.json")):
        data = json.loads(p.read_text(encoding="utf-8"))
        data.pop("execution_time")
        found[p.relative_to(out).as_posix()] = data
    return found


@pytest.mark.slow
def test_a_class_graded_in_two_shards_and_merged_equals_one_run(tmp_path):
    from autograder.demo.mistakes import all_mistakes
    submitted = tmp_path / "submitted"
    wrong = [m for m in all_mistakes() if m.exercise == KV.name][:3]
    plans = {"ana": {}, "ben": {wrong[0].function: wrong[0].code}, "cy": {wrong[1].function: wrong[1].code},
             "dee": {}, "eli": {wrong[2].function: wrong[2].code}}
    for student, replacements in plans.items():
        folder = submitted / student / KV.name
        folder.mkdir(parents=True)
        nbformat.write(filled_notebook(KV, replacements), folder / KV.notebook)
    single = _grade(["grade", submitted, "--out", tmp_path / "single", "--jobs", "2", "--quiet"])
    assert single.returncode == 0, single.stderr[-3000:]
    for k in (1, 2):
        proc = _grade(["grade", submitted, "--shard", f"{k}/2", "--out", tmp_path / f"shard-{k}", "--jobs", "1"])
        assert proc.returncode == 0, proc.stderr[-3000:]
    assert _grade(["merge", tmp_path / "shard-1", "--out", tmp_path / "merged"]).returncode == 4
    assert not (tmp_path / "merged").exists()
    proc = _grade(["merge", tmp_path / "shard-1", tmp_path / "shard-2", "--out", tmp_path / "merged", "--quiet"])
    assert proc.returncode == 0, proc.stderr[-3000:]
    for name in ("grades.csv", "class_mistakes.csv", "class_checks.csv", "identical.csv"):
        assert _rows(tmp_path / "merged" / name) == _rows(tmp_path / "single" / name), name
    assert _results(tmp_path / "merged") == _results(tmp_path / "single")
    rows = {r["student_id"]: r for r in _rows(tmp_path / "merged" / "grades.csv")}
    full = KV.points
    assert float(rows["ana"]["total"]) == full and float(rows["ben"]["total"]) < full
    assert "identical" in rows["ana"]["problems"] and "identical" in rows["dee"]["problems"]
    # shard 1 run again over its own folder: everything reused, nothing graded twice
    again = _grade(["grade", submitted, "--shard", "1/2", "--out", tmp_path / "shard-1", "--jobs", "1"])
    assert again.returncode == 0, again.stderr[-3000:]
    data = shards.read_manifest(tmp_path / "shard-1")
    assert data["graded"] == 0 and data["reused"] == data["notebooks"] > 0


# -- Kubernetes, on paper ------------------------------------------------------------------------------------
def _validate(doc):
    import kubernetes_validate
    kubernetes_validate.validate(doc, k8s.KUBERNETES_VERSION, strict=True)


def test_the_kubernetes_manifests_are_valid_jobs_and_each_index_grades_its_shard(tmp_path):
    import yaml
    proc = _grade(["k8s-job", "--shards", "4", "--image", "registry.example/course-grader:2026",
                   "--claim", "course-files", "--out", tmp_path / "k8s", "--jobs", "2", "--parallelism", "3"])
    assert proc.returncode == 0, proc.stderr
    shards_job = yaml.safe_load((tmp_path / "k8s" / "shards-job.yaml").read_text())
    merge_job = yaml.safe_load((tmp_path / "k8s" / "merge-job.yaml").read_text())
    _validate(shards_job)
    _validate(merge_job)
    spec = shards_job["spec"]
    assert spec["completionMode"] == "Indexed" and spec["completions"] == 4 and spec["parallelism"] == 3
    assert spec["backoffLimitPerIndex"] == 2 and spec["template"]["spec"]["restartPolicy"] == "Never"
    # a made-up field is refused: the validation can fail
    broken = json.loads(json.dumps(shards_job))
    broken["spec"]["completionsMode"] = "Indexed"
    import kubernetes_validate
    with pytest.raises(kubernetes_validate.ValidationError):
        _validate(broken)
    # each index's command, run by a real shell with the interpreter replaced by one that prints its argv
    argv_printer = tmp_path / "print-argv"
    argv_printer.write_text("#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done\n")
    argv_printer.chmod(0o755)
    command = spec["template"]["spec"]["containers"][0]["command"]
    assert command[:2] == ["/bin/sh", "-c"]
    script = command[2].replace("exec python ", f"exec {argv_printer} ", 1)
    for index in range(4):
        out = subprocess.run(["/bin/sh", "-c", script],
                             env={"JOB_COMPLETION_INDEX": str(index), "PATH": "/usr/bin:/bin"},
                             capture_output=True, text=True, check=True).stdout.splitlines()
        assert out == ["-m", "autograder", "grade", "/course/submitted", "--shard", f"{index + 1}/4",
                       "--out", f"/course/graded-shards/shard-{index + 1}", "--jobs", "2", "--quiet",
                       "--secret-file", "/var/run/course-secret/secret"]
    merge_cmd = merge_job["spec"]["template"]["spec"]["containers"][0]["command"]
    assert merge_cmd == ["python", "-m", "autograder", "merge"] + [f"/course/graded-shards/shard-{k}"
                                                                  for k in range(1, 5)] + ["--out", "/course/graded",
                                                                                           "--quiet"]
    mounts = {m["mountPath"] for m in spec["template"]["spec"]["containers"][0]["volumeMounts"]}
    assert mounts == {"/course", "/var/run/course-secret"}


def test_the_slurm_scripts_cut_by_the_array_index(tmp_path):
    from autograder.cluster import slurm
    plan = slurm.Plan(submitted=tmp_path / "sub mitted", work=tmp_path / "work", out=tmp_path / "graded", shards=3,
                      python="/opt/venv/bin/python")
    grade, merge_script = slurm.write_scripts(plan)
    printer = tmp_path / "print-argv"
    printer.write_text("#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done\n")
    printer.chmod(0o755)
    text = grade.read_text().replace("exec /opt/venv/bin/python ", f"exec {printer} ")
    out = subprocess.run(["bash", "-c", text], env={"SLURM_ARRAY_TASK_ID": "2", "PATH": "/usr/bin:/bin"},
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[:8] == ["-m", "autograder", "grade", str(tmp_path / "sub mitted"), "--shard", "2/3",
                       "--out", str(tmp_path / "work" / "shard-2")]
    missing = subprocess.run(["bash", "-c", text], env={"PATH": "/usr/bin:/bin"}, capture_output=True, text=True)
    assert missing.returncode != 0 and "array task" in missing.stderr
    assert slurm.array_spec(3) == "1-3" and slurm.array_spec(3, [3, 2]) == "2,3"
    with pytest.raises(ValueError):
        slurm.array_spec(3, [4])
