"""A student environment on any shared server: ``scripts/student_env.sh``
installs the hub's environment for every user; a real unprivileged unix user, made for the
test and removed at its end, fetches, validates and submits with it alone, and cannot import
the course's solutions or grader from it. Needs root (it creates the user), as CI runs."""
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest

from autograder.core.registry import EXERCISES, PROJECT_ROOT
from autograder.demo.fill import filled_notebook

ATTENTION = EXERCISES["attention"]


def test_the_students_page_says_how_to_reach_the_environment():
    page = (PROJECT_ROOT / "docs" / "students.md").read_text(encoding="utf-8")
    assert ". /opt/lm-reads-text/student-env.sh" in page
    assert "sudo bash scripts/student_env.sh" in (PROJECT_ROOT / "docs" / "instructor.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_an_unprivileged_student_fetches_validates_and_submits_with_it(tmp_path, hub_prefix):
    """On the session's fresh hub prefix (``conftest.hub_prefix``), shared with the hub's tests."""
    if os.geteuid() != 0:
        pytest.fail("this test creates a unix user: run it as root (CI does)")
    from test_nbgrader_flow import _fresh_copy
    PREFIX = hub_prefix
    installed = subprocess.run(["bash", "scripts/student_env.sh"], cwd=PROJECT_ROOT, capture_output=True, text=True,
                               timeout=3600, env=dict(os.environ, HUB_PREFIX=str(PREFIX),
                                                      NBGRADER_EXCHANGE=str(PREFIX / "exchange")))
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert (PREFIX / "student-env.sh").stat().st_mode & 0o004  # readable by all
    exchange = Path(tempfile.mkdtemp(prefix="lmrt-exchange-", dir="/tmp"))
    course = Path(tempfile.mkdtemp(prefix="lmrt-course-", dir="/var/tmp"))
    user = f"lmrt{os.getpid() % 100000}"
    home = Path("/var/tmp") / user
    try:
        os.chmod(exchange, 0o777)
        _fresh_copy(course)
        teacher = dict({k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "NBGRADER"))},
                       PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
                       NBGRADER_EXCHANGE=str(exchange), HOME=str(tmp_path))
        for command in ("generate_assignment", "release_assignment"):
            done = subprocess.run(["nbgrader", command, ATTENTION.name], cwd=course, env=teacher,
                                  capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, done.stdout + done.stderr
        subprocess.run(["useradd", "--home-dir", str(home), "--create-home", "--shell", "/bin/bash", user], check=True)

        def as_student(line):
            """``line`` run by the student in their home, with only the shared environment."""
            proc = subprocess.run(["runuser", "-u", user, "--", "env", "-i", f"HOME={home}", "PATH=/usr/bin:/bin",
                                   f"NBGRADER_EXCHANGE={exchange}", "bash", "-c",
                                   f". {PREFIX}/student-env.sh && cd ~ && {line}"],
                                  capture_output=True, text=True, timeout=900)
            return proc.returncode, proc.stdout + proc.stderr

        assert as_student("command -v python nbgrader") == (0, f"{PREFIX}/venv/bin/python\n{PREFIX}/venv/bin/nbgrader\n")
        for module in ("solutions", "autograder"):  # nothing of the course in the students' environment
            code, said = as_student(f"python -c 'import {module}'")
            assert code != 0 and f"No module named '{module}'" in said, module
        code, said = as_student(f"nbgrader fetch_assignment {ATTENTION.name}")
        assert code == 0, said
        notebook = home / ATTENTION.name / ATTENTION.notebook
        nbformat.write(filled_notebook(ATTENTION), notebook)  # the student's finished work
        uid = pwd.getpwnam(user).pw_uid
        os.chown(notebook, uid, pwd.getpwnam(user).pw_gid)
        code, said = as_student(f"nbgrader validate {ATTENTION.name}/{ATTENTION.notebook}")
        assert code == 0 and "Success! Your notebook passes all the tests." in said, said
        code, said = as_student(f"nbgrader submit {ATTENTION.name}")
        assert code == 0, said
        inbound = list((exchange / "lm-reads-text" / "inbound").glob(f"{user}+{ATTENTION.name}+*"))
        assert len(inbound) == 1 and inbound[0].stat().st_uid == uid
        assert (inbound[0] / ATTENTION.notebook).read_bytes() == notebook.read_bytes()
    finally:
        subprocess.run(["userdel", "--remove", user], capture_output=True)
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(course, ignore_errors=True)
        shutil.rmtree(exchange, ignore_errors=True)
