"""Moodle's grade import files: the CSV its "Plain text file" export writes, and its XML.

Followed: MoodleDocs "Grade import" and "Grade export" (Moodle 4.x and 5.x) and Moodle's own
code: the export's column names (``grade/export/lib.php``, ``grade_export::format_column_name``),
the CSV import (``grade/import/csv/classes/load_data.php``, ``lib/csvlib.class.php``), the
XML export and import (``grade/export/xml/grade_export_xml.php``, ``grade/import/xml/lib.php``)
and the commit both imports end in (``grade/import/lib.php``, ``grade_import_commit``).

**CSV** (Grades > Import > CSV file). Moodle's export names a grade column ``<item> (Real)``
and its feedback column ``<item> (Feedback)``, ``<item>`` being the item's name as the
gradebook lists it (an activity's is ``Assignment: Attention``); the user columns carry the
user field's own label (``Username``, ``ID number``, ``Email address``, ``First name``,
``Last name``). This file is written in that form: one identifier column (the one chosen,
``IDENTIFIERS``), the names for people, then per item its grade and its feedback. On the
mapping screen the instructor maps the identifier column to the same field ("Map from"
``Username`` -> "Map to" Username) and each column to the item and the item's feedback whose
names it carries; Moodle itself pre-selects none of them in the CSV import of 4.x and 5.x.
The importer's rules that shape the file:

* the file's byte-order mark is removed, ``\\r\\n`` read as ``\\n``, every header and cell
  trimmed; every row must have the header's number of cells;
* every row's identifier must name a user, or the WHOLE import stops; so the file holds
  roster students only, each with the chosen identifier (``Roster.require``). Usernames are
  written in lower case, as Moodle stores them;
* a grade cell that is empty (or ``-``) sets "no grade": the grade held is erased, so no such
  cell is written unless asked (``table.py``); a number uses ``.``;
* a grade above the item's maximum (or below its minimum, 0 unless set otherwise) stops the
  whole import (Moodle 4.1 onwards; before, above the site's maximum grade, 100 by default):
  such a grade is refused here, naming the item and student; grades are written in the item's
  scale (``max`` in the items file);
* a feedback cell replaces the feedback held (an empty one erases it); MoodleDocs warns that
  feedback imported without its grade column clears the grades, so the two travel together;
* feedback is stored in Moodle's own text format, in which ``<`` and ``&`` start HTML: they are
  written as ``&lt;`` and ``&amp;`` so that ``</w>`` reads as ``</w>``.

The file starts with a UTF-8 byte-order mark (removed by ``csv_import_reader``), so Excel shows
non-ASCII names correctly. On the import screen: encoding UTF-8, separator comma.

**XML** (Grades > Import > XML file, "Import feedback" ticked). The format of Moodle's XML
export: ``<results>`` of ``<result>`` elements, each with the grade item's ID number
(``<assignment>``), the user's ID number (``<student>``), ``<score>`` and ``<feedback>``. The
import finds the item and the user by those ID numbers, with no mapping screen: the roster
needs ``moodle_idnumber`` for every student and the items file ``moodle_idnumber`` for every
item. A result without ``<score>`` sets "no grade"; a student without a grade has no result
unless asked (``table.py``).
"""
from __future__ import annotations

import html
import time
from pathlib import Path
from xml.etree import ElementTree

from autograder.lms import feedback
from autograder.lms.graded import GradedError, number
from autograder.lms.table import Table, write, write_blocks

IDENTIFIERS = {"username": ("Username", "moodle_username"),
               "email": ("Email address", "email"),
               "idnumber": ("ID number", "moodle_idnumber")}
REAL = "{name} (Real)"          # grade_export::format_column_name, display type "real"
FEEDBACK = "{name} (Feedback)"  # the same, for the feedback column
BOM = True


