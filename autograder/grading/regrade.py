"""Regrade what you name, keep the rest: merge one run's rows into the class's ``grades.csv``.

``python -m autograder grade submitted/<student>/<assignment>/`` (or a student's folder, a
notebook, several paths) grades only those notebooks. The class table must not shrink to
them: ``read_table`` takes the previous ``grades.csv`` before the run writes its own, and
``merge`` puts the previous rows of every (student, assignment) this run did not grade back
beside the new rows, then ``changes`` says what moved (old -> new score per notebook and
total). The class report (``class_report.write_all``) is rebuilt afterwards from every
``results.json`` on disk, so it shows the whole class as well.

Every cell of both tables was written by ``csvsafe`` already (the old file by an earlier run,
the new one by ``console.write_grades_csv``); rows are copied as read, never escaped twice.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

KEY = ("student_id", "assignment_id")
# Columns after the notebook columns, as console.write_grades_csv writes them.
TAIL = ("total", "max_score", "late", "score", "manual overrides", "late resubmission", "problems", "confinement")


@dataclass
class Table:
    """A grades.csv as read: ``header`` (column names) and ``rows`` (``{(student, assignment): row dict}``)."""
    header: list
    rows: dict


def read_table(path: Path | str) -> Table | None:
    """The grades.csv at ``path`` (``Table``), or ``None`` when there is none or it cannot be read
    (then the new table is written alone, as before)."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            rows = {(r.get("student_id", ""), r.get("assignment_id", "")): r for r in reader}
            return Table(list(reader.fieldnames or []), rows)
    except (OSError, UnicodeDecodeError, csv.Error):
        return None


@dataclass
class Change:
    """One row of this run compared with the previous table.

    Attributes: ``student``, ``assignment`` (ids as in grades.csv); ``old``, ``new``
    (``{column: text}`` of the notebook columns and ``total``/``score``; ``old`` is ``None`` for
    a row the previous table did not have).
    """
    student: str
    assignment: str
    old: dict | None
    new: dict

    def describe(self) -> str:
        """One line, e.g. ``ann/attention: attention.ipynb 19 -> 15; score 19 -> 15``."""
        where = f"{self.student}/{self.assignment}"
        if self.old is None:
            return f"{where}: " + "; ".join(f"{k} {v}" for k, v in self.new.items())
        moved = [f"{k} {self.old.get(k, '') or '(none)'} -> {v}" for k, v in self.new.items()
                 if self.old.get(k, "") != v]
        return f"{where}: " + ("; ".join(moved) if moved else "unchanged " + "; ".join(
            f"{k} {v}" for k, v in self.new.items()))

    @property
    def changed(self) -> bool:
        """True when a score of this row differs from the previous table (or the row is new)."""
        return self.old is None or any(self.old.get(k, "") != v for k, v in self.new.items())


def _scores(row: dict, header: list) -> dict:
    notebooks = [c for c in header if c not in KEY and c not in TAIL]
    return {c: row.get(c, "") for c in notebooks if row.get(c, "")} | {
        "total": row.get("total", ""), "score": row.get("score", "")}


def merge(previous: Table | None, path: Path | str) -> tuple[list, list]:
    """Put ``previous``'s rows not graded in this run back into the grades.csv at ``path``.

    Args:
        previous: the table before this run (``read_table``), or ``None``.
        path: the grades.csv this run just wrote (its rows: the notebooks graded now).
    Returns:
        ``(changes, kept)``: a ``Change`` per row of this run, in the file's order (none without
        ``previous``: ``summary_lines`` has nothing to say of a first table), and the
        ``(student, assignment)`` keys of the rows kept from ``previous``. ``path`` is
        rewritten only when rows were kept (columns: the union, notebooks sorted as
        ``console.write_grades_csv`` sorts them).
    """
    if previous is None:  # the first table: nothing to compare or keep (the new one is not read in)
        return [], []
    new = read_table(path)
    if new is None:
        return [], []
    changes = []
    for key, row in new.rows.items():
        old = previous.rows.get(key) if previous else None
        changes.append(Change(key[0], key[1], _scores(old, previous.header) if old else None,
                              _scores(row, new.header)))
    kept = [key for key in (previous.rows if previous else {}) if key not in new.rows]
    if not kept:
        return changes, []
    notebooks = sorted({c for c in [*previous.header, *new.header] if c not in KEY and c not in TAIL})
    header = [*KEY, *notebooks, *[c for c in TAIL if c in new.header or c in previous.header]]
    rows = {**{k: previous.rows[k] for k in kept}, **new.rows}
    tmp = Path(path).with_name(Path(path).name + ".tmp")
    with tmp.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, header, extrasaction="ignore")  # cells were escaped when first written
        writer.writeheader()
        for key in sorted(rows):
            writer.writerow({c: rows[key].get(c, "") or "" for c in header})
    tmp.replace(path)
    return changes, sorted(kept)


def summary_lines(changes: list, kept: list) -> list:
    """The grade command's lines about the class table: each changed row (old -> new), how
    many rows were graded again with the same scores, and how many were kept untouched."""
    lines = [f"changed: {c.describe()}" for c in changes if c.changed and c.old is not None]
    lines += [f"added: {c.describe()}" for c in changes if c.old is None and kept]
    same = sum(1 for c in changes if not c.changed)
    if same:
        lines.append(f"{same} row(s) graded again with the same scores")
    if kept:
        lines.append(f"{len(kept)} row(s) of the class table kept as they were (not in this run)")
    return lines
