"""``python -m autograder lms ...`` and ``python -m autograder roster ...`` (see docs/lms.md).

``lms {canvas,moodle,brightspace} GRADED_DIR --roster ROSTER [--out FILE] [--items ITEMS]
[--zeros] [--moodle-id {username,email,idnumber}]`` writes the LMS's import file (default
``GRADED_DIR/lms/<lms>.csv``). Graded students missing from the roster are listed on stderr
and left out. Exit status: 0 written; 2 bad input (roster, items file, grades.csv), nothing
written.

``roster check ROSTER`` checks a roster and says what it holds; ``roster load ROSTER
[--gradebook URL]`` creates or updates its students in nbgrader's gradebook (default: the
current course directory's, from ``nbgrader_config.py``).
"""
from __future__ import annotations

import sys
from pathlib import Path

LMS = ("canvas", "moodle", "brightspace")


def add_parsers(sub) -> None:
    """Add the ``lms`` and ``roster`` subcommands to ``sub`` (argparse subparsers)."""
    p = sub.add_parser("lms", help="write a Canvas, Moodle or Brightspace grade import file from GRADED_DIR")
    p.add_argument("lms", choices=LMS, help="the learning management system")
    p.add_argument("graded_dir", metavar="GRADED_DIR", help="the class run's output folder (grades.csv)")
    p.add_argument("--roster", required=True, help="roster.csv: course ids mapped to the LMS's ids (docs/lms.md)")
    p.add_argument("--out", help="the file to write (default: GRADED_DIR/lms/<lms>.csv)")
    p.add_argument("--items", help="CSV mapping our assignments to the LMS's items: assignment,name,canvas_id "
                                   "(required for Canvas: its assignment ids)")
    p.add_argument("--zeros", action="store_true",
                   help="0 instead of an empty cell for a roster student who did not submit")
    p.add_argument("--moodle-id", choices=("username", "email", "idnumber"), default="username",
                   help="the Moodle user field the file is keyed by (default: username)")
    r = sub.add_parser("roster", help="check roster.csv, or load its students into nbgrader's gradebook")
    r.add_argument("action", choices=("check", "load"))
    r.add_argument("roster", help="the roster file")
    r.add_argument("--gradebook", metavar="URL", help="gradebook database URL for load (default: the current "
                                                      "course directory's)")


def write_lms_file(kind: str, graded_dir, roster_path, out=None, items_path=None, zeros: bool = False,
                   moodle_id: str = "username", say=None):
    """Write one LMS file; returns ``(path, table)``.

    Args:
        kind: "canvas", "moodle" or "brightspace".
        graded_dir: the class run's output folder.
        roster_path: the roster file.
        out: the file to write (default ``graded_dir/lms/<kind>.csv``).
        items_path: the items mapping (``graded.load_items``), or None.
        zeros, moodle_id: see ``table.build`` and ``moodle.rows``.
        say: prints notes and warnings (default: to stderr).
    Raises:
        roster.RosterError, graded.GradedError: bad input; nothing is written.
    """
    from autograder.lms import brightspace, canvas, moodle
    from autograder.lms.graded import load_items
    from autograder.lms.roster import load
    from autograder.lms.table import build
    say = say or (lambda text: print(text, file=sys.stderr))
    roster = load(roster_path)
    items = load_items(items_path) if items_path else None
    table = build(graded_dir, roster, items, zeros)
    out = Path(out) if out else Path(graded_dir) / "lms" / f"{kind}.csv"
    if kind == "canvas":
        path = canvas.write_file(table, roster, out)
    elif kind == "moodle":
        path = moodle.write_file(table, roster, out, moodle_id)
    else:
        path = brightspace.write_file(table, roster, out)
    for note in table.notes:
        say(f"lms: note: {note}")
    if table.unknown:
        say(f"lms: {len(table.unknown)} graded student(s) not in {roster_path}, left out of {path} (add them "
            f"to the roster with their {kind} ids): {', '.join(table.unknown)}")
    return path, table


def run(args) -> int:
    """Run the ``lms`` or ``roster`` subcommand parsed into ``args``; returns the exit status."""
    from autograder.lms.graded import GradedError
    from autograder.lms.roster import RosterError, load, load_into_gradebook
    try:
        if args.command == "lms":
            path, table = write_lms_file(args.lms, args.graded_dir, args.roster, args.out, args.items,
                                         args.zeros, args.moodle_id)
            print(f"wrote {path}: {len(table.rows)} student(s) x {len(table.items)} assignment(s); "
                  f"{table.missing()} cell(s) without a submission ({'0' if table.zeros else 'empty'})")
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
    (for grades.csv's "not submitted" rows); [] without a roster. Graded students missing from
    the roster are printed (they stay in grades.csv; the LMS files leave them out)."""
    if roster is None or not results:
        return []
    from autograder.lms.roster import not_submitted
    handed_in = {(r.student_id, r.assignment_id) for r in results}
    unknown = sorted({s for s, _ in handed_in} - set(roster.ids()))
    if unknown:
        print(f"roster: {len(unknown)} graded student(s) not in {roster.path} (the LMS files will leave them "
              f"out): {', '.join(unknown)}", file=sys.stderr)
    absent = not_submitted(roster, handed_in, {a for _, a in handed_in})
    if absent:
        print(f"roster: {len({s for s, _ in absent})} student(s) of the roster submitted nothing for some "
              "assignment: 'not submitted' in grades.csv", file=sys.stderr)
    return absent
