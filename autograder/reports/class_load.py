"""The class report's input: every results.json under a graded folder (ours or Gradescope's), read as
``Entry`` records (``load``), with the late penalties of grades.csv and the mistakes the feedback names."""
from __future__ import annotations

import csv
import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

HISTOGRAM_BINS = 10  # tenths of the assignment's maximum score
_NONE: list = []  # the empty list of mistakes or problems every Outcome without any shares (never changed)


# The sentence ``api.expect_close`` / ``expect_equal`` write when a value matches named mistakes.
_MISTAKE_SENTENCE = re.compile(r"That is (?:the value|what) you get when you (.+?)\.?\s*$", re.S)
# A check of a function that is still the released stub (``limits.StudentCodeError.describe``).
_STUB_SENTENCE = "still raises NotImplementedError"
# The child's import blocker (``child/main.py``: ``_Blocker``) refusing the grader's packages; seen in a
# check's feedback (imported inside a function) or in the notebook's notes (imported in a cell).
_BLOCKED_IMPORT = re.compile(r"'((?:solutions|exercises|autograder)(?:\.[\w.]+)?)' is not available to submissions")
INTEGRITY_IMPORT = "tried to import {} (blocked)"


@dataclass(slots=True)
class Outcome:
    """One check of one results.json: ``name`` ("function: description"), ``function``,
    ``score`` and ``max_score`` (points, float), ``mistakes`` (names, list of str),
    ``problems`` (problem texts, list of str)."""
    name: str
    function: str
    score: float
    max_score: float
    mistakes: list = field(default_factory=list)
    problems: list = field(default_factory=list)
    stub: bool = False  # the function still raises NotImplementedError (the released stub)

    @property
    def passed(self):
        return self.score >= self.max_score


@dataclass(slots=True)
class Entry:
    """One student's results for one assignment (one results.json).

    Attributes: ``assignment``, ``student`` (str); ``score``, ``max_score`` (points, float);
    ``tests`` (list of ``Outcome``); ``problems`` (set of problem texts as in grades.csv);
    ``late`` (``{grades.csv column: value}`` of late work, empty when on time);
    ``link`` (``Path`` of the student's report.html, else of the results.json; None: no link).
    """
    assignment: str
    student: str
    score: float
    max_score: float
    tests: list
    problems: set = field(default_factory=set)
    late: dict = field(default_factory=dict)
    link: Path | None = None
    href: str | None = field(default=None, repr=False)  # the link as written in the page, once computed

    @property
    def not_attempted(self) -> bool:
        """Every check failed on a function that is still the released stub (nothing was tried)."""
        return bool(self.tests) and all(t.stub and not t.passed for t in self.tests)


def mistakes_in(output: str) -> list[str]:
    """The mistake names in one check's feedback ("... That is the value you get when you A
    (or when you B)."), as a list of str; [] when it names none."""
    found = _MISTAKE_SENTENCE.search(output or "")
    if not found:
        return []
    text = found.group(1).strip()
    parts = text.split(" (or when you ")
    if len(parts) > 1 and text.endswith(")" * (len(parts) - 1)):
        parts[-1] = parts[-1][:len(parts[-1]) - (len(parts) - 1)]
    return [p.strip() for p in parts if p.strip()]


def _problems_of_text(output):
    """Problems told by feedback text alone (a results.json without ``extra_data``)."""
    text = (output or "").lower()
    found = []
    if "grader error" in text:
        found.append("grader error")
    if "did not return within" in text:
        found.append("timeout")
    return found


def integrity_events(text) -> list[str]:
    """Integrity events told by a feedback text: attempted imports of the grader's own packages
    (the reference solutions, the course's checks, the grader), as problem texts; [] when none."""
    return [INTEGRITY_IMPORT.format(name) for name in dict.fromkeys(_BLOCKED_IMPORT.findall(text or ""))]


def shown_name(name) -> str:
    """A student or assignment name as the page and the CSVs show it: a folder name's bytes read as
    UTF-8, any byte that is not UTF-8 written as ``\\xNN`` (so two names never look alike), controls
    escaped (``safetext.clean``)."""
    from autograder.core import safetext
    try:
        raw = os.fsencode(name)
    except (UnicodeError, TypeError):
        raw = str(name).encode("utf-8", "surrogateescape")
    return safetext.clean(raw.decode("utf-8", "backslashreplace"), safetext.ID_CHARS)


