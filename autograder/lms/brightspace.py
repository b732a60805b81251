"""Brightspace's grades import file (Grades > Enter Grades > Import), as D2L documents it.

Followed: D2L's "Importing grades" (Brightspace Instructor help, community.d2l.com knowledge
base, 2024-2025) and its sample import file:

* ``OrgDefinedId`` and ``Username`` first (a school may use either; Brightspace needs one of
  them per user), then one ``<item name> Points Grade`` column per numeric grade item, and
  last the ``End-of-Line Indicator`` column, whose every cell is ``#``;
* Brightspace's own export writes ``#`` in front of each OrgDefinedId and Username so that a
  spreadsheet keeps them as text (leading zeros survive); the import reads them without it.
  We write them the same way;
* a grade above the item's maximum is capped to it unless the item may be exceeded, so a
  grade outside 0..max is refused here, naming the item and the student; the grades are
  written in the item's scale (``max`` in the items file);
* an empty ``Points Grade`` cell leaves the user without a grade, so none is written unless
  asked (``table.py``);
* the import's fields are ids, ``Points Grade``, ``Grade Symbol``, ``Text Grade``, the adjusted
  final grade and the end-of-line column: none carries feedback to a numeric item, so the
  named mistakes do not travel in this file;
* names, emails and other columns are not to be imported, so the file has none.

A column is written only when every roster student in the file has a value in it
(OrgDefinedId, Username or both); a student with neither is an error naming the roster line.
No byte-order mark: the file holds ids and numbers only, and D2L does not say that its
importer skips one.
"""
from __future__ import annotations

from autograder.lms.graded import GradedError, number
from autograder.lms.table import Table, write, write_blocks

END = "End-of-Line Indicator"
BOM = False


def check(table: Table, roster) -> None:
    """Refuse what Brightspace would not take as it is.

    Raises:
        roster.RosterError: a student with neither OrgDefinedId nor Username.
        GradedError: a grade outside 0..the item's maximum (Brightspace would cap it).
    """
    roster.require("a Brightspace file", "brightspace_org_defined_id", "brightspace_username")
    bad = table.out_of_range()
    if bad:
        raise GradedError("Brightspace caps a grade at its item's maximum and takes no negative one; outside "
                          "0..max: " + "; ".join(f"{i.name!r} (max {number(i.max)}): {s.student_id} {number(v)}"
                                                 for i, s, v in bad))


def layout(table: Table, block) -> tuple:
    """``(header, rows)`` of the Brightspace file for one ``table.Block``."""
    students = [s for s, _ in block.rows]
    keys = [(label, column) for label, column in (("OrgDefinedId", "brightspace_org_defined_id"),
                                                   ("Username", "brightspace_username"))
            if all(s.get(column) for s in students)]
    if not keys:  # every student has one of them, but neither column is complete: both, blank where absent
        keys = [("OrgDefinedId", "brightspace_org_defined_id"), ("Username", "brightspace_username")]
    header = [label for label, _ in keys] + [f"{i.name} Points Grade" for i in block.items] + [END]
    body = []
    for s, by in block.rows:
        ids = [("#" + s.get(column)) if s.get(column) else "" for _, column in keys]
        body.append(ids + [table.cell(by.get(i.assignment), i) for i in block.items] + ["#"])
    return header, body


def write_files(table: Table, roster, path) -> list:
    """Write the Brightspace file(s) (``table.write_blocks``); returns the ``Path`` list.

    Raises:
        roster.RosterError, GradedError: see ``check``; nothing is written.
    """
    check(table, roster)
    return write_blocks(table, path, lambda block: layout(table, block),
                        lambda p, header, body: write(p, header, body, BOM, plain=_ids(header)))


def _ids(header) -> list:
    return [k for k, label in enumerate(header) if label in ("OrgDefinedId", "Username")]
