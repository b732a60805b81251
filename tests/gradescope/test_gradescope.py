"""Does the Gradescope autograder zip grade like local grading, inside a simulated container?

The test plays Gradescope: it builds the zip, unpacks it into ROOT/source of a temporary
folder (``$AUTOGRADER_ROOT`` stands for ``/autograder``), runs its setup.sh against this
environment with no package index, copies run_autograder to ROOT as Gradescope does, and
runs it for submissions laid out as students upload them. Each results.json is compared
with ``grading.notebook.grade_notebook`` of the same notebook for the same student id and secret.
"""
import hashlib
import importlib
import inspect
import json
import os
import shutil
import stat
import subprocess
import sys
import time
import zipfile

import nbformat
import pytest

from autograder.checks.declared import check_metas, points_by_function
from autograder.core.registry import EXERCISES, PROJECT_ROOT
from autograder.demo.fill import filled_notebook
from autograder.demo.mistakes import all_mistakes
from autograder.gradescope import bundle as gradescope
from autograder.gradescope import container as gradescope_container
from autograder.grading.grader_files import grader_files
from autograder.grading.notebook import grade_notebook
from autograder.reports import console as report

SECRET = b"gradescope-test-secret"
ATTENTION = EXERCISES["attention"]
# Points of the attention notebook: the sum of its checks' points (test_exercises.py compares
# it with the total the course promises).
ATTENTION_POINTS = sum(points_by_function(ATTENTION).values())
# sha256 of cl100k_base.tiktoken, as tiktoken checks it (tiktoken_cache.CL100K_SHA256, typed again here)
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
MISTAKES = {m.id: m for m in all_mistakes()}
WRONG = [MISTAKES["attention-no_sqrt_scaling"], MISTAKES["attention-scaled_by_d_v"]]


def _env(root):
    env = {k: v for k, v in os.environ.items() if k != "COURSE_SECRET"}  # the zip's secret only
    # no network: setup must find this environment's packages already installed
    env.update(AUTOGRADER_ROOT=str(root), AUTOGRADER_PYTHON=sys.executable, AUTOGRADER_SKIP_INSTALL="1",
               PIP_NO_INDEX="1")
    return env


def play_container(root, zip_path):
    """Unpack ``zip_path`` as Gradescope does and run its setup.sh here; returns setup's stdout."""
    (root / "source").mkdir(parents=True)
    with zipfile.ZipFile(zip_path) as zf:
        for info in zf.infolist():  # keep the permissions stored in the zip, as unzip does
            zf.extract(info, root / "source")
            os.chmod(root / "source" / info.filename, (info.external_attr >> 16) & 0o777)
    proc = subprocess.run(["bash", str(root / "source" / "setup.sh")], cwd=root / "source", env=_env(root),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")
    return proc.stdout


@pytest.fixture(scope="module")
def container(tmp_path_factory):
    out = tmp_path_factory.mktemp("build")
    zip_path = gradescope.build_bundle("attention", out, SECRET)
    root = tmp_path_factory.mktemp("autograder")
    setup_output = play_container(root, zip_path)
    return {"root": root, "zip": zip_path, "setup": setup_output}


def submit(root, files, users=None):
    """Hand ``files`` ({relative path: notebook node, str or bytes}) in and run run_autograder.

    Returns:
        ``(results.json as a dict, stdout of run_autograder, seconds it took)``.
    """
    for name in ("submission", "results"):
        shutil.rmtree(root / name, ignore_errors=True)
    (root / "submission").mkdir()
    for rel, content in files.items():
        path = root / "submission" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, nbformat.NotebookNode):
            nbformat.write(content, path)
        else:
            path.write_bytes(content if isinstance(content, bytes) else content.encode())
    metadata = {"id": 1, "assignment": {"title": "attention"}, "submission_method": "upload",
                "users": users or [{"email": "s1@example.edu", "id": 101, "name": "Student One", "sid": "s1"}],
                "previous_submissions": []}
    (root / "submission_metadata.json").write_text(json.dumps(metadata))
    t0 = time.perf_counter()
    proc = subprocess.run([str(root / "run_autograder")], cwd=root, env=_env(root),
                          capture_output=True, text=True, timeout=600)
    seconds = time.perf_counter() - t0
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads((root / "results" / "results.json").read_text()), proc.stdout, seconds