def _number(value, default=0.0):
    try:
        number = float(value)
    except (TypeError, ValueError):
        return default
    return number if number == number and abs(number) != float("inf") else default


def _late_columns(row):
    """The late-work columns of a grades.csv row that say it was late (value not empty, 0 or no)."""
    late = {}
    for key, value in row.items():
        if key and ("late" in key.lower() or "penalty" in key.lower()):
            text = (value or "").strip()
            if text and text.lower() not in ("0", "0.0", "no", "false", "on time", "-"):
                late[key] = text
    return late


def _entry(path, rel, data, assignment_hint):
    extra = data.get("extra_data") if isinstance(data.get("extra_data"), dict) else {}
    if len(rel) == 3 and rel[1] != "results":  # ours: <assignment>/<student>/results.json
        default_assignment, default_student = rel[0], rel[1]
    else:  # a folder of Gradescope results: <submission>/(results/)results.json
        folders = [p for p in rel[:-1] if p != "results"]
        default_assignment = assignment_hint or "assignment"
        default_student = folders[-1] if folders else path.stem
    tests = []
    for t in data.get("tests") or []:
        if not isinstance(t, dict):
            continue
        name = str(t.get("name", ""))
        t_extra = t.get("extra_data") if isinstance(t.get("extra_data"), dict) else {}
        function = str(t_extra.get("function") or (name.split(": ", 1)[0] if ": " in name else name))
        mistakes = t_extra.get("mistakes")
        mistakes = [str(m) for m in mistakes] if isinstance(mistakes, list) else mistakes_in(t.get("output"))
        problems = t_extra.get("problems")
        problems = [str(p) for p in problems] if isinstance(problems, list) else _problems_of_text(t.get("output"))
        output = str(t.get("output") or "")
        problems = problems + [p for p in integrity_events(output) if p not in problems]
        # names repeat in every student's entry: one copy each (a class's entries stay small)
        tests.append(Outcome(sys.intern(name), sys.intern(function), _number(t.get("score")),
                             _number(t.get("max_score")), [sys.intern(m) for m in mistakes] or _NONE,
                             problems or _NONE, _STUB_SENTENCE in output))
    max_score = sum(t.max_score for t in tests) or _number(data.get("max_score"))
    score = _number(data.get("score"), sum(t.score for t in tests))
    problems = set(str(p) for p in extra.get("problems") or [] if p) if isinstance(extra.get("problems"), list) \
        else set()
    for t in tests:
        problems |= set(t.problems)
    problems |= set(integrity_events(str(data.get("output") or "")))
    late = {str(k): str(v) for k, v in extra.items()
            if ("late" in str(k).lower() or "penalty" in str(k).lower()) and v not in (None, "", 0, False, [], {})}
    return Entry(str(extra.get("assignment") or assignment_hint or default_assignment),
                 str(extra.get("student_id") or default_student), score, max_score, tests, problems, late)


def load(graded_dir, assignment: str | None = None) -> tuple:
    """Read the class's results under ``graded_dir``.

    Args:
        graded_dir: a grading output folder (``<assignment>/<student>/results.json`` and
            grades.csv), or a folder of Gradescope results.json files.
        assignment: the assignment name for results.json files that do not say it (Gradescope's
            of an older build); None: from ``extra_data`` or the folder layout.
    Returns:
        ``(entries, notes)``: ``Entry`` list sorted by assignment and student, and notes (str)
        about files that were skipped.
    """
    listing = Listing(graded_dir, assignment)
    entries = list(listing.entries())
    return entries, listing.notes


def read_grades_merge(path) -> dict:
    """What ``Listing.entries`` takes from grades.csv: ``{(student, assignment): (late, listed)}`` of
    the rows that say some late work (``late``: ``{column: value}``) or some problems (``listed``: a
    frozenset of texts; equal sets are one object); a row saying neither is left out, as a row whose
    key a later row repeats (the last row counts). {} when absent or unreadable. Read a row at a time:
    a few small objects a flagged notebook, not a dict a row."""
    found: dict = {}
    shared: dict = {}  # one object per distinct set of problems (a class has few)
    try:
        with open(path, newline="", encoding="utf-8") as f:
            for r in csv.DictReader(f):
                key = (sys.intern(r.get("student_id", "")), sys.intern(r.get("assignment_id", "")))
                late = _late_columns(r)
                listed = frozenset(p.strip() for p in re.split(r";\s+(?![^(]*\))", r.get("problems") or "")
                                   if p.strip())
                if late or listed:
                    found[key] = (late, shared.setdefault(listed, listed))
                else:
                    found.pop(key, None)
    except (OSError, UnicodeDecodeError, csv.Error):
        return {}
    return found


