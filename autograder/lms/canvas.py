"""Canvas's gradebook CSV, as Canvas's own "Export Entire Gradebook" writes it and its import reads it.

Followed: Instructure's guide "How do I import grades in the Gradebook?" (Canvas Instructor
Guide) and, for the details the guide leaves out, Canvas's own exporter and importer
(canvas-lms ``GradebookExporter``, ``GradebookImporter``):

* header ``Student, ID, SIS User ID, SIS Login ID, Section``, then one column per assignment
  named ``<assignment name> (<Canvas assignment id>)``: the importer reads the id in the last
  parentheses and matches the assignment by it (a column without an id would match by
  title, or create a new assignment);
* second row: ``    Points Possible`` (the importer recognises the row by that text in the first
  cell) with empty student cells and each item's maximum from the items file (Canvas applies
  it only to an assignment the import creates; the grades are written in that scale);
* one row per student. Canvas finds the student by ``ID`` (Canvas's user id), else
  ``SIS User ID``, else ``SIS Login ID``, else the name: the roster must give one of the
  three ids for every student (``Roster.require``); the name is for people. The importer
  reads every cell through a converter that turns ``2024,017`` into ``2024.017``, so a
  student whose first id is such a cell is refused (give the Canvas user id);
* an empty grade cell is "no grade": where Canvas holds a grade, the preview lists it as a
  change and the upload removes it, so no empty cell is written unless asked (``table.py``);
  numbers with at most two decimals, as Canvas exports them;
* the import takes no comments: the named mistakes do not travel in this file.

The file starts with a UTF-8 byte-order mark (Canvas's export offers one too; its importer
finds the header with an unanchored match), so Excel shows non-ASCII names correctly.
"""
from __future__ import annotations

import re

from autograder.lms.graded import GradedError, number
from autograder.lms.roster import RosterError
from autograder.lms.table import Table, write, write_blocks

HEADER = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
POINTS_POSSIBLE = "    Points Possible"
BOM = True
IDS = (1, 2, 3)  # ID, SIS User ID, SIS Login ID: written as Canvas holds them
ID_ORDER = ("canvas_user_id", "canvas_sis_user_id", "canvas_sis_login_id")  # the order Canvas tries them
# The importer's NON_ASSIGNMENT_COLUMN_HEADERS, matched anywhere in a column's name: such a column is dropped.
_NOT_AN_ASSIGNMENT = re.compile("Current Score|Current Points|Current Grade|Final Score|Final Points|Final Grade|"
                                "Override Score|Override Grade|Override Status")


def check(table: Table, roster) -> None:
    """Refuse what Canvas cannot match.

    Raises:
        GradedError: an item without a Canvas assignment id, or whose name the importer takes
            for one of its total columns.
        roster.RosterError: a student without any Canvas id, a user id that is not digits, or
            whose first id Canvas's importer would read as another number.
    """
    without = [i.assignment for i in table.items if not i.canvas_id]
    if without:
        raise GradedError(f"Canvas needs each assignment's Canvas id (the number in the assignment's address, "
                          f".../assignments/<id>); none given for {', '.join(without)}: add a canvas_id column "
                          "to the items file (--items)")
    dropped = [i.name for i in table.items if _NOT_AN_ASSIGNMENT.search(i.name)]
    if dropped:
        raise GradedError("Canvas's importer drops a column whose name contains Current/Final/Override Score, "
                          f"Points, Grade or Status as one of its own totals; rename the item(s) {', '.join(dropped)} "
                          "in the items file (and in Canvas)")
    roster.require("a Canvas file", "canvas_user_id", "canvas_sis_user_id", "canvas_sis_login_id")
    bad = []
    for s, _ in table.rows:
        column = next(c for c in ID_ORDER if s.get(c))
        value = s.get(column)
        if column == "canvas_user_id" and not value.isdigit():
            bad.append(f"line {s.line} ({s.student_id}): canvas_user_id {value!r} is not a Canvas user id (digits)")
        elif column != "canvas_user_id" and _converted(value) != value:
            bad.append(f"line {s.line} ({s.student_id}): {column} {value!r} would be read as {_converted(value)!r}")
    if bad:
        raise RosterError(f"{roster.path}: Canvas finds a student by the first of ID, SIS User ID and SIS Login ID "
                          "and reads a cell of digits, dots and commas as a number with a decimal point; give "
                          "canvas_user_id to: " + "; ".join(bad))


def _converted(value: str) -> str:
    """``value`` as Canvas's importer reads it (its ``decimal_comma_to_period`` converter: a cell
    of digits, ``.`` and ``,`` becomes a number whose last separator is the decimal point)."""
    if re.fullmatch(r"-?[0-9.,]+%?", value):
        *head, last = re.split(r"[,.]", value)
        return "".join(head) + "." + last if head else last
    return value


def layout(table: Table, block) -> tuple:
    """``(header, rows)`` of the Canvas file for one ``table.Block``."""
    header = HEADER + [f"{i.name} ({i.canvas_id})" for i in block.items]
    body = [[POINTS_POSSIBLE, "", "", "", ""] + [number(i.max) for i in block.items]]
    for s, by in block.rows:
        body.append([s.sortable_name, s.get("canvas_user_id"), s.get("canvas_sis_user_id"),
                     s.get("canvas_sis_login_id"), s.get("canvas_section")]
                    + [table.cell(by.get(i.assignment), i) for i in block.items])
    return header, body


def write_files(table: Table, roster, path) -> list:
    """Write the Canvas file(s) (``table.write_blocks``); returns the ``Path`` list.

    Raises:
        GradedError, roster.RosterError: see ``check``; nothing is written.
    """
    check(table, roster)
    return write_blocks(table, path, lambda block: layout(table, block),
                        lambda p, header, body: write(p, header, body, BOM, plain=IDS))
