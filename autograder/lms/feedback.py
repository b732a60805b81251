"""The feedback a student reads beside a grade in the LMS: what the grader found, in sentences.

Written into Moodle's feedback column (CSV) and ``<feedback>`` element (XML); Canvas's,
Brightspace's and Blackboard's grade imports take no feedback (docs/lms.md). Every sentence
stands on its own (it names its function; it points to no report the LMS does not show) and
appears once, in this order:

1. the points: ``12 of 19 points.``, or, when the LMS item has another maximum,
   ``12 of 19 course points (63.16 of 100 in this grade item).``;
2. one sentence per named mistake: ``In attention_row, your result is the one you get when
   you forget to divide the scores by sqrt(d_k).``;
3. each function that lost points without a named mistake, with its failed checks:
   ``softmax lost 3 of 3 points (failed checks: sums to one).``, or, for a function handed in
   as released, ``softmax is still the stub that raises NotImplementedError (3 of 3 points lost).``;
4. each grader's score that counts instead of the checks' points, and the late penalty.

A student without a submission gets no sentence (their cell is left out), or, when the
instructor asks for zeros, ``No submission was graded for this item.``
"""
from __future__ import annotations

import re

from autograder.lms.graded import Grade, number

NOT_SUBMITTED = "No submission was graded for this item."
MOST_CHECKS = 5  # failed checks named per function; more are counted
_OVERRIDE = re.compile(r"^(?P<cell>.+?): manual (?P<manual>\S+) replaces automatic (?P<automatic>\S+)(?P<rest>.*)$")


def sentences(grade: Grade | None, value: float | None = None, item_max: float | None = None) -> list:
    """The feedback of one student's assignment, one sentence per entry, each once.

    Args:
        grade: the ``graded.Grade`` (None, or a score of None: not submitted, no sentence).
        value: the grade as written in the LMS file (``table.Table.value``), for the points
            sentence when the LMS item's maximum differs from the course's points.
        item_max: the LMS item's maximum points (``graded.Item.max``).
    Returns:
        list of ``str``.
    """
    if grade is None or grade.score is None:
        return []
    out = []
    points = f"{number(grade.score)} of {number(grade.max_score)}"
    if item_max is not None and value is not None and abs(item_max - grade.max_score) > 1e-9:
        out.append(f"{points} course points ({number(value)} of {number(item_max)} in this grade item).")
    else:
        out.append(f"{points} points.")
    named = set()
    texts = [(f, m.strip().rstrip(".").strip()) for f, m in grade.mistakes]
    for function, mistake in texts:
        # one misconception met by two checks, once with a value added ("...; W_U[sat, 0] would be 0.65"): once
        if any(f == function and other != mistake and other.startswith(mistake) for f, other in texts):
            continue
        named.add(function)
        out.append(f"In {function}, your result is the one you get when you {mistake}.")
    for lost in grade.failed:
        if lost.function in named:
            continue
        points = f"{number(lost.available - lost.earned)} of {number(lost.available)} points"
        if lost.stub:
            out.append(f"{lost.function} is still the stub that raises NotImplementedError ({points} lost).")
            continue
        text = f"{lost.function} lost {points}"
        shown = [c.split(": ", 1)[1] if c.startswith(f"{lost.function}: ") else c for c in lost.checks]
        if shown:
            more = len(shown) - MOST_CHECKS
            text += " (failed checks: " + "; ".join(shown[:MOST_CHECKS]) + (f"; and {more} more" if more > 0 else "") + ")"
        out.append(text + ".")
    for override in filter(None, (o.strip() for o in grade.overrides.split("; "))):
        m = _OVERRIDE.match(override)
        if m:
            out.append(f"A grader gave {m['cell']} {m['manual']} points in place of the checks' "
                       f"{m['automatic']}{m['rest']}.")
        else:
            out.append(f"A grader's score counts in place of the checks' points: {override}.")
    if grade.late > 0:
        unit = "point" if number(grade.late) == "1" else "points"
        out.append(f"The course's late-work policy took {number(grade.late)} {unit}.")
    return list(dict.fromkeys(out))  # each sentence once, in order


def text(grade: Grade | None, value: float | None = None, item_max: float | None = None) -> str:
    """``sentences`` as one line (sentences separated by a space); "" when not submitted."""
    return " ".join(sentences(grade, value, item_max))
