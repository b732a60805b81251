"""Text that came from a submission, made safe to show: one place for the console table,
``results.json``, the HTML report and ``grades.csv``.

A submission controls exception class names and messages, source locations, printed
values and (through its folder) its student id. Shown raw, such text can forge lines of the
instructor's console table (a newline), rewrite the terminal (ANSI escapes: erase line, set
the window title), reorder what a reader sees (bidi controls such as U+202E), or swell a
report to megabytes. ``clean`` shows every such character as a visible escape and caps the
length with a visible marker. HTML escaping is the HTML writer's job (``html.escape`` after
``clean``); this module makes text inert for terminals and plain-text viewers.
"""
from __future__ import annotations

import os
import unicodedata

# Lengths (characters) for the pieces of feedback that come from a submission.
NAME_CHARS = 120        # an exception class name, a function or attribute name
MESSAGE_CHARS = 1_000   # an exception message, a printed value
WHERE_CHARS = 120       # "cell 3, line 7"
OUTPUT_CHARS = 4_000    # the whole feedback of one check
ID_CHARS = 200          # a student id, a notebook file name


def _escape(ch):
    code = ord(ch)
    if ch == "\n":
        return "\\n"
    if ch == "\r":
        return "\\r"
    if ch == "\t":
        return "\\t"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _unsafe(ch):
    # Cc: C0/C1 controls (ESC, BEL, DEL ...); Cf: format characters (bidi overrides and
    # isolates, zero-width joiners, BOM); Cs: lone surrogates (undecodable bytes);
    # Zl/Zp: line and paragraph separators, which some viewers break lines at.
    return unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp", "Co", "Cn")


def clean(text, limit: int = MESSAGE_CHARS, newlines: bool = False) -> str:
    """``text`` with control and format characters shown as escapes, cut to ``limit`` characters.

    Args:
        text: any object (``str()`` is taken; a failing ``__str__`` gives ``"<unprintable>"``).
        limit: most characters kept (``int``); longer text ends with
            ``" ... [N more characters cut]"``.
        newlines: keep ``"\\n"`` as a line break (multi-line feedback in ``results.json``);
            otherwise it is shown as ``\\n`` and the result is one line.
    Returns:
        ``str`` that holds no character a terminal or text viewer acts on, except ``"\\n"``
        when ``newlines`` is true.
    """
    if not isinstance(text, str):
        try:
            text = str(text)
        except Exception:
            text = "<unprintable>"
    out = []
    size = 0
    for i, ch in enumerate(text):
        piece = ch if (ch == "\n" and newlines) or not _unsafe(ch) else _escape(ch)
        if size + len(piece) > limit:
            rest = len(text) - i
            out.append(f" ... [{rest} more characters cut]")
            break
        out.append(piece)
        size += len(piece)
    return "".join(out)


def display_name(name, limit: int = ID_CHARS) -> str:
    """A file or folder name (a student id ...) as text: its bytes read as UTF-8, then cleaned.

    Under a non-UTF-8 locale (``LANG=C``) Python decodes file names as ASCII with
    surrogate escapes; taking the bytes back (``os.fsencode``) gives the same text as under
    UTF-8, so ids print and go into UTF-8 files identically in every locale. A byte that is
    not UTF-8 is written as ``\\xNN`` (never U+FFFD, which would give two folders that differ
    only in such a byte one student id), as the class report's ``class_load.shown_name`` does.
    """
    try:
        raw = os.fsencode(name)
    except (UnicodeError, TypeError):
        raw = str(name).encode("utf-8", "surrogateescape")
    return clean(raw.decode("utf-8", "backslashreplace"), limit)
