"""``python -m autograder lms ...`` and ``python -m autograder roster ...`` (see docs/lms.md).

``lms {canvas,moodle,moodle-xml,brightspace,blackboard} GRADED_DIR --roster ROSTER --items ITEMS
[--out FILE] [--not-submitted {omit,zero,empty}] [--moodle-id {username,email,idnumber}]``
writes the LMS's import file (default ``GRADED_DIR/lms/<lms>.csv``; moodle.xml,
blackboard.xls), and beside it one file per item for students graded on some items only
(``table.Table.blocks``). Graded students missing from the roster are listed on stderr and
left out; so are roster students without a submission, counted, unless ``--not-submitted``
says otherwise. Exit status: 0 written; 2 bad input (roster, items file, grades.csv, a grade
the LMS would refuse), nothing written.

``lms items GRADED_DIR [--out FILE]`` writes a starting items file (``graded.write_items``,
default ``lms_items.csv``), never over an existing one.

``roster check ROSTER`` checks a roster and says what it holds; ``roster load ROSTER
[--gradebook URL]`` creates or updates its students in nbgrader's gradebook (default: the
current course directory's, from ``nbgrader_config.py``).
"""
from __future__ import annotations

import sys
from pathlib import Path

LMS = ("canvas", "moodle", "moodle-xml", "brightspace", "blackboard")
FILE_NAMES = {"canvas": "canvas.csv", "moodle": "moodle.csv", "moodle-xml": "moodle.xml",
              "brightspace": "brightspace.csv", "blackboard": "blackboard.xls"}
ITEMS_FILE = "lms_items.csv"
# What a cell without a submission does in each LMS (--not-submitted empty), for the summary line.
EMPTY_MEANS = "an empty cell removes a grade the LMS holds"


def add_lms_arguments(p) -> None:
    """Add the ``lms`` subcommand's arguments to its parser ``p``."""
    p.add_argument("lms", choices=(*LMS, "items"), help="the learning management system, or 'items'")
    p.add_argument("graded_dir", metavar="GRADED_DIR", help="the class run's output folder (grades.csv)")
    p.add_argument("--roster", help="roster.csv: course ids mapped to the LMS's ids (docs/lms.md); required "
                                    "except for 'items'")
    p.add_argument("--items", help="the items file: assignment,name,max and the LMS's ids of each item "
                                   "(required except for 'items'; `lms items` writes a starting one)")
    p.add_argument("--out", help=f"the file to write (default: GRADED_DIR/lms/<lms file>; for 'items': {ITEMS_FILE})")
    p.add_argument("--not-submitted", choices=("omit", "zero", "empty"), default="omit",
                   help="a roster student without a submission: left out, so the LMS keeps what it holds "
                        "(omit, default), or given 0, or an empty cell, which removes a grade the LMS holds")
    p.add_argument("--moodle-id", choices=("username", "email", "idnumber"), default="username",
                   help="the Moodle user field the CSV file is keyed by (default: username)")


def add_roster_arguments(r) -> None:
    """Add the ``roster`` subcommand's arguments to its parser ``r``."""
    r.add_argument("action", choices=("check", "load"))
    r.add_argument("roster", help="the roster file")
    r.add_argument("--gradebook", metavar="URL", help="gradebook database URL for load (default: the current "
                                                      "course directory's)")


def write_lms_file(kind: str, graded_dir, roster_path, out=None, items_path=None, missing: str = "omit",
                   moodle_id: str = "username", say=None):
    """Write one LMS's file(s); returns ``(paths, table)``.

    Args:
        kind: one of ``LMS``.
        graded_dir: the class run's output folder.
        roster_path: the roster file.
        out: the main file to write (default ``graded_dir/lms/<FILE_NAMES[kind]>``).
        items_path: the items file (``graded.load_items``); required.
        missing: ``"omit"``, ``"zero"`` or ``"empty"`` (``table.build``).
        moodle_id: the Moodle CSV file's identifier (``moodle.IDENTIFIERS``).
        say: prints notes and warnings (default: to stderr).
    Returns:
        ``(list of Path written, table.Table)``.
    Raises:
        roster.RosterError, graded.GradedError: bad input; nothing is written.
    """
    from autograder.lms import blackboard, brightspace, canvas, moodle
    from autograder.lms.graded import GradedError, load_items
    from autograder.lms.roster import load
    from autograder.lms.table import build
    say = say or (lambda text: print(text, file=sys.stderr))
    if not items_path:
        raise GradedError("an items file is required (--items): it names each LMS item and gives its maximum "
                          f"points; `python -m autograder lms items {graded_dir}` writes a starting one")
    roster = load(roster_path)
    table = build(graded_dir, roster, load_items(items_path), missing)
    out = Path(out) if out else Path(graded_dir) / "lms" / FILE_NAMES[kind]
    writers = {"canvas": canvas.write_files, "brightspace": brightspace.write_files,
               "blackboard": blackboard.write_files, "moodle-xml": moodle.write_xml,
               "moodle": lambda t, r, o: moodle.write_files(t, r, o, moodle_id)}
    paths = writers[kind](table, roster, out)
    for note in table.notes:
        say(f"lms: note: {note}")
    if table.unknown:
        say(f"lms: {len(table.unknown)} graded student(s) not in {roster_path}, left out (add them to the roster "
            f"with their {kind} ids): " + ", ".join(f"{sid!r} (grades.csv line {line})" for sid, line in table.unknown))
    return paths, table


