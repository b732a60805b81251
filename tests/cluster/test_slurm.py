"""A class graded on a real Slurm cluster of one machine: a job array of three shards and a
merge job that waits for it, one shard cancelled part-way with ``scancel`` and submitted
again; the merged output must equal one ``--jobs 2`` run of the same class.

The cluster is Debian's slurm-wlm (slurmctld, slurmd) with MUNGE, installed by
scripts/slurm_install.sh (scripts/test.sh runs it), started here as root in a scratch folder
with ports, a MUNGE socket and state of its own: process tracking by /proc
(``proctrack/linuxproc``) and no task plugin, so no cgroup set-up is needed. Jobs run as
root (``SlurmUser=root``, submitted as root), which grading in the bubblewrap sandbox as
root needs. Every daemon started here is stopped afterwards, also when the test fails."""
import csv
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from autograder.core.registry import EXERCISES, PROJECT_ROOT
from autograder.demo.fill import filled_notebook
from autograder.demo.mistakes import all_mistakes
from autograder.grading import shards

pytestmark = pytest.mark.slow

SECRET = "slurm-test-secret"
EXERCISE_NAMES = ("kv_cache", "embeddings")
STUDENTS = 30
SHARDS = 3


# -- a one-machine Slurm cluster ---------------------------------------------------------------------------
def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _stop(proc, name, pid_file=None):
    """Stop a daemon we started: SIGTERM, then SIGKILL; by its Popen and by its pid file."""
    pids = {proc.pid} if proc is not None else set()
    if pid_file is not None and pid_file.is_file():
        try:
            pids.add(int(pid_file.read_text().split()[0]))
        except (ValueError, IndexError):
            pass
    for pid in pids:
        if _alive(pid):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        if proc is not None:
            proc.poll()
        time.sleep(0.2)
    for pid in pids:
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)
    if proc is not None:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass


