"""Which confinement level grades here: bubblewrap first, then the setuid level, else none.

Two levels run a submission's child (``docs/containers.md`` says what each hides):

* ``"bubblewrap"``: ``bubblewrap.Sandbox``, the policy of ``sandbox/policy.py`` (namespaces, an
  empty root with read-only binds, seccomp, Landlock, limits). Needs user namespaces and a
  new ``/proc``, which a container started with a runtime's defaults refuses.
* ``"setuid"``: ``setuid.SetuidSandbox`` (a uid and gid of its own, no supplementary
  groups, ``no_new_privs``, the same seccomp allow-list and limits, Landlock where the kernel
  has it, a private scratch folder). Needs a grader running as root (as in a container).

``choose(forced)`` tries them in that order (or only ``forced``) by starting a test child of
each (``check_level``); grading fails closed when none starts. The level used is recorded in
every results.json (``extra_data``) and grades.csv (``NotebookResult.confinement``).
"""
from __future__ import annotations

LEVELS = ("bubblewrap", "setuid")
CHOICES = ("auto", *LEVELS)  # what --confinement accepts


class NoLevel(RuntimeError):
    """No confinement level can start here; ``problems`` maps each level tried to why."""

    def __init__(self, problems):
        self.problems = dict(problems)
        super().__init__("; ".join(f"{level}: {why}" for level, why in self.problems.items()))


def check_level(level: str, extra: tuple = ()):
    """Why ``level`` cannot start a child here (``str``), or ``None`` when it can.

    Args:
        level: one of ``LEVELS``.
        extra: paths the setuid level's test child must not be able to read (``tuple``).
    Raises:
        ValueError: an unknown level.
    """
    if level == "bubblewrap":
        from autograder.sandbox.bubblewrap import check_available
        return check_available()
    if level == "setuid":
        from autograder.sandbox.setuid import check_available
        return check_available(tuple(str(p) for p in extra))
    raise ValueError(f"unknown confinement level {level!r}: one of {', '.join(LEVELS)}")


def choose(forced: str | None = None, extra: tuple = ()):
    """The first level that starts here, in the order of ``LEVELS`` (or ``forced`` alone).

    Args:
        forced: ``None`` or "auto" (try each), or a name from ``LEVELS``.
        extra: see ``check_level``.
    Returns:
        ``(level, problems)``: the level's name (``str``) and ``{level: why}`` for the
        levels tried before it that could not start.
    Raises:
        NoLevel: none of the levels tried starts.
    """
    order = LEVELS if forced in (None, "auto") else (forced,)
    problems: dict[str, str] = {}  # level -> why it does not start
    for level in order:
        problem = check_level(level, extra)
        if problem is None:
            return level, problems
        problems[level] = problem
    raise NoLevel(problems)


def new_sandbox(limits):
    """A ``bubblewrap.Sandbox`` or ``setuid.SetuidSandbox`` for ``limits.level``
    (``None``: the level ``choose()`` picks here).

    Raises:
        NoLevel: ``limits.level`` is None and no level starts here.
        RuntimeError/OSError/ValueError: the level's sandbox cannot be prepared.
    """
    level = getattr(limits, "level", None)
    if level in (None, "auto"):
        level, _ = choose()
    if level == "setuid":
        from autograder.sandbox.setuid import SetuidSandbox
        return SetuidSandbox(limits)
    if level == "bubblewrap":
        from autograder.sandbox.bubblewrap import Sandbox
        return Sandbox(limits)
    raise ValueError(f"unknown confinement level {level!r}: one of {', '.join(LEVELS)}")
