"""The demo class: who hands in what.

``ada`` hands in the reference solutions, ``bo`` the untouched stubs, and the others
realistic mistakes: each name maps to mistake ids (``<exercise>-<label>``), at most one per
function; every other function is the reference. Who hands in which mistake is declared by
each exercise (``DEMO`` in ``exercises/<name>/hand_ins.py``).
``eve`` also breaks things a grader must survive: an endless loop and an attempt to
import the grader's reference solutions.
"""
from autograder.core.registry import EXERCISES
from autograder.demo.mistakes import mistakes_module

REFERENCE = "reference"
STUBS = "stubs"


def _students():
    students = {"ada": REFERENCE, "bo": STUBS}
    for exercise in EXERCISES.values():
        for student, labels in getattr(mistakes_module(exercise), "DEMO", {}).items():
            students.setdefault(student, []).extend(f"{exercise.name}-{label}" for label in labels)
    return students


STUDENTS = _students()

# Hostile code handed in by "eve" on top of her mistakes (exercise -> {function: code}).
HOSTILE = {
    "attention": {"causal_mask": '''
def causal_mask(T):
    while True:          # never returns: the grader must stop it and go on
        pass
'''},
    "embeddings": {"cosine_similarity": '''
def cosine_similarity(a, b):
    from solutions.embeddings import cosine_similarity as theirs   # not allowed
    return theirs(a, b)
'''},
}


def role(student: str) -> str:
    """Who ``student`` plays in the demo, in a few words (printed by ``run.run``), e.g.
    ``"the reference solutions"`` or ``"3 realistic mistakes (attention-no_sqrt_scaling, ...)"``."""
    plan = STUDENTS[student]
    if plan == REFERENCE:
        return "the reference solutions (full marks)"
    if plan == STUBS:
        return "the untouched stubs (0 points)"
    text = f"{len(plan)} realistic mistake(s): {', '.join(plan)}"
    if student == "eve":
        text += ("; also an endless loop (attention's causal_mask) and an import of the grader's solutions "
                 "(embeddings' cosine_similarity), which the grader must survive")
    return text
