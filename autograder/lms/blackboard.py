"""Blackboard Learn's offline grade upload (Grade Center > Work Offline > Upload), as its own
download writes it.

Followed: Blackboard Learn's help "Work offline with grade data" / "Uploading or downloading
Grade Center items for working offline" (Blackboard Learn, Original Course View) and the
download's own layout:

* a header row, then one row per student; the student is found by ``Username`` (the only
  student key), a column by the **Column ID** at the end of its name, after ``|``, as the
  download names it: ``Attention [Total Pts: 19 Score] |71003``. A column without an id would
  be created as a new text column worth 0 points, so every item needs ``blackboard_id`` in
  the items file; the name and points in front of ``|`` are for people;
* the file is tab-delimited (Blackboard recommends tab-delimited files; it reads ``.xls`` as
  tab-delimited and ``.csv`` as comma-delimited with every value in quotes), each value in
  double quotes as the download writes it, a quote inside doubled; a value cannot hold a tab
  or a line break, so a roster name with one is refused, naming the roster line;
* the text is UTF-16 (little-endian, with its byte-order mark), as the download is, so that
  Excel opens it with every name intact;
* ``Last Name`` and ``First Name`` are written for people; the upload's confirmation page lists
  each column with the Grade Center column it matched;
* the upload takes grades only: Blackboard's documentation of the file names no feedback
  column, so the named mistakes do not travel in this file;
* a grade may exceed the column's points (extra credit) and is written in the column's scale
  (``max`` in the items file); no empty cell is written unless asked (``table.py``).
"""
from __future__ import annotations

import unicodedata
from pathlib import Path

from autograder.lms.graded import GradedError, number
from autograder.lms.roster import RosterError
from autograder.lms.table import Table, write_blocks
from autograder.reports import csvsafe

HEADER = ["Last Name", "First Name", "Username"]
COLUMN = "{name} [Total Pts: {points} Score] |{column_id}"
ENCODING = "utf-16-le"  # after a byte-order mark, U+FEFF


def check(table: Table, roster) -> None:
    """Refuse what the upload cannot match or read.

    Raises:
        GradedError: an item without a Grade Center column id.
        roster.RosterError: a student without ``blackboard_username``; a name with a tab or a
            line break.
    """
    without = [i.assignment for i in table.items if not i.blackboard_id]
    if without:
        raise GradedError("Blackboard matches a column by its Column ID (the number after '|' in the column's name "
                          "in the Grade Center's own download); none given for "
                          f"{', '.join(without)}: add a blackboard_id column to the items file")
    roster.require("a Blackboard file", "blackboard_username")
    broken = [f"line {s.line} ({s.student_id}): {column}" for s, _ in table.rows
              for column in ("last_name", "first_name")
              if any(unicodedata.category(ch) in ("Cc", "Zl", "Zp") for ch in s.get(column))]
    if broken:
        raise RosterError(f"{roster.path}: a Blackboard file cannot hold a tab or a line break in a value; "
                          f"found in {'; '.join(broken)}")


def layout(table: Table, block) -> tuple:
    """``(header, rows)`` of the Blackboard file for one ``table.Block``."""
    header = HEADER + [COLUMN.format(name=i.name, points=number(i.max), column_id=i.blackboard_id)
                       for i in block.items]
    body = [[csvsafe.cell(s.get("last_name")), csvsafe.cell(s.get("first_name")), s.get("blackboard_username")]
            + [table.cell(by.get(i.assignment), i) for i in block.items] for s, by in block.rows]
    return header, body


def write(path, header: list, rows: list) -> Path:
    """Write ``header`` and ``rows`` tab-delimited, every value in double quotes, as UTF-16."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ["\t".join('"' + str(c).replace('"', '""') + '"' for c in row) for row in [header, *rows]]
    path.write_bytes(("\ufeff" + "\r\n".join(lines) + "\r\n").encode(ENCODING))
    return path


def write_files(table: Table, roster, path) -> list:
    """Write the Blackboard file(s) (``table.write_blocks``); returns the ``Path`` list.

    Raises:
        GradedError, roster.RosterError: see ``check``; nothing is written.
    """
    check(table, roster)
    return write_blocks(table, path, lambda block: layout(table, block), write)