class Listing:
    """The class's results.json files under ``graded_dir`` in the order ``load`` gives their entries,
    read one at a time (``entries``) as often as a caller needs: the class report and the students'
    paths go over a class without holding an ``Entry`` per notebook (about 3.6 KB each).

    Built by reading every file once (which student and assignment it is, which are repeats).
    Held: per notebook ``(assignment, student, folder, has_report)`` (names as shown, interned;
    ``folder`` relative to ``graded_dir``, a str: about 150 bytes), and of grades.csv what changes
    an entry (``read_grades_merge``).

    Attributes: ``root`` (``Path``), ``rows`` (the tuples above, sorted), ``notes`` (files skipped, str).
    Args: graded_dir, assignment: as ``load``. grades: read grades.csv (``False``: entries without its
        late work and problems, which the students' paths do not need).
    """

    def __init__(self, graded_dir, assignment: str | None = None, grades: bool = True):
        self.root, self.assignment = Path(graded_dir), assignment
        self.notes: list = []
        found = []
        for here, dirs, files in os.walk(self.root):
            dirs[:] = [d for d in dirs if not d.startswith(".")]  # .resume/ and the like
            if "results.json" in files:
                rel = Path(here).relative_to(self.root).parts + ("results.json",)
                found.append((rel, "report.html" in files))
        found.sort()
        seen: dict[tuple[str, str], str] = {}  # (assignment, student) -> the results.json shown
        rows = []
        for rel, has_report in found:
            shown = "/".join(rel)
            entry = self._read(rel)
            if entry is None:
                continue
            key = (entry.assignment, entry.student)
            if key in seen:
                self.notes.append(f"{shown}: a second results.json of {entry.student} for "
                                  f"{entry.assignment}; the first ({seen[key]}) is shown")
                continue
            seen[key] = shown
            rows.append((sys.intern(shown_name(entry.assignment)), sys.intern(shown_name(entry.student)),
                         os.path.join(*rel[:-1]) if len(rel) > 1 else "", has_report))
        del seen, found
        rows.sort(key=lambda r: (r[0], r[1]))
        self.rows = rows
        self.grades = read_grades_merge(self.root / "grades.csv") if grades else {}

    def _read(self, rel, note: bool = True):
        """The ``Entry`` of the results.json at ``rel`` (its path's parts under ``root``), as read
        (names as the file says them, no link); ``None`` when it cannot be read (noted)."""
        path = self.root.joinpath(*rel)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            return _entry(path, rel, data, self.assignment)
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            if note:
                self.notes.append(f"skipped {'/'.join(rel)}: {exc}")
            return None

    def __len__(self) -> int:
        return len(self.rows)

    def link(self, k: int) -> Path:
        """The ``Entry.link`` of row ``k``: its report.html, else its results.json."""
        _, _, folder, has_report = self.rows[k]
        return self.root / folder / ("report.html" if has_report else "results.json")

    def entries(self):
        """Each row's ``Entry`` in order, read again from its file, as ``load`` gives it: grades.csv's
        late work and problems merged, names as shown, ``link`` set. A file that cannot be read
        now is left out (noted)."""
        for k, (_, _, folder, _) in enumerate(self.rows):
            rel = (*Path(folder).parts, "results.json")
            entry = self._read(rel)
            if entry is None:
                continue
            merged = self.grades.get((entry.student, entry.assignment))
            if merged is not None:
                late, listed = merged
                entry.late = {**entry.late, **late}
                # grades.csv may say more ("several notebooks (not counted: ...)") or know more (added columns)
                entry.problems = {p for p in entry.problems if not any(q.startswith(p + " (") for q in listed)} \
                    | listed
            # shown and written as text, whatever bytes the folder's name holds
            entry.student, entry.assignment = shown_name(entry.student), shown_name(entry.assignment)
            entry.link = self.link(k)
            yield entry
