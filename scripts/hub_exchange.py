"""nbgrader's exchange on the course hub, laid out so that no student can take it over.

``scripts/hub.sh`` copies this file into the hub's Python environment as the module
``lmrt_hub_exchange`` and runs it (as root) to lay out and to check the exchange:

    python hub_exchange.py setup ROOT COURSE_ID INSTRUCTOR   # hub.sh course
    python hub_exchange.py check ROOT COURSE_ID INSTRUCTOR   # hub.sh start (exit 1: refuse)

The layout (nbgrader 0.9.6's default exchange; docs/hub.md explains each line):

============================  =================  ======  ====================================
folder                        owner              mode    why
============================  =================  ======  ====================================
ROOT                          root               1777    nbgrader wants rwx for all (students'
                                                         commands check they may write there);
                                                         the sticky bit keeps anyone but the
                                                         owner from renaming what is in it
ROOT/COURSE_ID                instructor         0755    made here, before any student can
ROOT/COURSE_ID/outbound       instructor         0755    released assignments: read by all
ROOT/COURSE_ID/inbound        instructor:group   3733    students create submissions, cannot
                                                         list them, cannot rename another's
                                                         (sticky); new folders take the
                                                         instructor's group (setgid)
ROOT/COURSE_ID/feedback       instructor         0711    feedback files, not listable
============================  =================  ======  ====================================

nbgrader itself leaves submissions readable by everyone (files 0644, the submission folder
0777, "hidden from other users by the timestamp") and feedback files with the instructor's
umask (0644), guarded only by their hashed names. The two exchange classes below, which
the hub's nbgrader config selects (``c.ExchangeFactory``), tighten that: a submission's
files 0600 and its folders 0700 plus a POSIX ACL entry for the instructor (read; for
folders read, write, enter), and a feedback file 0600 plus an entry that lets the one
student it belongs to read it (written as the ``system.posix_acl_access`` extended attribute; ext4, xfs and btrfs keep
ACLs). A file system without ACLs makes release_feedback fail with a message saying so.
"""
from __future__ import annotations

import glob
import os
import pwd
import re
import stat
import struct
import sys
from pathlib import Path

# -- the two exchange classes the hub's nbgrader config selects ---------------------------------
try:
    from nbgrader.exchange.default.release_feedback import ExchangeReleaseFeedback as _ReleaseFeedback
    from nbgrader.exchange.default.submit import ExchangeSubmit as _Submit
    from nbgrader.utils import notebook_hash
except ImportError:  # the setup/check commands need no nbgrader
    _ReleaseFeedback = _Submit = object  # type: ignore[assignment,misc]

_ACL_USER_OBJ, _ACL_USER, _ACL_GROUP_OBJ, _ACL_MASK, _ACL_OTHER = 0x01, 0x02, 0x04, 0x10, 0x20
_ACL_UNDEFINED_ID = 0xFFFFFFFF


def grant(path: str | os.PathLike, uid: int) -> None:
    """Make ``path`` its owner's and the user ``uid``'s alone: a file readable by ``uid``
    (owner read-write), a folder readable, writable and enterable by ``uid`` (owner the
    same); nothing for the file's group or anyone else. Mode 0600 or 0700 plus the POSIX ACL
    entry ``user:uid:r`` or ``user:uid:rwx``, written as the binary
    ``system.posix_acl_access`` attribute (version 2, then tag, permissions, id per entry,
    sorted by tag: the format of Linux's include/uapi/linux/posix_acl_xattr.h).

    Raises OSError (errno ENOTSUP) where the file system keeps no ACLs."""
    folder = os.path.isdir(path)
    owner, other = (7, 7) if folder else (6, 4)
    os.chmod(path, 0o700 if folder else 0o600)
    entries = [(_ACL_USER_OBJ, owner, _ACL_UNDEFINED_ID), (_ACL_USER, other, uid),
               (_ACL_GROUP_OBJ, 0, _ACL_UNDEFINED_ID), (_ACL_MASK, other, _ACL_UNDEFINED_ID),
               (_ACL_OTHER, 0, _ACL_UNDEFINED_ID)]
    data = struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries)
    os.setxattr(path, "system.posix_acl_access", data)


class ExchangeSubmit(_Submit):  # type: ignore[misc,valid-type]
    """nbgrader's submit, after which the submission is its student's and the instructor's
    alone (grant: the instructor is inbound's owner). Groups cannot do it: a student's chmod
    of a folder clears its setgid bit, so files nbgrader writes after copying (timestamp.txt,
    submission_secret.txt) would not take the instructor's group."""

    def copy_files(self):
        """Submit as nbgrader does, then take every permission of others away."""
        super().copy_files()
        dest = os.path.join(self.inbound_path, self.assignment_filename)
        instructor = os.stat(self.inbound_path).st_uid
        try:
            for dirname, _, filenames in os.walk(dest):
                for name in filenames:
                    grant(os.path.join(dirname, name), instructor)
                grant(dirname, instructor)
        except OSError as exc:
            self.fail(f"Could not make {dest} private to you and the instructor "
                      f"(the exchange's file system needs POSIX ACLs): {exc}")