def summary(kind: str, paths: list, table) -> str:
    """What was written, for the command's output: files, students, items, and who is left out."""
    lines = [f"wrote {', '.join(str(p) for p in paths) or 'nothing'} for {kind}: "
             f"{len(table.rows) - (len(table.left_out) if table.missing == 'omit' else 0)} student(s) x "
             f"{len(table.items)} item(s)"]
    if len(paths) > 1:
        lines.append(f"  students graded on some items only are in the per-item file(s) after the first: import "
                     f"each of the {len(paths)} files")
    if table.missing == "omit":
        if table.left_out:
            lines.append(f"  {len(table.left_out)} roster student(s) without a submission left out, so the LMS keeps "
                         f"what it holds for them (--not-submitted zero|empty writes them): "
                         + ", ".join(s.student_id for s in table.left_out))
    elif table.missing_cells():
        what = "0" if table.missing == "zero" else f"an empty cell ({EMPTY_MEANS})"
        lines.append(f"  {table.missing_cells()} cell(s) without a submission written as {what}")
    return "\n".join(lines)


def run(args) -> int:
    """Run the ``lms`` or ``roster`` subcommand parsed into ``args``; returns the exit status."""
    from autograder.lms.graded import GradedError
    from autograder.lms.roster import RosterError, load, load_into_gradebook
    try:
        if args.command == "lms" and args.lms == "items":
            from autograder.lms.graded import write_items
            out = Path(args.out or ITEMS_FILE)
            items = write_items(args.graded_dir, out)
            print(f"wrote {out}: {len(items)} item(s) with the course's points as max; give each its name and "
                  "maximum in the LMS, and the LMS's ids of it (docs/lms.md)")
            return 0
        if args.command == "lms":
            if not args.roster:
                raise RosterError(f"lms {args.lms} needs --roster (the course ids mapped to the LMS's ids)")
            paths, table = write_lms_file(args.lms, args.graded_dir, args.roster, args.out, args.items,
                                          args.not_submitted, args.moodle_id)
            print(summary(args.lms, paths, table))
            return 0
        roster = load(args.roster)
        if args.action == "check":
            print(f"{args.roster}: {len(roster.students)} student(s); columns: {', '.join(roster.columns)}")
            return 0
        from autograder.nbgrader_glue.gradebook import load_course
        course = load_course(Path.cwd(), db_url=args.gradebook)
        n = load_into_gradebook(roster, course.db_url, course.course_id)
        print(f"{n} student(s) of {args.roster} created or updated in the gradebook {course.db_url}")
        return 0
    except (RosterError, GradedError) as exc:
        print(f"{args.command}: {exc}", file=sys.stderr)
        return 2


def roster_for_run(option, path):
    """The roster of a class run: ``--roster`` when given, else the course directory's
    ``roster.csv`` (``roster.course_roster``), else None.

    Raises:
        roster.RosterError: the roster is broken (the grade command stops before grading).
    """
    from autograder.lms.roster import course_roster, load
    found = Path(option) if option else course_roster(path)
    if found is None:
        return None
    roster = load(found)
    print(f"roster: {found} ({len(roster.students)} students)", file=sys.stderr)
    return roster


def absent_for_run(roster, results) -> list:
    """``(student, assignment)`` pairs of ``roster`` students with no graded notebook in ``results``
    (for grades.csv's "not submitted" rows); [] without a roster. Graded ids are compared with
    roster ids by ``roster.student_key``; one that matches only so (a folder ``"ann "`` for
    ``ann``) is printed, and so are graded students missing from the roster (they stay in
    grades.csv; the LMS files leave them out)."""
    if roster is None or not results:
        return []
    from autograder.lms.roster import not_submitted, student_key
    handed_in = {(r.student_id, r.assignment_id) for r in results}
    known = set(roster.by_key())
    unknown = sorted({s for s, _ in handed_in if student_key(s) not in known})
    if unknown:
        print(f"roster: {len(unknown)} graded student(s) not in {roster.path} (the LMS files will leave them "
              f"out): {', '.join(repr(u) for u in unknown)}", file=sys.stderr)
    by_key = roster.by_key()
    for s in sorted({s for s, _ in handed_in if student_key(s) in by_key and by_key[student_key(s)].student_id != s}):
        roster_student = by_key[student_key(s)]
        print(f"roster: graded {s!r} is {roster.path} line {roster_student.line}'s {roster_student.student_id!r} "
              "(the same once spaces, case and Unicode form are set aside)", file=sys.stderr)
    absent = not_submitted(roster, handed_in, {a for _, a in handed_in})
    if absent:
        print(f"roster: {len({s for s, _ in absent})} student(s) of the roster submitted nothing for some "
              "assignment: 'not submitted' in grades.csv", file=sys.stderr)
    return absent
