"""The generated parts of the documentation, written from the code that defines them.

Two tables would drift if typed by hand, so they are generated between marker comments:

* ``docs/grading.md``, ``<!-- generated: limits -->``: every field of ``limits.Limits``, its
  default and what it bounds (from the class's ``Attributes:`` docstring), and
  ``<!-- generated: fixed-limits -->``: the constants of ``FIXED_LIMITS``;
* ``docs/confinement.md``, ``<!-- generated: policy -->``: bubblewrap's namespace and
  privilege options (``policy.bwrap_args``), the seccomp allow-list
  (``policy.ALLOWED_SYSCALLS`` and the calls allowed only with certain arguments).

``python -m autograder build`` writes them (``course/build.py`` owns the one write and ``--check`` loop);
``tests/course/test_docs.py`` runs the check.
"""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"
END = "<!-- end generated -->"


def _attribute_docs(cls):
    """``{name: description}`` from the ``Attributes:`` section of ``cls``'s docstring
    (``name: text`` lines, continued on more deeply indented lines; ``a, b: text`` names two)."""
    docs, current = {}, None
    lines = (cls.__doc__ or "").split("Attributes:", 1)[-1].splitlines()
    for line in lines:
        m = re.match(r"^ {8}([\w, ]+): (.*)$", line)
        if m:
            current = [n.strip() for n in m.group(1).split(",")]
            for name in current:
                docs[name] = m.group(2).strip()
        elif current and line.startswith(" " * 12):
            for name in current:
                docs[name] += " " + line.strip()
    return docs


def _amount(name, value):
    """A default as a reader wants it: 1 GiB, 64 MiB, 10 s, yes."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if name.lower().endswith("_bytes"):
        for unit, size in (("GiB", 1024 ** 3), ("MiB", 1024 ** 2), ("KiB", 1024)):
            if value >= size and value % size == 0:
                return f"{value // size} {unit}"
        return f"{value} bytes"
    if name.endswith("_seconds"):
        return f"{value:g} s"
    if name.endswith("_CHARS"):
        return f"{value} characters"
    return f"{value:g}" if isinstance(value, float) else str(value)


def limits_table() -> str:
    """The Markdown table of ``Limits``: one row per field, in declaration order."""
    from autograder.sandbox.limits import Limits
    docs = _attribute_docs(Limits)
    rows = ["| `Limits` field | default | what it bounds |", "|---|---|---|"]
    for f in dataclasses.fields(Limits):
        text = docs.get(f.name, "").replace("|", "\\|").replace("``", "`")
        text = re.sub(r" \((seconds|bytes)\)|; seconds(?=\))", "", text)  # the default column has the unit
        rows.append(f"| `{f.name}` | {_amount(f.name, f.default)} | {text} |")
    return "\n".join(rows)


# Constants outside ``Limits`` that bound a submission: (module, name, what it bounds).
FIXED_LIMITS = (
    ("submission.files", "MAX_FILE_BYTES", "largest submitted file read at all (a larger one is refused unread)"),
    ("submission.files", "MAX_CODE_BYTES", "code of one notebook, all code cells together (saved outputs not counted)"),
    ("grading.workers", "MAX_NOTEBOOKS_PER_EXERCISE", "notebooks of one exercise graded for one student (copies beyond are named, not graded)"),
    ("checks.api", "WORKED_ATOL", "absolute tolerance on the course's worked values"),
    ("core.safetext", "MESSAGE_CHARS", "characters of one message or value from a submission shown in feedback"),
    ("child.wire", "MAX_DEPTH", "nesting depth of an answer from the child"),
)


def fixed_limits_table() -> str:
    """The Markdown table of ``FIXED_LIMITS`` with their values, read from the modules."""
    import importlib
    rows = ["| constant | value | what it bounds |", "|---|---|---|"]
    for module, name, text in FIXED_LIMITS:
        value = getattr(importlib.import_module(f"autograder.{module}"), name)
        rows.append(f"| `{module}.{name}` | {_amount(name, value)} | {text} |")
    return "\n".join(rows)


def policy_lists() -> str:
    """Markdown lists of the sandbox's bubblewrap options and its seccomp allow-list."""
    from autograder.sandbox import policy as confinement
    from autograder.sandbox.limits import Limits
    args = confinement.bwrap_args([], Limits(), 3, 4)[1:]
    options = []
    for i, a in enumerate(args):
        if a == "--size":
            break
        if a.startswith("--"):
            options.append(f"`{a} {args[i + 1]}`" if i + 1 < len(args) and not args[i + 1].startswith("--")
                           else f"`{a}`")
    lines = ["bubblewrap options: " + ", ".join(options) + ".", "",
             f"System calls allowed by name ({len(confinement.ALLOWED_SYSCALLS)}): "
             + ", ".join(f"`{s}`" for s in sorted(confinement.ALLOWED_SYSCALLS)) + ".", "",
             "Allowed only with certain arguments: `clone` (a thread: `CLONE_THREAD`, no namespace flag), "
             "`prlimit64` (this process only), `ioctl` ("
             + ", ".join(f"`{k}`" for k in confinement.IOCTLS) + "), `prctl` ("
             + ", ".join(f"`{k}`" for k in confinement.PRCTLS) + "); `clone3` answers ENOSYS. "
             "Everything else fails with EPERM; a call of another architecture kills the process."]
    return "\n".join(lines)


SECTIONS = {"grading.md": {"limits": limits_table, "fixed-limits": fixed_limits_table},
            "confinement.md": {"policy": policy_lists}}


def render(text: str, generators) -> str:
    """``text`` with each ``<!-- generated: NAME -->`` ... ``<!-- end generated -->`` section
    refilled by ``generators[NAME]()``.

    Raises:
        ValueError: a section the page lacks, or one without its end marker.
    """
    for name, make in generators.items():
        start = f"<!-- generated: {name} -->"
        if start not in text:
            raise ValueError(f"no {start} section")
        head, rest = text.split(start, 1)
        if END not in rest:
            raise ValueError(f"{start} has no {END}")
        tail = rest.split(END, 1)[1]
        text = f"{head}{start}\n{make()}\n{END}{tail}"
    return text


def stale_pages(docs=DOCS, write: bool = False) -> list[str]:
    """Names of the pages whose generated sections differ from the code (rewritten when ``write``)."""
    stale = []
    for page, generators in SECTIONS.items():
        path = Path(docs) / page
        text = path.read_text(encoding="utf-8")
        new = render(text, generators)
        if new != text:
            stale.append(page)
            if write:
                path.write_text(new, encoding="utf-8")
    return stale


def generated_pages(docs=DOCS) -> dict:
    """``{Path: text}`` of every page with generated sections, as the code renders it now."""
    return {Path(docs) / page: render((Path(docs) / page).read_text(encoding="utf-8"), generators)
            for page, generators in SECTIONS.items()}
