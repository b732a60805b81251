"""CSV cells that a spreadsheet opens as text, never as a formula (CSV injection).

A cell whose text begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is run
as a formula by Excel, LibreOffice and Google Sheets (``=HYPERLINK("http://x","y")`` as a
student id). OWASP's advice (https://owasp.org/www-community/attacks/CSV_Injection): prefix
such a cell with a single quote, which the spreadsheet shows as text, and quote cells that
hold the separator or quotes (the ``csv`` module does). Every CSV the grader writes goes
through ``cell`` (``writer``/``DictWriter`` apply it to every cell, header included).

Numbers stay numbers: an ``int`` or ``float`` is written as a number (``-2.5`` stays
``-2.5``), and so is a text cell that is exactly a decimal number (``"-3"``, ``"1e-05"``): a
spreadsheet reads such a cell as a number, and no formula fits in it. Only other text is
escaped.

API::

    from autograder.reports import csvsafe
    csvsafe.cell(value) -> str
    w = csvsafe.writer(f);            w.writerow([...])
    w = csvsafe.DictWriter(f, names); w.writeheader(); w.writerow({...})
"""
from __future__ import annotations

import csv
import math
import numbers
import re

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\Z")


def cell(value) -> str:
    """The text of one CSV cell for ``value``, safe to open in a spreadsheet (``str``).

    Args:
        value: anything: ``None`` gives ``""``; a ``bool`` ``"True"``/``"False"``; a real
            number its shortest text (``repr`` of a float: no digits lost; ``nan`` and
            ``inf`` are text, ``-inf`` escaped); anything else ``str(value)``.
    Returns:
        the text, with a ``'`` in front when it begins with one of ``FORMULA_START`` and is
        not a plain decimal number.
    """
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real) and math.isfinite(float(value)):
        text = repr(float(value))
        return text[:-2] if text.endswith(".0") else text
    text = str(float(value)) if isinstance(value, numbers.Real) else str(value)  # nan, inf, -inf: text
    if text.startswith(FORMULA_START) and not _NUMBER.match(text):
        return "'" + text
    return text


class _SafeWriter:
    """A ``csv.writer`` whose rows go through ``cell``."""

    def __init__(self, inner):
        self._inner = inner

    def writerow(self, row):
        return self._inner.writerow([cell(v) for v in row])

    def writerows(self, rows):
        for row in rows:
            self.writerow(row)

    @property
    def dialect(self):
        return self._inner.dialect


def writer(f, *args, **kwargs):
    """``csv.writer(f, ...)`` whose every cell goes through ``cell``."""
    return _SafeWriter(csv.writer(f, *args, **kwargs))


class DictWriter(csv.DictWriter):
    """``csv.DictWriter`` whose every cell (the header's too) goes through ``cell``."""

    def writerow(self, rowdict):
        return super().writerow({k: cell(v) for k, v in rowdict.items()})

    def writeheader(self):
        return self.writer.writerow([cell(name) for name in self.fieldnames])
