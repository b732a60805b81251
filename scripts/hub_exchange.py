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

nbgrader's collect trusts what a student with a shell controls: the name of a folder in
inbound (whose submission it is, and when), links in it (it copies through them), its
modes and shapes (an unreadable folder or a name that does not parse stops the whole
collect; a link to /dev/zero never ends). The third class, ``ExchangeCollect``, collects
only what each student sent, as that student, at a time they cannot write; its docstring
lists how, and docs/hub.md's security section lists every class of attack.
"""
from __future__ import annotations

import datetime
import fnmatch
import glob
import os
import pwd
import re
import shutil
import stat
import struct
import sys
import tempfile
from pathlib import Path

# -- the exchange classes the hub's nbgrader config selects -------------------------------------
try:
    from nbgrader.exchange.default.collect import ExchangeCollect as _Collect
    from nbgrader.exchange.default.release_feedback import ExchangeReleaseFeedback as _ReleaseFeedback
    from nbgrader.exchange.default.submit import ExchangeSubmit as _Submit
    from nbgrader.utils import notebook_hash, parse_utc
except ImportError:  # the setup/check commands need no nbgrader
    _Collect = _ReleaseFeedback = _Submit = object  # type: ignore[assignment,misc]

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


# -- collecting: only what each student sent, as that student, at a time they cannot write ------
# A claimed submission time at most this many seconds before the last change the kernel recorded
# in the submission (its ctime) is believed: nbgrader's submit takes the time, then copies the
# files and the hub's submit protects them, all of which changes ctime a moment later.
CLAIM_SLACK_SECONDS = 60
# Bounds on one submission folder beyond nbgrader's own size limits (CourseDirectory.max_file_size
# and max_dir_size): how deep its folders go and how many entries it may hold.
MAX_DEPTH = 8
MAX_ENTRIES = 10_000
# nbgrader's submit: base64.urlsafe_b64encode(os.urandom(9)), after the time (add_random_string)
_RANDOM_TAIL = re.compile(r"\+[A-Za-z0-9_-]{12}$")
_OPEN_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_OPEN_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


def shown(name) -> str:
    """A name a student chose, as printable ASCII for a log line (control characters,
    terminal escapes, bidi overrides and undecodable bytes all shown as escapes)."""
    if isinstance(name, bytes):
        name = name.decode("utf-8", "surrogateescape")
    return ascii(name)


class Refused(Exception):
    """A submission, or an entry of one, that is not collected; ``str(exc)`` says why."""


def _kind(mode: int) -> str:
    for test, what in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISDIR, "a folder"), (stat.S_ISREG, "a file")):
        if test(mode):
            return what
    return "an unknown kind of entry"


def walk_submission(top_fd: int, uid: int, *, dest: str | None, wanted, max_file: int, max_total: int,
                    skipped: list) -> float:
    """Go through the submission folder open at ``top_fd`` without following anything, and
    copy it to the folder ``dest`` (None: only look). Returns the latest ctime (seconds since
    the epoch) of the folder and of everything in it: the last moment anything in it changed,
    which no unprivileged user can set back.

    Only folders and regular files owned by ``uid`` are entered or read, each opened relative
    to its folder's descriptor with ``O_NOFOLLOW`` (a symbolic link is never followed, a FIFO
    or device never opened: ``lstat`` first, then ``fstat`` of the open descriptor must show the
    same regular file); a file with another link (a hard link) is not read. Entries ``wanted``
    (``wanted(name, is_folder)``) rejects are left out silently, as nbgrader's include and
    ignore patterns do; every other entry left out is appended to ``skipped`` with why.
    Depth, entry count (``MAX_DEPTH``, ``MAX_ENTRIES``), each file (``max_file`` bytes) and the
    whole (``max_total``) are bounded; reading stops at the bound even if a file grows.

    Raises Refused when the whole submission is over ``max_total`` or cannot be read."""
    latest = os.fstat(top_fd).st_ctime
    state = {"total": 0, "entries": 0}
    stack = [(top_fd, "", dest, 0)]
    try:
        while stack:
            fd, rel, out, depth = stack.pop()
            try:
                latest = max(latest, _walk_folder(fd, rel, out, depth, uid, wanted, max_file, max_total,
                                                  skipped, stack, state))
            finally:
                if fd != top_fd:
                    os.close(fd)
    finally:
        for fd, *_ in stack:
            os.close(fd)
    return latest


def _walk_folder(fd, rel, out, depth, uid, wanted, max_file, max_total, skipped, stack, state) -> float:
    """One folder of ``walk_submission``: copy its files, push its folders on ``stack``;
    returns the latest ctime among its entries."""
    latest = 0.0
    try:
        with os.scandir(fd) as it:
            listing = []
            for entry in it:
                state["entries"] += 1
                if state["entries"] > MAX_ENTRIES:
                    raise Refused(f"holds more than {MAX_ENTRIES} entries")
                listing.append(entry.name)
    except PermissionError:
        if not rel:
            raise Refused("cannot be read") from None
        skipped.append(f"{shown(rel)} cannot be read")
        return latest
    for name in sorted(listing):
        path = f"{rel}/{name}" if rel else name
        try:
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except OSError as exc:
            skipped.append(f"{shown(path)}: {exc.strerror}")
            continue
        latest = max(latest, st.st_ctime)
        folder = stat.S_ISDIR(st.st_mode)
        if not wanted(name, folder):
            continue
        if not (folder or stat.S_ISREG(st.st_mode)):
            skipped.append(f"{shown(path)} is {_kind(st.st_mode)}: only files and folders are collected")
            continue
        if st.st_uid != uid:
            skipped.append(f"{shown(path)} belongs to uid {st.st_uid}, not to the submitting student")
            continue
        if folder:
            if depth + 1 > MAX_DEPTH:
                skipped.append(f"{shown(path)} lies more than {MAX_DEPTH} folders deep")
                continue
            try:
                sub = os.open(name, _OPEN_DIR, dir_fd=fd)
            except OSError as exc:
                skipped.append(f"{shown(path)}: {exc.strerror}")
                continue
            if os.fstat(sub).st_ino != st.st_ino:  # replaced between the look and the open
                os.close(sub)
                skipped.append(f"{shown(path)} changed while being collected")
                continue
            sub_out = None
            if out is not None:
                sub_out = os.path.join(out, name)
                os.mkdir(sub_out, 0o755)
            stack.append((sub, path, sub_out, depth + 1))
            continue
        if st.st_nlink != 1:
            skipped.append(f"{shown(path)} has {st.st_nlink} links (a hard link): not collected")
            continue
        if st.st_size > max_file:
            skipped.append(f"{shown(path)} is {st.st_size} bytes, over the {max_file} a file may have")
            continue
        if state["total"] + st.st_size > max_total:
            raise Refused(f"is over the {max_total} bytes a submission may have")
        if out is None:
            state["total"] += st.st_size
        else:
            state["total"] += _copy_file(fd, name, path, st, os.path.join(out, name),
                                         min(max_file, max_total - state["total"]), skipped)
    return latest


def _copy_file(dir_fd, name, path, st, target, limit, skipped) -> int:
    """Copy the regular file ``name`` (looked at as ``st``) of the folder ``dir_fd`` to
    ``target``, reading at most ``limit`` bytes; returns the bytes copied (0 when skipped)."""
    try:
        src = os.open(name, _OPEN_FILE, dir_fd=dir_fd)
    except OSError as exc:
        skipped.append(f"{shown(path)}: {exc.strerror}")
        return 0
    try:
        now = os.fstat(src)
        if not stat.S_ISREG(now.st_mode) or (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino) or now.st_nlink != 1:
            skipped.append(f"{shown(path)} changed while being collected")
            return 0
        data = bytearray()
        while len(data) <= limit:
            chunk = os.read(src, min(1 << 20, limit + 1 - len(data)))
            if not chunk:
                break
            data += chunk
        if len(data) > limit:
            skipped.append(f"{shown(path)} grew past {limit} bytes while being collected")
            return 0
        if os.fstat(src).st_ctime != st.st_ctime:  # written to while being read
            skipped.append(f"{shown(path)} changed while being collected")
            return 0
    except OSError as exc:
        skipped.append(f"{shown(path)}: {exc.strerror}")
        return 0
    finally:
        os.close(src)
    out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    with os.fdopen(out, "wb") as fh:
        fh.write(data)
    return len(data)


class ExchangeCollect(_Collect):  # type: ignore[misc,valid-type]
    """nbgrader's collect for a hub where students have a shell: only what each student sent.

    * **Whose it is**: a submission folder in inbound is collected only when the unix user
      who owns it is the student its name claims (``<student>+<assignment>+<time>[+<random>]``);
      any other is refused with a message, never collected with a warning.
    * **What is read**: every folder and file is opened relative to its parent's descriptor
      without following links; links, FIFOs, devices, sockets, hard links and entries owned
      by someone else are skipped with a message naming them (``walk_submission``); sizes are
      bounded by nbgrader's ``max_file_size`` and ``max_dir_size`` and by ``MAX_DEPTH`` and
      ``MAX_ENTRIES``.
    * **Nothing jams the class**: a name that does not parse, a folder that cannot be read or
      is over a bound is skipped with a message naming it; the rest of the class is collected.
      A submission is copied into a new folder and put in place only when whole, so a failed
      copy leaves the one collected before.
    * **When it was sent**: the time in the folder's name and in ``timestamp.txt`` is the
      student's to write, so it is checked against the last change of anything in the
      folder (its ctime, which only the kernel sets): a claim up to ``CLAIM_SLACK_SECONDS``
      before it is kept, any other is replaced by it and the difference is logged. That
      time of record orders a student's submissions and is what ``timestamp.txt`` in
      ``submitted/`` holds (late penalties, ``nbgrader export``).
    """

    def init_src(self):
        """Choose each student's submission to collect (``self.src_records``); what is refused
        is logged and left in inbound."""
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.course_path = os.path.join(self.root, self.coursedir.course_id)
        self.inbound_path = os.path.join(self.course_path, "inbound")
        try:
            st = os.lstat(self.inbound_path)
        except OSError:
            self.fail(f"Course not found: {self.inbound_path}")
        if not stat.S_ISDIR(st.st_mode) or st.st_uid not in (0, os.geteuid()):
            self.fail(f"{self.inbound_path} is not a folder of yours (run 'hub.sh course'): not collecting from it")
        self.refused = 0
        assignment = self.coursedir.assignment_id
        wanted_student = self.coursedir.student_id or "*"
        by_student = {}
        with os.scandir(self.inbound_path) as it:
            names = sorted(entry.name for entry in it)
        for name in names:
            if f"+{assignment}+" not in name:
                continue  # another assignment's (or not a submission at all)
            record = self._record(name)
            if record is not None and fnmatch.fnmatchcase(record["username"], wanted_student):
                by_student.setdefault(record["username"], []).append(record)
        duedate = None
        try:
            from nbgrader.api import Gradebook, MissingEntry
            with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gb:
                try:
                    duedate = gb.find_assignment(assignment).duedate
                except MissingEntry:
                    pass
        except Exception as exc:  # a gradebook that cannot be opened: collect the latest
            self.log.warning("No due date read from the gradebook (%s): collecting each student's latest", exc)
        self.src_records = []
        for records in by_student.values():
            records.sort(key=lambda r: r["timestamp"], reverse=True)
            if duedate is not None and self.before_duedate:
                early = [r for r in records if r["timestamp"] <= duedate]
                records = early or records
            self.src_records.append(records[0])

    def _refuse(self, name, why):
        self.refused += 1
        self.log.warning("Not collected: inbound/%s %s", shown(name), why)

    def _record(self, name):
        """``{'username', 'filename', 'timestamp', 'claimed', 'uid'}`` of the inbound entry
        ``name`` (timestamp: the time of record), or None when it is refused (logged)."""
        try:
            st = os.lstat(os.path.join(self.inbound_path, name))
        except OSError as exc:
            return self._refuse(name, f"cannot be looked at: {exc.strerror}")
        if not stat.S_ISDIR(st.st_mode):
            return self._refuse(name, f"is {_kind(st.st_mode)}, not a submission folder")
        try:
            owner = pwd.getpwuid(st.st_uid).pw_name
        except KeyError:
            return self._refuse(name, f"belongs to uid {st.st_uid}, which is no user")
        prefix = f"{owner}+{self.coursedir.assignment_id}+"
        if not name.startswith(prefix):
            claimed = name.split(f"+{self.coursedir.assignment_id}+", 1)[0]
            return self._refuse(name, f"claims to be {shown(claimed)}'s but belongs to {shown(owner)}: refused")
        if owner in (".", "..") or os.sep in owner:
            return self._refuse(name, f"names {shown(owner)}, which cannot be a student's folder")
        claimed = self._parse_time(name[len(prefix):])
        if claimed is None:
            return self._refuse(name, "does not end in a submission time nbgrader can read")
        fd = self._open_submission(name)
        if fd is None:
            return None
        try:
            changed = walk_submission(fd, st.st_uid, dest=None, wanted=self._wanted, skipped=[],
                                      max_file=self._max_file, max_total=self._max_total)
        except (Refused, OSError) as exc:
            return self._refuse(name, str(exc))
        finally:
            os.close(fd)
        return {"username": owner, "filename": name, "uid": st.st_uid, "claimed": claimed,
                "timestamp": self._time_of_record(claimed, changed)}

    @staticmethod
    def _parse_time(rest):
        """The UTC time (naive datetime) of a submission's name after ``<student>+<assignment>+``,
        or None. The random string nbgrader's submit appends (``+`` and 12 characters of
        URL-safe base64) is cut off before parsing: dateutil reads one such as ``+3KqE...`` as a
        zone offset of three hours, which would put a true claim outside the slack."""
        random_tail = _RANDOM_TAIL.search(rest)
        for text in ((rest[:random_tail.start()], rest) if random_tail else (rest,)):
            try:
                return parse_utc(text)
            except Exception:  # dateutil raises ParserError, OverflowError, ValueError ...
                continue
        return None

    @staticmethod
    def _time_of_record(claimed, changed):
        last_change = datetime.datetime.fromtimestamp(changed, datetime.timezone.utc).replace(tzinfo=None)
        slack = datetime.timedelta(seconds=CLAIM_SLACK_SECONDS)
        return claimed if last_change - slack <= claimed <= last_change else last_change

    def _open_submission(self, name):
        try:
            return os.open(os.path.join(self.inbound_path, name), _OPEN_DIR)
        except OSError as exc:
            return self._refuse(name, f"cannot be read: {exc.strerror}")

    @property
    def _max_file(self):
        return 1000 * self.coursedir.max_file_size

    @property
    def _max_total(self):
        return 1000 * self.coursedir.max_dir_size

    def _wanted(self, name, folder):
        if any(fnmatch.fnmatch(name, glob_) for glob_ in self.coursedir.ignore):
            return False
        return folder or any(fnmatch.fnmatch(name, glob_) for glob_ in self.coursedir.include)

    def copy_files(self):
        """Copy each chosen submission into ``submitted/<student>/<assignment>/`` (through a
        new folder put in place when whole), with the time of record in ``timestamp.txt``."""
        assignment = self.coursedir.assignment_id
        if not self.src_records:
            self.log.warning("No submissions of '%s' for course '%s' to collect", assignment, self.coursedir.course_id)
        for rec in self.src_records:
            student = rec["username"]
            dest = self.coursedir.format_path(self.coursedir.submitted_directory, student, assignment)
            if os.path.isdir(dest):
                existing = self.coursedir.get_existing_timestamp(dest)
                newer = existing is None or rec["timestamp"] > existing
                if not ((self.update and newer) or (self.before_duedate and existing != rec["timestamp"])):
                    self.log.info("%s: %s %s", "No newer submission to collect" if self.update else
                                  "Submission already exists, use --update to update", student, assignment)
                    continue
            self._collect_one(rec, dest)
        if self.refused:
            self.log.warning("%d folder(s) in inbound were not collected (above); the rest of the class was",
                             self.refused)

    def _collect_one(self, rec, dest):
        from dateutil.tz import gettz
        name, student = rec["filename"], rec["username"]
        fd = self._open_submission(name)
        if fd is None:
            return
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        new = tempfile.mkdtemp(prefix=f".{os.path.basename(dest)}.collecting-", dir=os.path.dirname(dest))
        skipped = []
        try:
            changed = walk_submission(fd, rec["uid"], dest=new, wanted=self._wanted, skipped=skipped,
                                      max_file=self._max_file, max_total=self._max_total)
        except (Refused, OSError) as exc:
            shutil.rmtree(new, ignore_errors=True)
            return self._refuse(name, str(exc))
        finally:
            os.close(fd)
        for line in skipped:
            self.log.warning("Left out of inbound/%s: %s", shown(name), line)
        when = self._time_of_record(rec["claimed"], changed)
        if when != rec["claimed"]:
            self.log.warning("inbound/%s claims it was submitted at %s UTC, but its files last changed at %s UTC: "
                             "recorded as %s UTC (the time the student cannot set)", shown(name), rec["claimed"],
                             when, when)
        recorded = when.replace(tzinfo=datetime.timezone.utc).astimezone(gettz(self.timezone))
        with open(os.path.join(new, "timestamp.txt"), "w") as fh:
            fh.write(recorded.strftime(self.timestamp_format))
        os.chmod(new, 0o755)
        if os.path.isdir(dest):
            self.log.info("Updating submission: %s %s", student, self.coursedir.assignment_id)
            old = dest + ".replaced"
            shutil.rmtree(old, ignore_errors=True)
            os.rename(dest, old)
            os.rename(new, dest)
            shutil.rmtree(old)
        else:
            self.log.info("Collecting submission: %s %s", student, self.coursedir.assignment_id)
            os.rename(new, dest)


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
