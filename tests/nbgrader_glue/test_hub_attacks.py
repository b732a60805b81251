"""The course hub against a student with a shell (scripts/hub_exchange.py, scripts/hub_autograde.py,
autograder/nbgrader_glue/inert.py), as real unix users.

Runs as root on the session's fresh hub prefix (conftest's ``hub_prefix``): ``hub.sh course`` for
an instructor, ``hub.sh users`` for two honest students and an attacker; every command runs as
its user through ``runuser`` with the hub's environment, as a JupyterLab terminal on the hub
would. The instructor generates and releases ``attention``; the honest students fetch it, fill in
the reference solutions and submit with nbgrader. Each test then plants one class of attack as
the attacker, with the attacker's own tools (mkdir, ln, chmod, mkfifo, touch, python), runs the
instructor's ``nbgrader collect --update`` and the grade of record (``python -m autograder grade
submitted/``), and asserts that the attack is refused with a message naming it, and that every
honest student is collected and graded as if the attacker were not there: their notebook
byte for byte as they sent it, the time they claimed, full marks. What a student controls on the
hub is names, links, modes, times, markup and shared folders; each test takes one. The users,
their homes, the course folder and the exchange are removed at the end, also when a step fails.
"""
import csv
import datetime
import html.parser
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest

from autograder.checks.declared import points_by_function
from autograder.core.registry import EXERCISES, PROJECT_ROOT
from autograder.demo.fill import filled_notebook

pytestmark = pytest.mark.slow

INSTRUCTOR = "lmrt-teach"
HONEST = ("lmrt-amy", "lmrt-ben")
ATTACKER = "lmrt-eve"
COURSE_ID = "lm-reads-text"
NAME = "attention"
ATTENTION = EXERCISES[NAME]
FULL_MARKS = sum(points_by_function(ATTENTION).values())  # the checks' points: 19
TS_FORMAT = "%Y-%m-%d %H:%M:%S.%f UTC"


def _hub_sh(env, *args, check=True):
    proc = subprocess.run(["bash", str(PROJECT_ROOT / "scripts" / "hub.sh"), *args], env=env,
                          capture_output=True, text=True, timeout=1800)
    if check:
        assert proc.returncode == 0, f"hub.sh {' '.join(args)}:\n{proc.stdout}\n{proc.stderr}"
    return proc


def _utc(text):
    return datetime.datetime.strptime(text.strip(), TS_FORMAT)