class Cluster:
    """slurmctld + slurmd + munged in ``folder``; ``env`` is the clients' environment."""

    def __init__(self, folder):
        self.folder = Path(folder)
        self.procs = []  # (Popen, name, pid file)
        self.jobs = set()  # job ids submitted through this cluster (their step daemons are stopped too)
        host = socket.gethostname().split(".")[0]
        d = self.folder
        for sub in ("state", "spool", "munge"):
            (d / sub).mkdir(parents=True)
        os.chmod(d / "munge", 0o700)
        self.socket = d / "munge" / "munge.socket"
        key = d / "munge" / "munge.key"
        key.write_bytes(secrets.token_bytes(1024))
        os.chmod(key, 0o400)
        self.conf = d / "slurm.conf"
        self.conf.write_text("\n".join([
            f"ClusterName=ag{secrets.token_hex(3)}",
            f"SlurmctldHost={host}(127.0.0.1)",
            f"SlurmctldPort={_free_port()}",
            f"SlurmdPort={_free_port()}",
            "AuthType=auth/munge",
            f"AuthInfo=socket={self.socket}",
            "CredType=cred/munge",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core",
            "SlurmUser=root",
            "SlurmdUser=root",
            "ReturnToService=2",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            "MpiDefault=none",
            "KillWait=5",
            "MinJobAge=600",
            f"StateSaveLocation={d / 'state'}",
            f"SlurmdSpoolDir={d / 'spool'}",
            f"SlurmctldPidFile={d / 'slurmctld.pid'}",
            f"SlurmdPidFile={d / 'slurmd.pid'}",
            f"SlurmctldLogFile={d / 'slurmctld.log'}",
            f"SlurmdLogFile={d / 'slurmd.log'}",
            f"NodeName={host} NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN",
            f"PartitionName=debug Nodes={host} Default=YES MaxTime=INFINITE State=UP", ""]))
        # slurmd 22.05 loads a cgroup plugin whatever the task plugin; these settings keep it from needing systemd
        (d / "cgroup.conf").write_text("CgroupPlugin=autodetect\nIgnoreSystemd=yes\n")
        self.env = {**os.environ, "SLURM_CONF": str(self.conf)}

    def _start(self, name, argv, pid_file):
        log = open(self.folder / f"{name}.out", "wb")
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True, env=self.env)
        self.procs.append((proc, name, pid_file))
        return proc

    def start(self):
        d = self.folder
        self._start("munged", ["munged", "--foreground", "--force", f"--socket={self.socket}",
                               f"--key-file={d / 'munge' / 'munge.key'}", f"--pid-file={d / 'munge' / 'munged.pid'}",
                               f"--log-file={d / 'munge' / 'munged.log'}",
                               f"--seed-file={d / 'munge' / 'munged.seed'}"],
                    d / "munge" / "munged.pid")
        self._wait(lambda: self.socket.exists(), "munged's socket", 30)
        self._start("slurmctld", ["slurmctld", "-D", "-i", "-f", str(self.conf)], d / "slurmctld.pid")
        self._start("slurmd", ["slurmd", "-D", "-f", str(self.conf)], d / "slurmd.pid")
        self._wait(lambda: "idle" in self.run(["sinfo", "-h", "-o", "%t"], check=False).stdout, "an idle node", 90)

    def _wait(self, ready, what, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for proc, name, _ in self.procs:
                if proc.poll() is not None:
                    raise RuntimeError(f"{name} exited ({proc.returncode}): {self.logs()}")
            if ready():
                return
            time.sleep(0.3)
        raise RuntimeError(f"no {what} after {seconds} s: {self.logs()}")

    def logs(self):
        text = []
        for p in sorted(self.folder.glob("*.log")) + sorted(self.folder.glob("*.out")) + \
                sorted((self.folder / "munge").glob("*.log")):
            text.append(f"--- {p.name}\n" + p.read_text(errors="replace")[-3000:])
        return "\n".join(text)

    def run(self, argv, check=True, **kw):
        proc = subprocess.run(argv, env=self.env, capture_output=True, text=True, timeout=120, **kw)
        if check and proc.returncode != 0:
            raise RuntimeError(f"{argv} failed ({proc.returncode}): {proc.stdout}{proc.stderr}")
        return proc

    def job_state(self, job_id):
        """``{job id as Slurm shows it: state}``, e.g. ``{"12_1": "COMPLETED"}``."""
        out = self.run(["scontrol", "-o", "show", "job", str(job_id)], check=False).stdout
        states = {}
        for line in out.splitlines():
            fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
            key = fields.get("JobId", "")
            if fields.get("ArrayTaskId") and fields.get("ArrayJobId"):
                key = f"{fields['ArrayJobId']}_{fields['ArrayTaskId']}"
            states[key] = fields.get("JobState", "")
        return states

    def stop(self):
        if self.jobs:
            self.run(["scancel", *sorted(self.jobs)], check=False)
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and self.run(["squeue", "-h"], check=False).stdout.strip():
                time.sleep(0.5)
        for proc, name, pid_file in reversed(self.procs):
            _stop(proc, name, pid_file)
        # step daemons of our jobs left behind by a slurmd that was stopped
        for pid in (int(p) for p in os.listdir("/proc") if p.isdigit()):
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if cmd.startswith("slurmstepd") and any(f"[{j}" in cmd for j in self.jobs):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass


@pytest.fixture
def slurm(tmp_path_factory):
    for tool in ("slurmctld", "slurmd", "sbatch", "munged"):
        assert shutil.which(tool), f"{tool} is missing: run `bash scripts/slurm_install.sh` (as root)"
    assert os.geteuid() == 0, "the one-machine Slurm cluster is started as root (SlurmUser=root)"
    cluster = Cluster(tmp_path_factory.mktemp("slurm"))
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
        for proc, name, _ in cluster.procs:
            assert proc.poll() is not None, f"{name} still runs"


# -- the class --------------------------------------------------------------------------------------------
def _course(root):
    """An nbgrader course at ``root`` with the exercises of EXERCISE_NAMES in its gradebook (nbgrader's
    own preprocessors up to SaveCells, as generate_assignment runs them)."""
    import nbformat as nbf
    from nbgrader import api, preprocessors

    from autograder.nbgrader_glue import gradebook
    shutil.copy(PROJECT_ROOT / "nbgrader_config.py", root / "nbgrader_config.py")
    (root / "student").mkdir()
    shutil.copy(PROJECT_ROOT / "student" / "nbgrader_config.py", root / "student" / "nbgrader_config.py")
    course = gradebook.load_course(root)
    for name in EXERCISE_NAMES:
        exercise = EXERCISES[name]
        shutil.copytree(exercise.release_notebook.parent, root / "assignments" / name)
        nb = nbf.read(exercise.source_notebook, as_version=4)
        with api.Gradebook(course.db_url, course.course_id) as gb:
            gb.update_or_create_assignment(exercise.assignment)
        resources = {"nbgrader": {"notebook": exercise.source_notebook.stem, "assignment": exercise.assignment,
                                  "db_url": course.db_url}}
        for step in (preprocessors.LockCells, preprocessors.ClearSolutions, preprocessors.ClearOutput,
                     preprocessors.ComputeChecksums, preprocessors.SaveCells):
            nb, resources = step(parent=course).preprocess(nb, resources)
    return course


def _hand_ins(submitted):
    """30 students: every third hands in the reference, one the stubs, the rest the demo's
    realistic mistakes in turn (one per exercise)."""
    mistakes = {name: [m for m in all_mistakes() if m.exercise == name] for name in EXERCISE_NAMES}
    for i in range(STUDENTS):
        student = f"student{i:02d}"
        for name in EXERCISE_NAMES:
            exercise = EXERCISES[name]
            folder = submitted / student / name
            folder.mkdir(parents=True)
            if i == 1:
                nb = filled_notebook(exercise, stubs=exercise.functions)
            elif i % 3 == 0:
                nb = filled_notebook(exercise)
            else:
                m = mistakes[name][i % len(mistakes[name])]
                nb = filled_notebook(exercise, {m.function: m.code})
            nbformat.write(nb, folder / exercise.notebook)
            (folder / "timestamp.txt").write_text("2026-11-30 12:00:00.000000 UTC")


def _rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _gradebook_scores(course_root):
    from nbgrader import api

    from autograder.nbgrader_glue import gradebook
    course = gradebook.load_course(course_root)
    scores = {}
    with api.Gradebook(course.db_url, course.course_id) as gb:
        for name in EXERCISE_NAMES:
            for student in gb.students:
                try:
                    sub = gb.find_submission_notebook(name, name, student.id)
                except api.MissingEntry:
                    continue
                for grade in sub.grades:
                    scores[(student.id, name, grade.name)] = grade.auto_score
                scores[(student.id, name)] = gb.find_submission(name, student.id).score
    return scores


def _wait(what, ready, seconds, cluster):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = ready()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"no {what} after {seconds} s\n{cluster.run(['squeue'], check=False).stdout}\n"
                         f"{cluster.logs()}")


