"""Moodle's grade import CSV (Gradebook setup > Import > CSV file), with one feedback column per grade.

Followed: Moodle's documentation "Grade import" (MoodleDocs, Moodle 4.x; the same steps since
2.x) and Moodle's importer (``grade/import/csv/classes/load_data.php``):

* the import screen maps one column ("Map from") to a user field ("Map to": username, email
  address or ID number); every row's value must name an enrolled user, or the WHOLE import
  stops, so the file holds roster students only, each with the chosen identifier
  (``Roster.require``);
* every other column is mapped by the instructor to a grade item, to the feedback of a grade
  item, or ignored. Our file has, per assignment, ``<item name>`` (points) and
  ``<item name> (feedback)``, plus ``First name`` and ``Last name`` for people (map them to
  "ignore");
* a grade cell that is empty (or ``-``) means "no grade"; a number uses ``.`` as decimal point;
* Moodle's note: importing feedback for an item without its grade column would clear the
  grades, so the two always travel together here.

The feedback names each mistake the grader found in a sentence (``table.feedback``). The file
starts with a UTF-8 byte-order mark, which Moodle's CSV reader removes
(``csv_import_reader::load_csv_content``), so Excel shows non-ASCII names correctly. Choose
"UTF-8" as encoding and "comma" as separator on the import screen.
"""
from __future__ import annotations

from autograder.lms.table import Table, feedback, write

IDENTIFIERS = {"username": ("Username", "moodle_username"),
               "email": ("Email address", "email"),
               "idnumber": ("ID number", "moodle_idnumber")}
BOM = True


def rows(table: Table, roster, identifier: str = "username") -> tuple:
    """``(header, rows)`` of the Moodle file; ``identifier`` is a key of ``IDENTIFIERS``.

    Raises:
        KeyError: unknown identifier. roster.RosterError: a student without it.
    """
    label, column = IDENTIFIERS[identifier]
    roster.require(f"a Moodle file keyed by {identifier}", column)
    header = [label, "First name", "Last name"]
    for i in table.items:
        header += [i.name, f"{i.name} (feedback)"]
    body = []
    for s, by in table.rows:
        row = [s.get(column), s.get("first_name"), s.get("last_name")]
        for i in table.items:
            g = by.get(i.assignment)
            row += [table.cell(g), feedback(g)]
        body.append(row)
    return header, body


def write_file(table: Table, roster, path, identifier: str = "username"):
    """Write the Moodle file to ``path``; returns its ``Path``."""
    header, body = rows(table, roster, identifier)
    return write(path, header, body, BOM)