def check(table: Table, roster, identifier: str = "username") -> None:
    """Refuse what would stop Moodle's import.

    Raises:
        KeyError: unknown identifier.
        roster.RosterError: a student without the identifier.
        GradedError: a grade outside 0..the item's maximum.
    """
    _, column = IDENTIFIERS[identifier]
    roster.require(f"a Moodle file keyed by {identifier}", column)
    bad = table.out_of_range()
    if bad:
        raise GradedError("Moodle stops the whole import at a grade above its item's maximum or below 0; "
                          "outside 0..max: " + "; ".join(f"{i.name!r} (max {number(i.max)}): {s.student_id} "
                                                         f"{number(v)}" for i, s, v in bad))


def feedback_cell(table: Table, grade, item) -> str:
    """The feedback cell: ``feedback.text`` with ``<`` and ``&`` as HTML entities; for no grade
    ``feedback.NOT_SUBMITTED`` (``missing="zero"``) or ""."""
    if grade is None:
        return feedback.NOT_SUBMITTED if table.missing == "zero" else ""
    return html.escape(feedback.text(grade, table.value(grade, item), item.max), quote=False)


def identifier_value(student, identifier: str) -> str:
    """The student's identifier as Moodle holds it (usernames are stored in lower case)."""
    value = student.get(IDENTIFIERS[identifier][1])
    return value.lower() if identifier == "username" else value


def layout(table: Table, block, identifier: str = "username") -> tuple:
    """``(header, rows)`` of the Moodle CSV file for one ``table.Block``."""
    label, _ = IDENTIFIERS[identifier]
    header = [label, "First name", "Last name"]
    for i in block.items:
        header += [REAL.format(name=i.name), FEEDBACK.format(name=i.name)]
    body = []
    for s, by in block.rows:
        row = [identifier_value(s, identifier), s.get("first_name"), s.get("last_name")]
        for i in block.items:
            g = by.get(i.assignment)
            row += [table.cell(g, i), feedback_cell(table, g, i)]
        body.append(row)
    return header, body


def write_files(table: Table, roster, path, identifier: str = "username") -> list:
    """Write the Moodle CSV file(s) (``table.write_blocks``); returns the ``Path`` list.

    Raises:
        KeyError, roster.RosterError, GradedError: see ``check``; nothing is written.
    """
    check(table, roster, identifier)
    return write_blocks(table, path, lambda block: layout(table, block, identifier),
                        lambda p, header, body: write(p, header, body, BOM, plain=(0,)))


def write_xml(table: Table, roster, path) -> list:
    """Write the Moodle XML file (one ``<result>`` per student and item with a grade); returns
    ``[Path]``.

    Raises:
        roster.RosterError: a student without ``moodle_idnumber``.
        GradedError: an item without ``moodle_idnumber``; a grade outside 0..max.
    """
    without = [i.assignment for i in table.items if not i.moodle_idnumber]
    if without:
        raise GradedError("Moodle's XML import finds a grade item by its ID number; none given for "
                          f"{', '.join(without)}: add a moodle_idnumber column to the items file (the item's "
                          "'ID number' in its Moodle settings)")
    check(table, roster, "idnumber")
    root = ElementTree.Element("results", batch=f"autograder_{int(time.time())}")
    for s, by in table.rows:
        if not by and table.missing == "omit":
            continue
        for i in table.items:
            g = by.get(i.assignment)
            if g is None and table.missing == "omit":
                continue
            result = ElementTree.SubElement(root, "result")
            ElementTree.SubElement(result, "assignment").text = i.moodle_idnumber
            ElementTree.SubElement(result, "student").text = s.get("moodle_idnumber")
            if g is not None or table.missing == "zero":
                ElementTree.SubElement(result, "score").text = table.cell(g, i)
            text = feedback_cell(table, g, i)
            if text:
                ElementTree.SubElement(result, "feedback").text = text
    ElementTree.indent(root)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(ElementTree.tostring(root, encoding="utf-8", xml_declaration=False) + b"\n")
    return [path]