class Term:
    """The users, folders and environment of a term under attack."""

    def __init__(self, prefix, tmp):
        self.prefix = prefix
        self.exchange = Path(tempfile.mkdtemp(prefix="lmrt-exchange-", dir="/tmp"))
        # not under /tmp: the grading sandbox puts a scratch folder of its own over /tmp
        self.course = Path(tempfile.mkdtemp(prefix="lmrt-course-", dir="/var/tmp"))
        shutil.rmtree(self.course)  # hub.sh course copies the course into a new folder
        self.everyone = tmp / "everyone.txt"
        self.everyone.write_text("\n".join((INSTRUCTOR, *HONEST, ATTACKER)) + "\n")
        self.roster = tmp / "roster.txt"
        self.roster.write_text("\n".join((*HONEST, ATTACKER)) + "\n")
        self.env = dict(os.environ, HUB_PREFIX=str(prefix), HUB_INSTRUCTOR=INSTRUCTOR,
                        HUB_COURSE_DIR=str(self.course), NBGRADER_EXCHANGE=str(self.exchange))
        self.inbound = self.exchange / COURSE_ID / "inbound"
        self.sent = {}  # honest student -> (notebook bytes, claimed time) of what they submitted

    def home(self, user):
        return Path(pwd.getpwnam(user).pw_dir)

    def run(self, user, *command, timeout=900):
        env = {"HOME": str(self.home(user)), "USER": user, "PATH": f"{self.prefix / 'venv' / 'bin'}:/usr/bin:/bin",
               "NBGRADER_EXCHANGE": str(self.exchange), "LANG": "C.UTF-8"}
        if user == INSTRUCTOR:
            env["PYTHONPATH"] = str(self.course)
        cwd = self.course if user == INSTRUCTOR else self.home(user)
        return subprocess.run(["runuser", "-u", user, "--", "env", "-i", *[f"{k}={v}" for k, v in env.items()],
                               *command], cwd=cwd, capture_output=True, text=True, timeout=timeout)

    def ok(self, user, *command, timeout=900):
        proc = self.run(user, *command, timeout=timeout)
        assert proc.returncode == 0, f"{user}: {' '.join(command)}:\n{proc.stdout}\n{proc.stderr}"
        return proc

    def py(self, user, code, *args):
        """Run Python ``code`` as ``user`` (the attacker's own tool for what a shell line cannot do)."""
        return self.ok(user, "python", "-c", code, *args)

    def write_notebook(self, user, path, nb):
        self.py(user, "import sys; open(sys.argv[1], 'w').write(sys.argv[2])", str(path), nbformat.writes(nb))

    def submit(self, user, nb):
        """``user`` fetches (once), writes ``nb`` as their notebook and submits with nbgrader;
        returns the inbound folder's name."""
        work = self.home(user) / NAME
        if not work.is_dir():
            self.ok(user, "nbgrader", "fetch_assignment", NAME)
        self.write_notebook(user, work / ATTENTION.notebook, nb)
        before = set(self.own_submissions(user))
        self.ok(user, "nbgrader", "submit", NAME)
        (new,) = set(self.own_submissions(user)) - before
        return new

    def own_submissions(self, user):
        return [p.name for p in self.inbound.iterdir() if p.name.startswith(f"{user}+{NAME}+")]

    def collect(self):
        """The instructor's ``nbgrader collect --update``: its output (stdout and stderr)."""
        proc = self.ok(INSTRUCTOR, "nbgrader", "collect", "--update", NAME, timeout=600)
        return proc.stdout + proc.stderr

    def grade(self):
        """The grade of record over submitted/; returns grades.csv's rows by student."""
        self.ok(INSTRUCTOR, "python", "-m", "autograder", "grade", "submitted/", timeout=1800)
        with open(self.course / "graded" / "grades.csv", newline="") as f:
            return {r["student_id"]: r for r in csv.DictReader(f)}

    def submitted(self, user):
        return self.course / "submitted" / user / NAME

    def assert_honest_untouched(self, grades=None):
        """Every honest student collected as they sent it, at the time they claimed, with full marks."""
        for user in HONEST:
            data, claimed = self.sent[user]
            assert (self.submitted(user) / ATTENTION.notebook).read_bytes() == data, user
            assert _utc((self.submitted(user) / "timestamp.txt").read_text()) == claimed, user
            if grades is not None:
                assert float(grades[user]["score"]) == FULL_MARKS, (user, grades[user])

    def as_attacker(self, *lines):
        """Shell lines run as the attacker, in their home."""
        self.ok(ATTACKER, "bash", "-euc", "\n".join(lines))


@pytest.fixture(scope="module")
def term(hub_prefix, tmp_path_factory):
    t = Term(hub_prefix, tmp_path_factory.mktemp("attacks"))
    _hub_sh(t.env, "remove-users", str(t.everyone), check=False)  # leftovers of an aborted run
    try:
        _hub_sh(t.env, "course")
        _hub_sh(t.env, "users", str(t.roster))
        t.ok(INSTRUCTOR, "nbgrader", "generate_assignment", NAME)
        t.ok(INSTRUCTOR, "nbgrader", "release_assignment", NAME)
        for user in HONEST:
            folder = t.submit(user, filled_notebook(ATTENTION))
            claimed = _utc((t.inbound / folder / "timestamp.txt").read_text())
            t.sent[user] = ((t.home(user) / NAME / ATTENTION.notebook).read_bytes(), claimed)
        t.submit(ATTACKER, filled_notebook(ATTENTION))  # the attacker's own honest-looking first hand-in
        out = t.collect()
        assert "Not collected" not in out, out
        t.assert_honest_untouched(t.grade())
        yield t
    finally:
        _hub_sh(t.env, "remove-users", str(t.everyone), check=False)
        for folder in (t.exchange, t.course):
            shutil.rmtree(folder, ignore_errors=True)