def _local(nb, sid, tmp_path):
    path = tmp_path / sid / ATTENTION.notebook
    path.parent.mkdir()
    nbformat.write(nb, path)
    return report.results_json(grade_notebook(path, ATTENTION, sid, SECRET))


def _rows(results):
    return [(t["name"], t["score"], t["max_score"], t["output"]) for t in results["tests"]]


# -- the zip ---------------------------------------------------------------------------------
@pytest.mark.slow
def test_zip_has_gradescope_layout(container):
    with zipfile.ZipFile(container["zip"]) as zf:
        infos = {i.filename: i for i in zf.infolist()}
        names = set(infos)
        assert {"setup.sh", "run_autograder", "config.json", "requirements.txt"} <= names
        for script in ("setup.sh", "run_autograder"):  # at the root, executable
            assert (infos[script].external_attr >> 16) & stat.S_IXUSR
        assert zf.read("requirements.txt") == (PROJECT_ROOT / "requirements.txt").read_bytes()
        assert zf.read("project/.course_secret").strip() == SECRET
        caches = [n for n in names if n.startswith("project/.cache/tiktoken/")]
        assert [hashlib.sha256(zf.read(n)).hexdigest() for n in caches] == [CL100K_SHA256]
        # the hidden checks and reference of this assignment only; no demo, no notebook source
        course = sorted(n for n in names if n.startswith("project/exercises/"))
        assert course == ["project/exercises/__init__.py", "project/exercises/attention/__init__.py",
                          "project/exercises/attention/cases.py", "project/exercises/attention/checks.py",
                          "project/exercises/attention/exercise.toml",
                          "project/exercises/attention/worked.py", "project/exercises/attention/wrong.py"]
        assert sorted(n for n in names if n.startswith("project/solutions/")) == [
            "project/solutions/__init__.py", "project/solutions/attention.py"]
        assert not [n for n in names if "/demo/" in n or "__pycache__" in n]
        # the grader's modules and declared data only: no merge leftover, no bytecode, nothing stray
        package = {n.removeprefix("project/autograder/") for n in names if n.startswith("project/autograder/")}
        assert package == set(grader_files())
        assert not [n for n in names if n.endswith((".orig", ".rej", ".pyc", ".pyo", "~", ".swp"))]
        # the student release, for intake and the code digest that seeds the cases (as locally)
        assert zf.read("project/assignments/attention/attention.ipynb") == ATTENTION.release_notebook.read_bytes()
        assert not [n for n in names if n.startswith("project/source/")]  # never the hidden tests


@pytest.mark.slow
def test_setup_detects_installed_dependencies_and_checks_everything(container):
    out = container["setup"]
    assert "pinned requirements: already installed" in out
    assert "sandbox: bubblewrap level starts" in out and "ready to grade attention" in out
    assert (container["root"] / "source" / ".python").read_text().strip() == sys.executable


@pytest.mark.slow
def test_setup_reports_what_is_missing(container, tmp_path):
    source = tmp_path / "source"
    shutil.copytree(container["root"] / "source", source)
    (source / "project" / ".course_secret").unlink()
    cache = next((source / "project" / ".cache" / "tiktoken").iterdir())
    cache.write_bytes(b"truncated")
    with open(source / "requirements.txt", "a") as f:
        f.write("numpy==0.0.1\n")
    problems = gradescope_container.setup_problems(source)
    assert any("course secret missing" in p for p in problems)
    assert any("cl100k_base" in p for p in problems)
    assert any(p.startswith("not installed: numpy==0.0.1") for p in problems)


