"""Brightspace's grades import file (Grades > Enter Grades > Import), as D2L documents it.

Followed: D2L's "Importing grades" (Brightspace Instructor help, community.d2l.com knowledge
base, 2024-2025) and its sample import file:

* ``OrgDefinedId`` and ``Username`` first (a school may use either; Brightspace needs one of
  them per user), then one ``<item name> Points Grade`` column per numeric grade item, and
  last the ``End-of-Line Indicator`` column, whose every cell is ``#``;
* Brightspace's own export writes ``#`` in front of each OrgDefinedId and Username so that a
  spreadsheet keeps them as text (leading zeros survive); the import reads them without it.
  We write them the same way;
* an empty ``Points Grade`` cell leaves the user without a grade; the end-of-line column keeps
  an empty last grade from being lost;
* names, emails and other columns are not to be imported, so the file has none.

A column is written only when every roster student has a value in it (OrgDefinedId, Username
or both); a student with neither is an error naming the roster line. No byte-order mark: the
file holds ids and numbers only, and D2L does not say that its importer skips one.
"""
from __future__ import annotations

from autograder.lms.table import Table, write

END = "End-of-Line Indicator"
BOM = False


def rows(table: Table, roster) -> tuple:
    """``(header, rows)`` of the Brightspace file.

    Raises:
        roster.RosterError: a student with neither OrgDefinedId nor Username.
    """
    roster.require("a Brightspace file", "brightspace_org_defined_id", "brightspace_username")
    keys = [(label, column) for label, column in (("OrgDefinedId", "brightspace_org_defined_id"),
                                                   ("Username", "brightspace_username"))
            if all(s.get(column) for s in roster.students)]
    if not keys:  # every student has one of them, but neither column is complete: both, blank where absent
        keys = [("OrgDefinedId", "brightspace_org_defined_id"), ("Username", "brightspace_username")]
    header = [label for label, _ in keys] + [f"{i.name} Points Grade" for i in table.items] + [END]
    body = []
    for s, by in table.rows:
        ids = [("#" + s.get(column)) if s.get(column) else "" for _, column in keys]
        body.append(ids + [table.cell(by.get(i.assignment)) for i in table.items] + ["#"])
    return header, body


def write_file(table: Table, roster, path):
    """Write the Brightspace file to ``path``; returns its ``Path``."""
    header, body = rows(table, roster)
    return write(path, header, body, BOM)