def _now():
    return datetime.datetime.now(datetime.timezone.utc).strftime(TS_FORMAT)


def test_a_submission_in_another_students_name_is_refused(term):
    victim = HONEST[0]
    blank = nbformat.writes(nbformat.read(ATTENTION.release_notebook, as_version=4))
    for claimed, when in ((victim, "2099-01-01 00:00:00.000000 UTC"), (HONEST[1], _now())):
        folder = term.inbound / f"{claimed}+{NAME}+{when}+forged"
        term.as_attacker(f"mkdir '{folder}'", f"printf '%s' '{when}' > '{folder}/timestamp.txt'")
        term.py(ATTACKER, "import sys; open(sys.argv[1], 'w').write(sys.argv[2])",
                str(folder / ATTENTION.notebook), blank)
    out = term.collect()
    for claimed in HONEST:
        assert f"claims to be '{claimed}''s but belongs to '{ATTACKER}': refused" in out, out
    term.assert_honest_untouched(term.grade())
    # the victim's next honest submission is collected: the forged 2099 folder does not outrank it
    nb = filled_notebook(ATTENTION)
    nb.cells.append(nbformat.v4.new_markdown_cell("Resubmitted."))
    folder = term.submit(victim, nb)
    term.sent[victim] = ((term.home(victim) / NAME / ATTENTION.notebook).read_bytes(),
                         _utc((term.inbound / folder / "timestamp.txt").read_text()))
    out = term.collect()
    assert f"Updating submission: {victim} {NAME}" in out, out
    term.assert_honest_untouched(term.grade())


def test_links_in_a_submission_are_never_followed(term):
    source = term.course / "source" / NAME / ATTENTION.notebook
    amy = term.submitted(HONEST[0]) / ATTENTION.notebook
    mine = term.inbound / f"{ATTACKER}+{NAME}+{_now()}+links"
    whole = term.inbound / f"{ATTACKER}+{NAME}+{_now()}+whole"
    term.as_attacker(f"mkdir '{mine}'", f"ln -s '{source}' '{mine}/{ATTENTION.notebook}'",
                     f"ln -s '{amy}' '{mine}/copied.ipynb'", f"ln -s '{term.course}/source/{NAME}' '{whole}'")
    out = term.collect()
    assert f"{ATTENTION.notebook}' is a symbolic link" in out and "'copied.ipynb' is a symbolic link" in out, out
    assert "is a symbolic link, not a submission folder" in out, out
    collected = term.submitted(ATTACKER)
    assert not (collected / ATTENTION.notebook).exists() and not (collected / "copied.ipynb").exists()
    solutions = source.read_text()
    assert "### BEGIN SOLUTION" in solutions  # what the link would have handed over
    assert not any("### BEGIN SOLUTION" in p.read_text(errors="replace") for p in collected.rglob("*") if p.is_file())
    term.assert_honest_untouched(term.grade())
    identical = term.course / "graded" / "identical.csv"
    # the victim is not flagged as identical to the attacker (the honest two handed in the same reference)
    pairs = identical.read_text().splitlines() if identical.is_file() else []
    assert not [line for line in pairs if HONEST[0] in line and ATTACKER in line], pairs