# -- grading equals local grading -------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("kind", ["reference", "stubs", "mistaken"])
def test_results_equal_local_grading(kind, container, tmp_path):
    nb = {"reference": filled_notebook(ATTENTION),
          "stubs": filled_notebook(ATTENTION, stubs=ATTENTION.functions),
          "mistaken": filled_notebook(ATTENTION, {m.function: m.code for m in WRONG})}[kind]
    sid = f"stu-{kind}"
    results, stdout, _ = submit(container["root"], {"attention.ipynb": nb},
                                users=[{"email": f"{sid}@example.edu", "id": 7, "name": "S", "sid": sid}])
    # graded by the zip's own copy of the grader, as the student of the metadata
    assert f"grader: {container['root'] / 'source' / 'project' / 'autograder'}" in stdout
    assert results["extra_data"]["student_id"] == sid
    local = _local(nb, sid, tmp_path)
    assert _rows(results) == _rows(local)
    assert results["score"] == local["score"]
    for note in local["output"].splitlines():
        assert note in results["output"]
    failed = {t["name"] for t in results["tests"] if t["score"] < t["max_score"]}
    if kind == "reference":
        assert results["score"] == ATTENTION_POINTS and not failed
    elif kind == "stubs":
        assert results["score"] == 0
        assert all("not implemented" in t["output"] for t in results["tests"])
    else:
        assert failed == {name for m in WRONG for name in m.failing_checks}
        outputs = " ".join(t["output"] for t in results["tests"])
        assert all(m.feedback in outputs for m in WRONG)
        # The randomized cases are this student's: another id gets other numbers.
        other = _local(nb, "someone-else", tmp_path)
        random_failed = [r for r in _rows(results) if r[0] in failed and "random" in r[0]]
        assert random_failed and all(r not in _rows(other) for r in random_failed)


@pytest.mark.slow
def test_results_follow_gradescope_specification(container):
    results, _, _ = submit(container["root"], {"attention.ipynb": filled_notebook(
        ATTENTION, {WRONG[0].function: WRONG[0].code})})
    module = importlib.import_module(ATTENTION.checks_module)
    takes_rng = {f.check_meta.name for _, f in inspect.getmembers(module, inspect.isfunction)
                 if hasattr(f, "check_meta") and "rng" in inspect.signature(f).parameters}
    assert len(takes_rng) == 7  # the attention checks that draw per-student cases
    assert {t["name"] for t in results["tests"]} == {m.name for m in check_metas(ATTENTION)}
    for t in results["tests"]:
        assert t["visibility"] == ("after_published" if t["name"] in takes_rng else "visible"), t["name"]
        assert t["status"] == ("passed" if t["score"] == t["max_score"] else "failed")
        assert t["output_format"] == "text" and t["name_format"] == "text"
    assert results["stdout_visibility"] == "hidden"
    lost = sum(m.points for m in check_metas(ATTENTION) if m.name in WRONG[0].failing_checks)
    assert lost == 4  # weights and context of "the cat" (1 + 1), the random rows (2)
    assert results["score"] == sum(t["score"] for t in results["tests"]) == ATTENTION_POINTS - lost
    assert isinstance(results["execution_time"], float) and results["execution_time"] > 0
    assert isinstance(results["output"], str)
    # what the class report reads (class_report.py), kept out of students' sight in extra_data
    assert all(t["extra_data"]["function"] == t["name"].split(":")[0] for t in results["tests"])
    named = [m for t in results["tests"] if t["name"] in WRONG[0].failing_checks for m in t["extra_data"]["mistakes"]]
    assert any(WRONG[0].feedback in m for m in named), named
    assert results["extra_data"]["problems"] == [] and results["extra_data"]["assignment"] == "attention"


# -- submissions as students upload them ---------------------------------------------------------
LAYOUTS = {
    "alone": ({"attention.ipynb": "REF"}, None),
    "renamed": ({"Attention (2) final.ipynb": "REF"}, "graded Attention (2) final.ipynb"),
    "in a folder": ({"hw3/work/attention.ipynb": "REF"}, "graded hw3/work/attention.ipynb"),
    "among other files": ({"notes.txt": "my notes", "data.csv": "a,b\n1,2\n", "scratch.ipynb": "EMPTY",
                           "__MACOSX/._attention.ipynb": b"\x00\x05\x16\x07", "final/mine_v2.ipynb": "REF"},
                          "graded final/mine_v2.ipynb; not graded: scratch.ipynb"),
}


