"""Canvas's gradebook CSV, as Canvas's own "Export Entire Gradebook" writes it and its import reads it.

Followed: Instructure's guide "How do I import grades in the Gradebook?" (Canvas Instructor
Guide) and, for the details the guide leaves out, Canvas's own exporter and importer
(canvas-lms ``GradebookExporter``, ``GradebookImporter``):

* header ``Student, ID, SIS User ID, SIS Login ID, Section``, then one column per assignment
  named ``<assignment name> (<Canvas assignment id>)``: the importer reads the id in the last
  parentheses and matches the assignment by it (a column without an id would match by
  title, or create a new assignment);
* second row: ``    Points Possible`` (the importer recognises the row by that text in the first
  cell) with empty student cells and each assignment's points;
* one row per student. Canvas finds the student by ``ID`` (Canvas's user id), else
  ``SIS User ID``, else ``SIS Login ID``, else the name: the roster must give one of the
  three ids for every student (``Roster.require``); the name is for people;
* an empty grade cell is "no grade" (the import preview shows it as a change only where Canvas
  holds a grade already); numbers with at most two decimals, as Canvas exports them.

The file starts with a UTF-8 byte-order mark (Canvas's export offers one too; its importer
finds the header with an unanchored match), so Excel shows non-ASCII names correctly.
"""
from __future__ import annotations

from autograder.lms.graded import GradedError, number
from autograder.lms.table import Table, write

HEADER = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
POINTS_POSSIBLE = "    Points Possible"
BOM = True


def rows(table: Table, roster) -> tuple:
    """``(header, rows)`` of the Canvas file for ``table``.

    Raises:
        GradedError: an item without a Canvas assignment id.
        roster.RosterError: a student without any Canvas id.
    """
    without = [i.assignment for i in table.items if not i.canvas_id]
    if without:
        raise GradedError(f"Canvas needs each assignment's Canvas id (the number in the assignment's address, "
                          f".../assignments/<id>); none given for {', '.join(without)}: add a canvas_id column "
                          "to the items file (--items)")
    roster.require("a Canvas file", "canvas_user_id", "canvas_sis_user_id", "canvas_sis_login_id")
    header = HEADER + [f"{i.name} ({i.canvas_id})" for i in table.items]
    body = [[POINTS_POSSIBLE, "", "", "", ""] + [number(table.points[i.assignment]) for i in table.items]]
    for s, by in table.rows:
        body.append([s.sortable_name, s.get("canvas_user_id"), s.get("canvas_sis_user_id"),
                     s.get("canvas_sis_login_id"), s.get("canvas_section")]
                    + [table.cell(by.get(i.assignment)) for i in table.items])
    return header, body


def write_file(table: Table, roster, path):
    """Write the Canvas file to ``path``; returns its ``Path``."""
    header, body = rows(table, roster)
    return write(path, header, body, BOM)