def test_folders_shaped_to_jam_collect_are_skipped_and_the_class_is_collected(term):
    ts = _now()
    bad_time = term.inbound / f"{ATTACKER}+{NAME}+not a date+x"
    escapes = term.inbound / f"{ATTACKER}+{NAME}+\x1b]0;owned\x07<img src=x onerror=alert(1)>"
    locked = term.inbound / f"{ATTACKER}+{NAME}+2098-01-01 00:00:00.000000 UTC+locked"
    shapes = term.inbound / f"{ATTACKER}+{NAME}+{ts}+shapes"
    term.as_attacker(
        f"mkdir '{bad_time}' '{locked}' '{shapes}'", f"mkdir $'{escapes}'",
        f"touch '{locked}/{ATTENTION.notebook}'", f"chmod 000 '{locked}'",
        f"ln -s /dev/zero '{shapes}/{ATTENTION.notebook}'",
        f"mkfifo '{shapes}/fifo.ipynb'",
        f"truncate -s 300M '{shapes}/huge.ipynb'",
        f"echo '{{}}' > '{shapes}/own.ipynb'", f"ln '{shapes}/own.ipynb' ~/hardlink.ipynb",
        f"mkdir -p '{shapes}/{'/'.join(['d'] * 12)}'", f"echo '{{}}' > '{shapes}/{'/'.join(['d'] * 12)}/deep.ipynb'",
        f"touch '{term.inbound}/{ATTACKER}+{NAME}+{ts}+afile'",
        f"mkfifo '{term.inbound}/{ATTACKER}+{NAME}+{ts}+afifo'",
    )
    try:
        out = term.collect()  # within collect()'s time limit: the /dev/zero link used to write without end
        for why in ("does not end in a submission time nbgrader can read", "cannot be read: Permission denied",
                    f"'{ATTENTION.notebook}' is a symbolic link", "'fifo.ipynb' is a FIFO",
                    "'huge.ipynb' is 314572800 bytes", "'own.ipynb' has 2 links", "folders deep",
                    "is a file, not a submission folder", "is a FIFO, not a submission folder"):
            assert why in out, (why, out)
        # the hostile name is shown escaped: no terminal control character reaches the instructor's screen
        assert "\\x1b]0;owned\\x07" in out and "\x1b" not in out
        term.assert_honest_untouched(term.grade())
        assert not (term.submitted(ATTACKER) / "huge.ipynb").exists()
    finally:
        os.chmod(locked, 0o700)


def test_a_submission_many_entries_wide_is_refused_whole(term):
    wide = term.inbound / f"{ATTACKER}+{NAME}+{_now()}+wide"
    term.as_attacker(f"mkdir '{wide}'")
    term.py(ATTACKER, "import os, sys\nfor i in range(10_050): open(os.path.join(sys.argv[1], f'f{i}'), 'w').close()",
            str(wide))
    out = term.collect()
    assert "holds more than 10000 entries" in out, out
    term.assert_honest_untouched(term.grade())


def test_a_backdated_submission_is_recorded_at_the_time_it_was_made(term):
    folder = term.submit(ATTACKER, filled_notebook(ATTENTION))
    made = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    early = (made - datetime.timedelta(hours=1)).strftime(TS_FORMAT)
    backdated = term.inbound / f"{ATTACKER}+{NAME}+{early}+back"
    term.as_attacker(f"mv '{term.inbound / folder}' '{backdated}'", f"printf '%s' '{early}' > '{backdated}/timestamp.txt'",
                     f"touch -d '{early}' '{backdated}' '{backdated}'/*")
    out = term.collect()
    assert f"claims it was submitted at {_utc(early)} UTC" in out, out
    recorded = _utc((term.submitted(ATTACKER) / "timestamp.txt").read_text())
    assert recorded >= made - datetime.timedelta(seconds=5), (recorded, made)  # not the claim: when it changed
    term.assert_honest_untouched(term.grade())
    # and a claim in the future gives no lead over later submissions: it is recorded when made too
    future = term.inbound / f"{ATTACKER}+{NAME}+2097-01-01 00:00:00.000000 UTC+future"
    term.as_attacker(f"cp -r '{backdated}' '{future}'")
    out = term.collect()
    assert "claims it was submitted at 2097-01-01 00:00:00 UTC" in out, out
    assert _utc((term.submitted(ATTACKER) / "timestamp.txt").read_text()).year == made.year


