"""``plugin.CheckSession``: a grading worker's one pytest session per exercise, whose checks
are collected once and run again for each notebook, must grade exactly as one pytest run per
notebook does: the same checks, points and feedback, notebook after notebook, whatever the
previous notebook was (a reference, a catalogued mistake, an empty notebook)."""
import importlib

import pytest

from autograder.checks import helpers, plugin, results
from autograder.core.registry import EXERCISES
from autograder.demo.mistakes import all_mistakes
from autograder.submission.local import LocalSubmission

SECRET = b"check-session-test"


def _with_mistake(mistake):
    namespace = dict(vars(importlib.import_module(f"solutions.{mistake.exercise}")))
    exec(compile(mistake.code, f"<{mistake.id}>", "exec"), namespace)
    return LocalSubmission(namespace)


def _graded(exercise, submission, **kwargs):
    return [(c.name, c.score, c.output) for c in plugin.run_checks(exercise, submission, "s001", SECRET, **kwargs)]


@pytest.mark.slow  # slow tier (docs/development.md): grades every exercise four ways, twice
def test_a_kept_session_grades_as_one_pytest_run_per_notebook(monkeypatch):
    # one mistake per exercise, between a reference and an empty notebook
    cases = []
    for name, exercise in EXERCISES.items():
        mistake = next(m for m in all_mistakes() if m.exercise == name)
        cases += [(exercise, lambda e=exercise: helpers.reference_submission(e), {}),
                  (exercise, lambda m=mistake: _with_mistake(m), {}),
                  (exercise, lambda: LocalSubmission({}), {}),
                  (exercise, lambda e=exercise: helpers.reference_submission(e), {"select": exercise.functions[0]})]
    monkeypatch.setattr(plugin, "_sessions", None)
    alone = [_graded(e, make(), **kw) for e, make, kw in cases]
    plugin.keep_sessions()
    assert plugin._sessions == {}
    kept = [_graded(e, make(), **kw) for e, make, kw in cases]
    assert set(plugin._sessions) == set(EXERCISES)  # one session per exercise, reused
    assert kept == alone
    # the mistakes did lose points, the references did not (the comparison above is not empty)
    assert any(score == 0 for graded in kept for _, score, _ in graded)
    assert all(score > 0 for _, score, _ in kept[0])


def test_a_session_whose_checks_cannot_be_collected_says_so(monkeypatch, tmp_path):
    broken = tmp_path / "checks.py"
    broken.write_text("import no_such_module_anywhere\n", encoding="utf-8")
    exercise = EXERCISES["attention"]
    fake = type("Broken", (), {"name": "broken", "checks_file": broken, "folder": tmp_path,
                               "helpers": {}, "functions": exercise.functions})()
    monkeypatch.setattr(plugin, "_sessions", {})
    with pytest.raises(results.GraderError):
        plugin.run_checks(fake, LocalSubmission({}), "s001", SECRET)
    with pytest.raises(results.GraderError):  # and again: the session stays broken, it does not hang
        plugin.run_checks(fake, LocalSubmission({}), "s001", SECRET)