@pytest.mark.slow
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_submission_layouts(layout, container):
    files, note = LAYOUTS[layout]
    content = {"REF": filled_notebook(ATTENTION), "EMPTY": nbformat.v4.new_notebook()}
    results, _, _ = submit(container["root"], {k: content.get(v, v) for k, v in files.items()})
    assert results["score"] == ATTENTION_POINTS
    if note:
        assert note in results["output"]


def test_links_and_junk_are_not_candidates(tmp_path):
    sub = tmp_path / "submission"
    (sub / "work").mkdir(parents=True)
    nbformat.write(filled_notebook(ATTENTION), tmp_path / "elsewhere.ipynb")
    (sub / "attention.ipynb").symlink_to(tmp_path / "elsewhere.ipynb")  # not theirs to hand in
    (sub / "loop").symlink_to(tmp_path, target_is_directory=True)
    (sub / ".ipynb_checkpoints").mkdir()
    nbformat.write(filled_notebook(ATTENTION), sub / ".ipynb_checkpoints" / "attention-checkpoint.ipynb")
    nbformat.write(filled_notebook(ATTENTION), sub / "work" / "mine.ipynb")
    grade_ids = gradescope.release_grade_ids(ATTENTION)
    path, notes = gradescope_container.find_notebook(sub, ATTENTION, grade_ids)
    assert path == sub / "work" / "mine.ipynb" and notes == ["graded work/mine.ipynb"]
    (sub / "work" / "mine.ipynb").unlink()
    path, notes = gradescope_container.find_notebook(sub, ATTENTION, grade_ids)
    assert path is None and "no Jupyter notebook" in notes[0]


@pytest.mark.slow
def test_no_notebook_in_the_submission(container):
    results, _, _ = submit(container["root"], {"answers.pdf": b"%PDF-1.4"})
    assert results["score"] == 0 and len(results["tests"]) == len(check_metas(ATTENTION))
    assert all(t["score"] == 0 and ".ipynb" in t["output"] for t in results["tests"])
    assert "answers.pdf" in results["output"]


def test_student_id_from_metadata():
    assert gradescope_container.student_id({"users": [{"sid": "s9", "email": "e@x", "id": 3}]})[0] == "s9"
    # no roster id: the email, then Gradescope's number
    assert gradescope_container.student_id({"users": [{"sid": "", "email": "e@x", "id": 3}]})[0] == "e@x"
    assert gradescope_container.student_id({"users": [{"sid": None, "email": None, "id": 3}]})[0] == "3"
    # a group: the same id whatever the order Gradescope lists them in
    group = [{"sid": "b2", "email": "b@x", "id": 2}, {"sid": "a1", "email": "a@x", "id": 1}]
    assert gradescope_container.student_id({"users": group})[0] == gradescope_container.student_id({"users": group[::-1]})[0] == "a1"
    with pytest.raises(ValueError):
        gradescope_container.student_id({"users": []})


@pytest.mark.slow
def test_missing_metadata_fails_closed(container):
    root = container["root"]
    results, _, _ = submit(root, {"attention.ipynb": filled_notebook(ATTENTION)}, users=[{"name": "nobody"}])
    assert results["score"] == 0
    assert all("names no student" in t["output"] for t in results["tests"])


# -- limits and the sandbox --------------------------------------------------------------------
@pytest.mark.slow
def test_hanging_submission_still_gets_results(tmp_path_factory):
    zip_path = gradescope.build_bundle("attention", tmp_path_factory.mktemp("build-fast"), SECRET, time_budget=4)
    root = tmp_path_factory.mktemp("autograder-fast")
    play_container(root, zip_path)
    nb = filled_notebook(ATTENTION)
    # an assignment runs at start-up (statements such as a bare loop do not): it never ends
    nb.cells.insert(0, nbformat.v4.new_code_cell("forever = sum(1 for _ in iter(int, 1))"))
    results, stdout, _ = submit(root, {"attention.ipynb": nb})
    assert "time budget of 4 s spent" in stdout
    assert results["score"] == 0 and len(results["tests"]) == len(check_metas(ATTENTION))
    assert all("did not finish within 4 s" in t["output"] for t in results["tests"])


