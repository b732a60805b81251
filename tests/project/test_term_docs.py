"""What a newcomer meets in a term (the README's ten lines, formgrader after grading, the Gradescope
zip, the demo's students, a new exercise's summary) is written where they look, and as it works."""
import re

import tomllib

from autograder.core.registry import PROJECT_ROOT
from autograder.course import scaffold as new
from autograder.demo.students import STUDENTS, role

README = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
DOCS = PROJECT_ROOT / "docs"


def _term(text, heading):
    """The first fenced block after ``heading``."""
    after = text.split(heading, 1)[1]
    return after.split("```bash\n", 1)[1].split("```", 1)[0]


def test_readme_term_activates_the_venv_and_is_quiet():
    term = _term(README, "## A term in ten lines")
    assert term.splitlines()[0].startswith(". .venv/bin/activate")
    assert "python -m autograder grade submitted/ --quiet" in term


def test_readme_says_what_the_test_command_installs_as_root():
    for thing in ("configurable-http-proxy", "chromium-driver", "unix users", "Slurm", "/opt"):
        assert thing in README, thing
    details = (DOCS / "development.md").read_text(encoding="utf-8")
    for thing in ("/opt/lmrt-hub-", "configurable-http-proxy", "chromium-driver", "slurm-wlm", "munge", "podman",
                  "unix users"):
        assert thing in details, thing


def test_gradescope_page_shows_how_to_try_the_zip():
    page = (DOCS / "gradescope.md").read_text(encoding="utf-8")
    scripts = "".join((PROJECT_ROOT / "autograder" / "gradescope" / "files" / f).read_text()
                      for f in ("setup.sh", "run_autograder"))
    for variable in ("AUTOGRADER_ROOT", "AUTOGRADER_PYTHON", "AUTOGRADER_SKIP_INSTALL"):
        assert variable in scripts and f"{variable}=" in _term(page, "## Try the zip before uploading"), variable


def test_no_page_shows_the_build_machines_paths():
    for page in DOCS.glob("*.md"):
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"(?<![\w$~.])/(work|root|home/\w+)/", text), page.name


def test_instructor_page_says_how_to_start_formgrader_and_autograde_after_grading():
    page = (DOCS / "instructor.md").read_text(encoding="utf-8")
    assert "jupyter lab --no-browser" in page and "Formgrader" in page
    assert "python -m autograder score <student> <name> <function> <points>" in page
    assert "nbgrader autograde --force <name>" in page and "Skipping existing assignment" in page
    assert "## Changing points during a term" in page


def test_the_demo_says_who_each_student_plays():
    assert role("ada").startswith("the reference solutions") and role("bo").startswith("the untouched stubs")
    assert "endless loop" in role("eve") and "import of the grader's solutions" in role("eve")
    for student, plan in STUDENTS.items():
        if isinstance(plan, list):
            assert all(m in role(student) for m in plan), student
    run = (PROJECT_ROOT / "autograder" / "demo" / "run.py").read_text(encoding="utf-8")
    assert "role(student)" in run


def test_a_new_exercise_summary_comes_from_its_title_or_summary(tmp_path):
    titled = new.create("layer_norm", "Layer normalisation", root=tmp_path)
    meta = tomllib.loads((titled / "exercise.toml").read_text(encoding="utf-8"))
    assert (meta["title"], meta["summary"]) == ("Layer normalisation", "Layer normalisation")
    summed = new.create("rms_norm", 'The "RMS" norm', root=tmp_path, summary="scaling by the root mean square")
    meta = tomllib.loads((summed / "exercise.toml").read_text(encoding="utf-8"))
    assert (meta["title"], meta["summary"]) == ('The "RMS" norm', "scaling by the root mean square")