def test_no_student_code_runs_as_the_instructor_through_nbgrader_autograde(term):
    marker = Path(tempfile.gettempdir()) / f"lmrt-autograde-ran-{os.getpid()}"
    nb = filled_notebook(ATTENTION)
    nb.cells.insert(1, nbformat.v4.new_code_cell(
        f"import getpass, pathlib; pathlib.Path({str(marker)!r}).write_text(getpass.getuser())"))
    term.submit(ATTACKER, nb)
    term.collect()
    term.grade()  # the confined grader: the cell runs in the sandbox, where /tmp is its own
    assert not marker.exists()
    proc = term.run(INSTRUCTOR, "nbgrader", "autograde", NAME)
    said = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "switched off on this hub" in said and "python -m autograder grade" in said, said
    # formgrader's Autograde button: nbgrader's API, as formgrader calls it
    api = term.py(INSTRUCTOR, "import json, sys\n"
                  "from nbgrader.apps.api import NbGraderAPI\nfrom nbgrader.apps.baseapp import NbGrader\n"
                  "from nbgrader.auth import Authenticator\nfrom nbgrader.coursedir import CourseDirectory\n"
                  "app = NbGrader(); app.load_config_file()\n"
                  "api = NbGraderAPI(CourseDirectory(config=app.config), Authenticator(config=app.config), config=app.config)\n"
                  "print(json.dumps(api.autograde(sys.argv[1], sys.argv[2])))", NAME, ATTACKER)
    answer = json.loads(api.stdout.strip().splitlines()[-1])
    assert answer["success"] is False and "switched off on this hub" in answer["log"], answer
    assert not marker.exists()
    # nothing the grader wrote was removed by the refused autograde
    for user in (*HONEST, ATTACKER):
        assert (term.course / "autograded" / user / NAME / ATTENTION.notebook).is_file(), user


def test_markup_a_student_submits_is_inert_in_the_autograded_copy_and_the_reports(term):
    payload = "<img src=x onerror=\"window.lmrt_pwned=1\"> [x](javascript:window.lmrt_pwned=1) <script>lmrt_pwned=1</script>"
    # a function that raises with markup in its message: the message reaches the student's and the class report
    nb = filled_notebook(ATTENTION, replacements={
        "softmax": "def softmax(x):\n    raise ValueError('<img src=x onerror=\"window.lmrt_pwned=1\">')\n"})
    nb.cells.insert(1, nbformat.v4.new_markdown_cell(payload, metadata={"tags": ['"><script>lmrt_pwned=1</script>']}))
    term.submit(ATTACKER, nb)
    term.collect()
    grades = term.grade()
    term.assert_honest_untouched(grades)
    copy = nbformat.read(term.course / "autograded" / ATTACKER / NAME / ATTENTION.notebook, as_version=4)
    students = copy.cells[1:]  # the first cell is the grader's report
    written = json.dumps([(c.source, c.metadata) for c in students if c.cell_type == "markdown"])
    assert "student-markdown" in written and "lmrt_pwned=1" in written  # the markdown is there, as text ...
    for active in ("onerror", "javascript:", "<script"):  # ... and inert
        assert active not in written and active not in json.dumps([c.metadata for c in students]), active
    # the grader's HTML: the attacker's report, the report cell formgrader shows, the class report
    pages = [(term.course / "graded" / NAME / ATTACKER / "report.html").read_text(),
             copy.cells[0].outputs[0]["data"]["text/html"], (term.course / "graded" / "class.html").read_text()]
    assert "lmrt_pwned" in pages[0]  # the message is shown ...
    for page in pages:  # ... as text
        parsed = _Elements()
        parsed.feed(page)
        assert not [a for a in parsed.attrs if "lmrt_pwned" in a] and not parsed.imgs_with_handlers, parsed.attrs