def _copy_root(container, tmp_path, **config):
    root = tmp_path / "autograder"
    shutil.copytree(container["root"], root, symlinks=True)
    path = root / "source" / "config.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **config}))
    (root / "submission").mkdir(exist_ok=True)
    for p in (root / "submission").iterdir():
        p.unlink() if p.is_file() else shutil.rmtree(p)
    nbformat.write(filled_notebook(ATTENTION), root / "submission" / "attention.ipynb")
    (root / "submission_metadata.json").write_text(json.dumps({"users": [{"sid": "s1"}]}))
    return root


def _no_bwrap(limits):
    return "bwrap: setting up uid map: Permission denied" if limits.confine else None


@pytest.mark.slow
def test_sandbox_that_cannot_start_fails_closed(container, tmp_path, monkeypatch):
    root = _copy_root(container, tmp_path)
    monkeypatch.setattr(gradescope_container, "sandbox_problem", _no_bwrap)
    gradescope_container.grade_submission(root, tmp_path / "out.json")
    results = json.loads((tmp_path / "out.json").read_text())
    assert results["score"] == 0 and len(results["tests"]) == len(check_metas(ATTENTION))
    assert all("sandbox could not start" in t["output"] for t in results["tests"])


@pytest.mark.slow
def test_unconfined_is_an_explicit_build_option(container, tmp_path, monkeypatch):
    root = _copy_root(container, tmp_path, unconfined=True)
    monkeypatch.setattr(gradescope_container, "sandbox_problem", _no_bwrap)
    gradescope_container.grade_submission(root, tmp_path / "out.json")
    results = json.loads((tmp_path / "out.json").read_text())
    assert results["score"] == ATTENTION_POINTS
    assert results["extra_data"]["confinement"].startswith("none")


@pytest.mark.slow  # slow tier (docs/development.md): builds a Gradescope bundle
def test_the_setuid_level_grades_with_course_files_readable_by_root_only(container, tmp_path, monkeypatch):
    """Forced to the setuid level (as in a container where bubblewrap cannot start): full marks,
    the level in extra_data, and every file of the bundle readable by root only beforehand."""
    root = _copy_root(container, tmp_path)
    monkeypatch.setenv("AUTOGRADER_CONFINEMENT", "setuid")
    gradescope_container.grade_submission(root, tmp_path / "out.json")
    results = json.loads((tmp_path / "out.json").read_text())
    assert results["score"] == ATTENTION_POINTS, results["output"]
    assert results["extra_data"]["confinement_level"] == "setuid"
    assert results["extra_data"]["confinement"].startswith("setuid+seccomp")
    project = root / "source" / "project"
    for path in (project / ".course_secret", project / "exercises" / "attention" / "checks.py",
                 project / "solutions" / "attention.py", root / "source" / "config.json",
                 root / "submission" / "attention.ipynb"):
        assert os.stat(path).st_mode & 0o077 == 0, path


# -- building --------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("name", list(EXERCISES))
def test_every_assignment_builds(name, tmp_path):
    exercise = EXERCISES[name]
    path = gradescope.build_bundle(name, tmp_path, SECRET, randomized_visibility="hidden")
    assert path.name == f"{name}-autograder.zip"
    with zipfile.ZipFile(path) as zf:
        config = json.loads(zf.read("config.json"))
        assert f"project/exercises/{name}/checks.py" in zf.namelist()
    assert list(config["tests"]) == [m.name for m in check_metas(exercise)]
    assert set(config["tests"].values()) == {"visible", "hidden"}  # worked values and randomized cases
    assert config["assignment"] == name and config["unconfined"] is False


