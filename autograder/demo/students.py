"""The demo class: who hands in what.

``ada`` hands in the reference solutions, ``bo`` the untouched stubs, and the others their own
code (``styles``: each writes every exercise in a style of their own) with realistic mistakes
planted in it: each name maps to mistake ids (``<exercise>-<label>``), at most one per function,
a mistake in every exercise. Who hands in which mistake is declared by each exercise (``DEMO`` in
``exercises/<name>/hand_ins.py``). ``eve`` also breaks things a grader must survive: an endless
loop and an attempt to import the grader's reference solutions; and she hands in a disguised copy
of cy's work in one exercise (``COPY``), the one near-copy the class report must show.
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
    # in a function no other function calls, so it costs only its own checks and masks no mistake
    "attention": {"project_qkv": '''
def project_qkv(X, W_Q, W_K, W_V):
    X = np.asarray(X, dtype=float)
    out, i = [None, None, None], 0
    while i < 3:         # i is never increased: never returns, the grader must stop it and go on
        out[i] = X @ np.asarray((W_Q, W_K, W_V)[i], dtype=float)
    return tuple(out)
'''},
    "embeddings": {"cosine_similarity": '''
def cosine_similarity(a, b):
    from solutions.embeddings import cosine_similarity as theirs   # not allowed
    return theirs(a, b)
'''},
}


# The planted near-copy: (copier, source, exercise): eve's next_token is cy's code with the names
# changed, comments added and statements and cells moved (styles/next_token.py).
COPY = ("eve", "cy", "next_token")


def role(student: str) -> str:
    """Who ``student`` plays in the demo, in a few words (printed by ``run.run``), e.g.
    ``"the reference solutions"`` or ``"3 realistic mistakes (attention-no_sqrt_scaling, ...)"``."""
    plan = STUDENTS[student]
    if plan == REFERENCE:
        return "the reference solutions (full marks)"
    if plan == STUBS:
        return "the untouched stubs (0 points)"
    text = f"own code with {len(plan)} realistic mistake(s): {', '.join(plan)}"
    if student == "eve":
        text += ("; also an endless loop (attention's project_qkv) and an import of the grader's solutions "
                 "(embeddings' cosine_similarity), which the grader must survive")
    copier, source, exercise = COPY
    if student == copier:
        text += f"; her {exercise} is {source}'s, disguised (the near-copy the class report shows)"
    return text
