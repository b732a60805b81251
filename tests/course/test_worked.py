"""Do the references reproduce the figures the course text prints, and is the page that
shows them side by side (docs/worked-examples.md) current?"""
import pytest

from autograder.core import worked
from autograder.core.registry import EXERCISES


@pytest.mark.parametrize("name", list(EXERCISES))
def test_reference_reproduces_every_printed_figure(name):
    exercise = EXERCISES[name]
    values = worked.worked_values(exercise)
    assert all(isinstance(w, worked.Worked) for w in values), f"exercises/{name}/worked.py: WORKED holds non-Worked"
    assert all(w.source.text in (worked.FROM_SCRATCH, worked.FOUNDATIONS) and w.source.section for w in values)
    ref = worked.reference(exercise)
    for w in values:
        value = w.value(ref)
        if w.erratum:  # the text prints a wrong figure: the reference must not copy it
            assert not w.agrees(value) and w.note, (w.what, value, w.printed)
        else:
            assert w.agrees(value), (w.what, value, w.printed)


def test_agreement_is_to_the_printed_rounding():
    w = worked.Worked("x", worked.Source(worked.FOUNDATIONS, "s"), [0.3302, 0.6698], lambda ref: None, tol=5e-5)
    assert w.agrees([0.330238, 0.669762])
    assert not w.agrees([0.268941, 0.731059])      # the weights without the sqrt(d_k) scaling
    assert not w.agrees([0.3302])                  # a missing entry
    assert worked.Worked("x", w.source, ["str", "aw", "berry"], None).agrees(["str", "aw", "berry"])
    assert not worked.Worked("x", w.source, ["str", "aw", "berry"], None).agrees(["straw", "berry"])


def test_the_page_is_generated_from_the_worked_values():
    assert worked.PAGE.read_text(encoding="utf-8") == worked.render(), \
        "docs/worked-examples.md is out of date: run python -m autograder build"