class ExchangeReleaseFeedback(_ReleaseFeedback):  # type: ignore[misc,valid-type]
    """nbgrader's release_feedback, after which each feedback file is readable by the
    instructor and by the one student whose unix user name is its student id (grant)."""

    def copy_files(self):
        """Release as nbgrader does, then restrict each released file to its student."""
        super().copy_files()
        pattern = re.escape(os.path.sep).join([
            self.coursedir.format_path(self.coursedir.feedback_directory, "(?P<student_id>.*)",
                                       self.coursedir.assignment_id, escape=True),
            "(?P<notebook_id>.*).html"])
        for html_file in glob.glob(os.path.join(self.src_path, "*.html")):
            m = re.match(pattern, html_file)
            if m is None:
                continue
            folder = os.path.dirname(html_file)
            with open(os.path.join(folder, "submission_secret.txt")) as fh:
                secret = fh.read()
            released = os.path.join(self.dest_path, notebook_hash(secret=secret, notebook_id=m["notebook_id"]) + ".html")
            if not os.path.isfile(released):
                continue
            try:
                uid = pwd.getpwnam(m["student_id"]).pw_uid
            except KeyError:
                os.chmod(released, 0o600)
                self.log.error("No unix user %s: their feedback %s is readable by the instructor only",
                               m["student_id"], released)
                continue
            try:
                grant(released, uid)
            except OSError as exc:
                os.chmod(released, 0o600)
                self.fail(f"Could not give {m['student_id']} alone read access to {released} "
                          f"(the exchange's file system needs POSIX ACLs): {exc}")


# -- laying out and checking the exchange (as root) --------------------------------------------
def _ids(instructor: str) -> tuple[int, int]:
    entry = pwd.getpwnam(instructor)
    return entry.pw_uid, entry.pw_gid


def layout(root: Path, course_id: str, instructor: str) -> dict[Path, tuple[int, int, int]]:
    """The folders of the exchange and the (uid, gid or -1 for any, mode) each must have."""
    uid, gid = _ids(instructor)
    course = root / course_id
    return {root: (0, -1, 0o1777), course: (uid, -1, 0o755), course / "outbound": (uid, -1, 0o755),
            course / "inbound": (uid, gid, 0o3733), course / "feedback": (uid, -1, 0o711)}


def setup(root: Path, course_id: str, instructor: str) -> None:
    """Create or repair the exchange's folders (layout). A course folder that exists but
    belongs to someone else than the instructor is an error (a student may have made it):
    raises SystemExit with what to do."""
    for folder, (uid, gid, mode) in layout(root, course_id, instructor).items():
        if folder.exists() and folder != root and folder.stat().st_uid != uid:
            raise SystemExit(f"hub_exchange: {folder} belongs to uid {folder.stat().st_uid}, not {instructor}: "
                             "someone else made it; look at it, remove it and run 'hub.sh course' again")
        folder.mkdir(parents=True, exist_ok=True)
        os.chown(folder, uid, gid)
        os.chmod(folder, mode)


def problems(root: Path, course_id: str, instructor: str) -> list[str]:
    """What in the exchange a student could take over or read, one sentence each (empty:
    none): every folder above ROOT must be root's and writable by nobody else unless sticky;
    the folders of layout() must have their owner, no write permission for others beyond
    it, the sticky bit where it has one, and inbound must not be listable by others."""
    found = []
    for parent in reversed(root.resolve().parents):
        st = parent.stat()
        if st.st_uid != 0 or (st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX):
            found.append(f"{parent} (above the exchange) is not root's or may be renamed in by others "
                         f"(owner uid {st.st_uid}, mode {stat.S_IMODE(st.st_mode):o})")
    for folder, (uid, gid, mode) in layout(root, course_id, instructor).items():
        if not folder.is_dir() or folder.is_symlink():
            found.append(f"{folder} is missing (run 'hub.sh course')")
            continue
        st = folder.stat()
        have = stat.S_IMODE(st.st_mode)
        if st.st_uid != uid:
            found.append(f"{folder} belongs to uid {st.st_uid}, not {uid}")
        if gid != -1 and st.st_gid != gid:
            found.append(f"{folder} has group {st.st_gid}, not the instructor's {gid}")
        if have & 0o022 & ~mode:
            found.append(f"{folder} may be written by others (mode {have:o}, wanted {mode:o})")
        if mode & stat.S_ISVTX and not have & stat.S_ISVTX:
            found.append(f"{folder} lacks the sticky bit: anyone could rename what is in it (mode {have:o})")
        if have & 0o044 & ~mode:
            found.append(f"{folder} may be listed by others (mode {have:o}, wanted {mode:o})")
    return found


def main(argv: list[str]) -> int:
    """Command line (see the module's docstring); returns the exit status."""
    if len(argv) != 4 or argv[0] not in ("setup", "check"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    root, course_id, instructor = Path(argv[1]), argv[2], argv[3]
    if argv[0] == "setup":
        setup(root, course_id, instructor)
    found = problems(root, course_id, instructor)
    for line in found:
        print(f"hub_exchange: {line}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