def test_a_class_graded_as_a_slurm_job_array_equals_one_run(slurm, tmp_path, monkeypatch):
    # nbgrader creates a new gradebook with alembic's command, from the venv's bin
    path = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")
    monkeypatch.setenv("PATH", path)
    env = {**slurm.env, "COURSE_SECRET": SECRET, "PATH": path}
    single_course, cluster_course = tmp_path / "course-single", tmp_path / "course-cluster"
    for root in (single_course, cluster_course):
        root.mkdir()
        _course(root)
        _hand_ins(root / "submitted")

    # the cluster route: three array tasks and a merge job that waits for them
    work = cluster_course / "graded-shards"
    submit = [sys.executable, "-m", "autograder", "slurm", cluster_course / "submitted", "--shards", str(SHARDS),
              "--work", work, "--out", cluster_course / "graded", "--jobs", "1"]
    proc = subprocess.run(list(map(str, submit)), env=env, capture_output=True, text=True, timeout=120,
                          cwd=cluster_course)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ids = dict(f.split("=") for f in proc.stdout.split("\n")[-2].split())
    array, merge_job = ids["array"], ids["merge"]
    slurm.jobs |= {array, merge_job}

    # cancel shard 2 once it has graded part of its students, while the others go on
    resume = work / "shard-2" / ".resume"
    _wait("graded notebook in shard 2", lambda: resume.is_dir() and any(resume.glob("*.json")), 300, slurm)
    slurm.run(["scancel", f"{array}_2"])
    _wait("end of shard 2", lambda: slurm.job_state(array).get(f"{array}_2") == "CANCELLED", 60, slurm)
    manifest = shards.read_manifest(work / "shard-2")
    assert manifest["status"] == "running", "shard 2 finished before it could be cancelled"
    _wait("end of shard 2's processes", lambda: not _alive(manifest["pid"]), 60, slurm)
    recorded = len(list(resume.glob("*.json")))
    assert 0 < recorded < manifest["notebooks"]

    # the other shards finish; the merge job is dropped (its dependency can never be met) and writes nothing
    _wait("end of shards 1 and 3", lambda: all(slurm.job_state(array).get(f"{array}_{k}") == "COMPLETED"
                                               for k in (1, 3)), 600, slurm)
    _wait("merge job dropped", lambda: slurm.job_state(merge_job).get(merge_job) in ("CANCELLED", "FAILED"),
          120, slurm)
    assert not (cluster_course / "graded").exists()
    refused = subprocess.run([sys.executable, "-m", "autograder", "merge",
                              *(str(work / f"shard-{k}") for k in (1, 2, 3)),
                              "--out", str(cluster_course / "graded")], env=env, capture_output=True, text=True)
    assert refused.returncode == 4 and "shard 2/3 did not finish" in refused.stderr, refused.stderr
    assert not (cluster_course / "graded").exists()

    # submitted again: shard 2 resumes, and the new merge job runs after it
    proc = subprocess.run(list(map(str, submit + ["--only", "2"])), env=env, capture_output=True, text=True,
                          timeout=120, cwd=cluster_course)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ids = dict(f.split("=") for f in proc.stdout.split("\n")[-2].split())
    slurm.jobs |= {ids["array"], ids["merge"]}
    _wait("merge after the rerun", lambda: slurm.job_state(ids["merge"]).get(ids["merge"]) in
          ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"), 600, slurm)
    merge_log = "\n".join(p.read_text(errors="replace") for p in (work / "logs").glob("*"))
    assert slurm.job_state(ids["merge"])[ids["merge"]] == "COMPLETED", merge_log
    rerun = shards.read_manifest(work / "shard-2")
    assert rerun["status"] == "complete"
    assert rerun["reused"] == recorded and rerun["graded"] == rerun["notebooks"] - recorded  # nothing twice

    # one run of the same class at --jobs 2
    single = subprocess.run([sys.executable, "-m", "autograder", "grade", str(single_course / "submitted"),
                             "--out", str(single_course / "graded"), "--jobs", "2", "--quiet"],
                            env=env, capture_output=True, text=True, timeout=900, cwd=single_course)
    assert single.returncode == 0, single.stderr[-3000:]

    merged, alone = cluster_course / "graded", single_course / "graded"
    for name in ("grades.csv", "class_mistakes.csv", "class_checks.csv", "identical.csv"):
        assert _rows(merged / name) == _rows(alone / name), name
    rows = _rows(merged / "grades.csv")
    assert len(rows) == STUDENTS * len(EXERCISE_NAMES)
    assert all("bubblewrap" in r["confinement"] for r in rows)  # graded in the sandbox under slurmd too
    full = {name: EXERCISES[name].points for name in EXERCISE_NAMES}
    by = {(r["student_id"], r["assignment_id"]): r for r in rows}
    for name in EXERCISE_NAMES:
        assert float(by[("student00", name)]["total"]) == full[name]
        assert float(by[("student01", name)]["total"]) == 0
        assert float(by[("student02", name)]["total"]) < full[name]
    merged_scores, single_scores = _gradebook_scores(cluster_course), _gradebook_scores(single_course)
    assert merged_scores == single_scores
    assert {k: v for k, v in merged_scores.items() if len(k) == 2} == \
        {(r["student_id"], r["assignment_id"]): float(r["total"]) for r in rows}
    summary = json.loads((merged / "shards.json").read_text())
    assert [s["shard"] for s in summary["shards"]] == [1, 2, 3] and summary["warnings"] == []