class _Elements(html.parser.HTMLParser):
    """Attribute values and images with handlers in a page, as a browser would parse it."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.attrs, self.imgs_with_handlers = [], []

    def handle_starttag(self, tag, attrs):
        self.attrs.extend(value or "" for _, value in attrs)
        if any(name.startswith("on") for name, _ in attrs) and tag == "img":
            self.imgs_with_handlers.append(attrs)


# -- the two classes of the instructor's own commands in shared folders (sandbox/leftovers.py,
# sandbox/tiktoken_cache.py and sandbox/cache_folder.py hold what stops them; here, on the hub)

def test_nested_leftovers_a_students_code_makes_while_graded_do_not_outlive_it_or_stop_the_class(term):
    mark = f"lmrt-nest-{os.getpid()}"
    nb = filled_notebook(ATTENTION)
    nb.cells.insert(1, nbformat.v4.new_code_cell(
        "import os\n"
        f"for base in ('/dev/shm', '/var/tmp', '/tmp'):\n"
        "    try:\n"
        f"        fd = os.open(base, os.O_RDONLY)\n"
        f"        os.mkdir({mark!r}, dir_fd=fd)\n"
        "        for name in [" + repr(mark) + "] + ['d'] * 1500:\n"
        "            if name == 'd':\n"
        "                os.mkdir('d', 0o700, dir_fd=fd)\n"
        "            sub = os.open(name, os.O_RDONLY, dir_fd=fd); os.close(fd); fd = sub\n"
        "        os.close(fd)\n"
        f"        os.chmod(os.path.join(base, {mark!r}), 0)\n"
        "    except OSError:\n"
        "        pass\n"))
    term.submit(ATTACKER, nb)
    term.collect()
    for _ in range(2):  # grading again finds nothing left that stops it
        term.assert_honest_untouched(term.grade())
    for base in ("/dev/shm", "/var/tmp", "/tmp"):
        assert not os.path.lexists(os.path.join(base, mark)), base


def test_a_planted_cache_link_does_not_overwrite_the_instructors_or_roots_files(term):
    """The student makes tiktoken's default cache folder (``$TMPDIR/data-gym-cache``) first, with
    links at the cache file's name and its temporary name to the instructor's course secret and
    to a file of root's; then the instructor runs ``python -m autograder caches`` as ``hub.sh
    course`` does, and root as ``scripts/setup.sh`` does. In a mount namespace of the test's own
    with a fresh /tmp: the machine's /tmp (and its data-gym-cache) is shared with other users."""
    import hashlib

    from autograder.sandbox.tiktoken_cache import CL100K_URL
    key = hashlib.sha1(CL100K_URL.encode()).hexdigest()
    secret = term.course / ".course_secret"
    before = secret.read_bytes()
    roots = Path(tempfile.mkdtemp(prefix="lmrt-root-", dir="/var/tmp")) / "root-only.txt"
    roots.write_text("root's own")
    os.chmod(roots.parent, 0o755)
    home = term.home(INSTRUCTOR)
    as_student = f"runuser -u {ATTACKER} -- "
    as_instructor = (f"runuser -u {INSTRUCTOR} -- env -i HOME={home} PATH={term.prefix / 'venv' / 'bin'}:/usr/bin:/bin "
                     f"PYTHONPATH={term.course} LANG=C.UTF-8 ")
    # The fresh /tmp would hide a clone (or its venv) that lives under /tmp: bound back in place.
    held = Path(tempfile.mkdtemp(prefix="lmrt-held-", dir="/var/tmp"))
    under_tmp = sorted({p for p in (PROJECT_ROOT.resolve(), Path(sys.prefix).resolve())
                        if Path("/tmp") in p.parents})
    keep = [f"mkdir {held / str(i)} && mount --bind {p} {held / str(i)}" for i, p in enumerate(under_tmp)]
    back = [f"mkdir -p {p} && mount --bind {held / str(i)} {p}" for i, p in enumerate(under_tmp)]
    script = "\n".join([
        "set -eu",
        *keep,
        "mount -t tmpfs -o mode=1777 lmrt-tmp /tmp",
        *back,
        f"{as_student} mkdir -m 777 /tmp/data-gym-cache",
        f"{as_student} ln -s {secret} /tmp/data-gym-cache/{key}.tmp",
        f"{as_student} ln -s {secret} /tmp/data-gym-cache/{key}",
        f"cd {term.course} && {as_instructor} python -m autograder caches",
        f"{as_student} rm -f /tmp/data-gym-cache/{key}.tmp /tmp/data-gym-cache/{key}",
        f"{as_student} ln -s {roots} /tmp/data-gym-cache/{key}.tmp",
        f"{as_student} ln -s {roots} /tmp/data-gym-cache/{key}",
        f"cd {PROJECT_ROOT} && {sys.executable} -m autograder caches",  # root, as scripts/setup.sh
    ])
    try:
        proc = subprocess.run(["unshare", "--mount", "--propagation", "private", "bash", "-c", script],
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert secret.read_bytes() == before
        assert roots.read_text() == "root's own"
        assert "data-gym-cache" in proc.stdout + proc.stderr  # the refused folder is named
    finally:
        shutil.rmtree(roots.parent, ignore_errors=True)
        shutil.rmtree(held, ignore_errors=True)  # its mounts ended with the namespace
    term.assert_honest_untouched(term.grade())