def test_build_rejects_bad_options(tmp_path):
    with pytest.raises(ValueError):
        gradescope.build_bundle("attention", tmp_path, SECRET, randomized_visibility="later")
    with pytest.raises(ValueError):
        gradescope.build_bundle("attention", tmp_path, SECRET, time_budget=0)
    with pytest.raises(KeyError):
        gradescope.build_bundle("no_such_assignment", tmp_path, SECRET)


def test_command_line_builds_the_zip(tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("cli-gradescope-secret\n")
    proc = subprocess.run([sys.executable, "-m", "autograder", "gradescope", "embeddings", "--out",
                           str(tmp_path / "gs"), "--secret-file", str(secret), "--randomized-visibility",
                           "after_due_date", "--student-id-field", "email"],
                          cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    with zipfile.ZipFile(tmp_path / "gs" / "embeddings-autograder.zip") as zf:
        config = json.loads(zf.read("config.json"))
        assert zf.read("project/.course_secret").strip() == b"cli-gradescope-secret"
    assert "after_due_date" in config["tests"].values()
    assert config["student_id_fields"] == ["email", "sid", "id"]


@pytest.mark.slow
def test_results_written_even_if_gradescope_stops_the_run(container, tmp_path):
    """Gradescope's own timeout kills run_autograder: the results.json written at the start stays."""
    import psutil
    root = _copy_root(container, tmp_path)
    nb = filled_notebook(ATTENTION)
    nb.cells.insert(0, nbformat.v4.new_code_cell("forever = sum(1 for _ in iter(int, 1))"))
    nbformat.write(nb, root / "submission" / "attention.ipynb")
    shutil.rmtree(root / "results", ignore_errors=True)
    proc = subprocess.Popen([str(root / "run_autograder")], cwd=root, env=_env(root),
                            stdout=subprocess.DEVNULL, start_new_session=True)
    time.sleep(3)
    everything = [psutil.Process(proc.pid), *psutil.Process(proc.pid).children(recursive=True)]
    for p in everything:
        p.kill()
    psutil.wait_procs(everything, timeout=10)
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 0 and len(results["tests"]) == len(check_metas(ATTENTION))
    assert all("did not finish within 420 s" in t["output"] for t in results["tests"])


@pytest.mark.slow
def test_results_written_even_if_python_cannot_start(container, tmp_path):
    root = _copy_root(container, tmp_path)
    (root / "source" / ".python").write_text("/nonexistent/python3\n")
    shutil.rmtree(root / "results", ignore_errors=True)
    proc = subprocess.run([str(root / "run_autograder")], cwd=root, env=_env(root), capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode != 0
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 0 and "could not start" in results["output"]
    assert results["stdout_visibility"] == "hidden"


@pytest.mark.slow
def test_setup_rebuilds_a_venv_made_by_another_python(container, tmp_path):
    """A .venv left by another interpreter (here one that claims to be 2.7.18) is made again
    with a Python of 3.10 or newer; with installs switched off, setup then stops at the
    missing requirements instead of grading with the wrong interpreter."""
    source = tmp_path / "source"
    shutil.copytree(container["root"] / "source", source, symlinks=True, ignore=shutil.ignore_patterns(".venv", ".python"))
    fake = source / ".venv" / "bin" / "python"
    fake.parent.mkdir(parents=True)
    fake.write_text("#!/bin/sh\necho '2.7.18 (default)'\n")
    fake.chmod(0o755)
    env = {k: v for k, v in _env(tmp_path).items() if k != "AUTOGRADER_PYTHON"}
    env["AUTOGRADER_SKIP_INSTALL"] = "1"
    proc = subprocess.run(["bash", str(source / "setup.sh")], cwd=source, env=env, capture_output=True, text=True,
                          timeout=600)
    assert "rebuilding .venv: it was made by another Python" in proc.stdout, proc.stdout + proc.stderr
    version = subprocess.run([str(fake), "-c", "import sys; print(sys.version_info >= (3, 10))"],
                             capture_output=True, text=True, timeout=60)
    assert version.stdout.strip() == "True", version.stderr
    assert proc.returncode == 1 and "requirements missing and AUTOGRADER_SKIP_INSTALL=1" in proc.stdout
