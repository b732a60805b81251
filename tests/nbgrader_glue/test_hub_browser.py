"""A whole term on the course hub (scripts/hub.sh), driven in a real browser.

Runs as root (it creates unix users): ``hub.sh install`` into a prefix made for this run
(the ``hub_prefix`` fixture of conftest.py: a fresh install, so state an earlier install left
behind cannot hide a fault of a new machine), ``hub.sh course`` for an instructor whose course
folder is a fresh copy of this repository, ``hub.sh users`` for a roster of two students, and
``hub.sh start`` on the loopback address with ports of its own, a temporary exchange and hub
state. Then, in headless Chromium (Debian's ``chromium`` and ``chromium-driver``, driven by
Selenium):

1. the instructor logs in, finds Formgrader in the Nbgrader menu, generates and releases
   ``attention`` in formgrader;
2. each student logs in, sees no Formgrader in the menu and gets 404 from their server's
   ``/formgrader/manage_assignments``, opens the Assignments tab, fetches ``attention``, fills the
   notebook in JupyterLab (ann: the reference solutions; bob: the catalogued mistake of
   forgetting sqrt(d_k) in ``attention_row``), runs every cell and reads the visible checks
   (bob sees his mistake named in the page), presses Validate, and submits;
3. the instructor collects in formgrader, opens a terminal from JupyterLab's launcher, sees it
   open in the course folder, types the grade of record as README writes it (``python -m
   autograder grade submitted/``: the grading sandbox) and reads its summary in the terminal,
   then generates and releases feedback in formgrader;
4. each student fetches feedback in the Assignments tab and opens it: their own score and,
   for bob, the mistake named; neither can open the other's.

Assertions read the DOM (and files the users wrote); a screenshot of every step goes to
``test-output/hub_browser/`` (or ``$HUB_TEST_OUTPUT``). The hub, its proxy, every user's
server and kernels, the browsers and the users are stopped and removed at the end, also
when a step fails.
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from autograder.core.registry import EXERCISES, PROJECT_ROOT
from autograder.demo.fill import reference_code
from autograder.demo.mistakes import all_mistakes

pytestmark = pytest.mark.slow

NAME = "attention"
ATTENTION = EXERCISES[NAME]
INSTRUCTOR = "lmrt-instructor"
STUDENTS = ("lmrt-ann", "lmrt-bob")
ATTACKER = "lmrt-eve"  # submits from her terminal a notebook whose markup would run script as whoever views it
MISTAKE = next(m for m in all_mistakes() if m.id == "attention-no_sqrt_scaling")
OUTPUT = Path(os.environ.get("HUB_TEST_OUTPUT", PROJECT_ROOT / "test-output" / "hub_browser"))
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--window-size=1400,1000"]
WAIT = 180  # seconds any one step may take on a loaded machine (a limit, not a measured time)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _hub_sh(*args, env=None, check=True):
    proc = subprocess.run(["bash", str(PROJECT_ROOT / "scripts" / "hub.sh"), *args], env=env,
                          capture_output=True, text=True, timeout=1800)
    if check:
        assert proc.returncode == 0, f"hub.sh {' '.join(args)}:\n{proc.stdout}\n{proc.stderr}"
    return proc


def _copy_course(dest):
    """The files a clone holds, with the release snapshot of this session (conftest.py)."""
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           cwd=PROJECT_ROOT, capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, files):
        src = PROJECT_ROOT / rel
        if rel.startswith("assignments/") or not src.is_file():
            continue
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest / rel)
    for exercise in EXERCISES.values():
        (dest / "assignments" / exercise.name).mkdir(parents=True, exist_ok=True)
        shutil.copy2(exercise.release_notebook, dest / "assignments" / exercise.name / exercise.notebook)


class Hub:
    """The running hub: its address, users and passwords, course folder, and process."""

    def __init__(self, tmp, prefix):
        self.tmp, self.prefix = tmp, prefix
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.roster = tmp / "roster.txt"
        self.roster.write_text("# the test's students\n" + "\n".join((*STUDENTS, ATTACKER)) + "\n")
        self.everyone = tmp / "everyone.txt"
        self.everyone.write_text("\n".join((INSTRUCTOR, *STUDENTS, ATTACKER)) + "\n")
        # Folders other unix users must reach: under /tmp, not pytest's private tmp_path.
        self.exchange = Path(tempfile.mkdtemp(prefix="lmrt-exchange-", dir="/tmp"))
        self.state = Path(tempfile.mkdtemp(prefix="lmrt-hub-state-", dir="/tmp"))
        # Not under /tmp: the grading sandbox puts a scratch folder of its own over /tmp.
        self.course = Path(tempfile.mkdtemp(prefix="lmrt-course-", dir="/var/tmp"))
        self.passwords = {u: f"pw-{u}-{os.urandom(6).hex()}" for u in (INSTRUCTOR, *STUDENTS)}
        self.env = dict(os.environ, HUB_PREFIX=str(prefix), HUB_INSTRUCTOR=INSTRUCTOR, HUB_COURSE_DIR=str(self.course),
                        NBGRADER_EXCHANGE=str(self.exchange), HUB_STATE=str(self.state), HUB_IP="127.0.0.1",
                        HUB_PORT=str(self.port), HUB_PROXY_API_PORT=str(_free_port()),
                        HUB_INTERNAL_PORT=str(_free_port()))
        self.proc = None
        self.log = None

    def home(self, user):
        import pwd
        return Path(pwd.getpwnam(user).pw_dir)

    def start(self):
        self.log = (OUTPUT / "hub.log").open("w")
        self.proc = subprocess.Popen(["bash", str(PROJECT_ROOT / "scripts" / "hub.sh"), "start", str(self.roster)],
                                     env=self.env, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, (OUTPUT / "hub.log").read_text()
            try:
                with urllib.request.urlopen(f"{self.url}/hub/api", timeout=5) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            time.sleep(1)
        raise AssertionError(f"the hub did not answer on {self.url}:\n{(OUTPUT / 'hub.log').read_text()}")

    def stop(self):
        """Stop the hub (which stops the proxy and the users' servers), then anything left
        of its process group; the users' own leftovers go with remove-users."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                pass
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
        if self.log:
            self.log.close()


def _read_terminals_aloud(hub):
    """Switch on xterm.js's screen-reader mode in the instructor's JupyterLab settings, as a
    person with a screen reader would: JupyterLab draws terminals on a canvas, and this mode
    mirrors the rows on screen as text in the page (``.xterm-accessibility-tree``)."""
    import pwd
    entry = pwd.getpwnam(INSTRUCTOR)
    folder = hub.home(INSTRUCTOR) / ".jupyter" / "lab" / "user-settings" / "@jupyterlab" / "terminal-extension"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "plugin.jupyterlab-settings").write_text(json.dumps({"screenReaderMode": True}))
    for path in [folder, *folder.parents]:
        if path == hub.home(INSTRUCTOR):
            break
        os.chown(path, entry.pw_uid, entry.pw_gid)
    os.chown(folder / "plugin.jupyterlab-settings", entry.pw_uid, entry.pw_gid)


@pytest.fixture(scope="module")
def hub(tmp_path_factory, hub_prefix):
    for program in (CHROMIUM, CHROMEDRIVER):
        assert os.access(program, os.X_OK), f"{program} is missing: bash scripts/setup.sh installs it"
    shutil.rmtree(OUTPUT, ignore_errors=True)
    OUTPUT.mkdir(parents=True)
    h = Hub(tmp_path_factory.mktemp("hub"), hub_prefix)
    _hub_sh("remove-users", str(h.everyone), env=h.env, check=False)  # leftovers of an aborted run
    try:
        _copy_course(h.course)
        _hub_sh("course", env=h.env)
        _read_terminals_aloud(h)
        _hub_sh("users", str(h.roster), env=h.env)
        subprocess.run(["chpasswd"], input="".join(f"{u}:{p}\n" for u, p in h.passwords.items()),
                       text=True, check=True)
        h.start()
        yield h
    finally:
        h.stop()
        _hub_sh("remove-users", str(h.everyone), env=h.env, check=False)
        for folder in (h.exchange, h.state, h.course):
            shutil.rmtree(folder, ignore_errors=True)


class Browser:
    """One user's headless Chromium, with a profile of its own, and the steps they take."""

    def __init__(self, hub, user, tmp):
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
        options = Options()
        options.binary_location = CHROMIUM
        for flag in CHROMIUM_FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={tmp / ('profile-' + user)}")
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        self.driver.set_page_load_timeout(WAIT)
        self.hub, self.user, self.shots = hub, user, 0

    # -- small tools --------------------------------------------------------------------------
    def shot(self, step):
        """Save a screenshot of this step into the test's output folder."""
        self.shots += 1
        self.driver.save_screenshot(str(OUTPUT / f"{int(time.time() * 1000)}-{self.user}-{self.shots:02d}-{step}.png"))

    def wait(self, condition, what, timeout=WAIT):
        from selenium.webdriver.support.ui import WebDriverWait
        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.5).until(condition)
        except Exception as exc:
            self.shot("FAILED-" + what.replace(" ", "-")[:40])
            raise AssertionError(f"{self.user}: {what}: {type(exc).__name__} (page: {self.driver.current_url})") from exc

    def xpath(self, path, what, clickable=False):
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support import expected_conditions as ec
        make = ec.element_to_be_clickable if clickable else ec.presence_of_element_located
        return self.wait(make((By.XPATH, path)), what)

    def click(self, path, what):
        element = self.xpath(path, what, clickable=True)
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)
        element.click()
        return element

    def text(self):
        return self.driver.find_element("tag name", "body").text

    def menu(self, top, item):
        """Choose ``top`` > ``item`` in JupyterLab's menu bar (a click that only closed a menu
        left open, or that a page still laying itself out intercepted, is tried again)."""
        from selenium.common.exceptions import WebDriverException
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support import expected_conditions as ec
        from selenium.webdriver.support.ui import WebDriverWait
        entry = (f"//li[contains(@class,'lm-Menu-item')][.//div[contains(@class,'lm-Menu-itemLabel')]"
                 f"[normalize-space()='{item}']]")
        for attempt in range(3):
            try:
                self.click(f"//div[contains(@class,'lm-MenuBar-itemLabel')][normalize-space()='{top}']",
                           f"menu {top}")
                WebDriverWait(self.driver, 15).until(ec.element_to_be_clickable((By.XPATH, entry))).click()
                return
            except WebDriverException:
                if attempt == 2:
                    self.shot("FAILED-menu")
                    raise
                time.sleep(1)

    # -- the steps --------------------------------------------------------------------------
    def log_in(self):
        self.driver.get(f"{self.hub.url}/hub/login")
        self.xpath("//input[@id='username_input']", "the login form").send_keys(self.user)
        self.xpath("//input[@id='password_input']", "the password field").send_keys(self.hub.passwords[self.user])
        self.shot("login")
        self.click("//*[@id='login_submit']", "the sign-in button")
        self.lab_ready()
        assert f"/user/{self.user}/lab" in self.driver.current_url
        self.shot("lab")

    def lab_ready(self):
        self.xpath("//*[@id='jp-main-dock-panel']", "JupyterLab's main area")
        self.xpath("//div[contains(@class,'lm-MenuBar-itemLabel')][normalize-space()='Nbgrader']",
                   "nbgrader's menu")

    def open_lab(self, path=""):
        self.driver.get(f"{self.hub.url}/user/{self.user}/lab" + (f"/tree/{path}" if path else ""))
        self.lab_ready()

    def assignments_tab(self):
        self.menu("Nbgrader", "Assignment List")
        return self.xpath("//*[@id='released_assignments_list' or @id='fetched_assignments_list']",
                          "the Assignments tab")


def _row_button(list_id, label):
    return (f"//*[@id='{list_id}']//*[contains(@class,'list_item')][.//*[contains(normalize-space(),'{NAME}')]]"
            f"//button[normalize-space()='{label}']")


SET_CELL = """
const [marker, text] = arguments;
const editors = [...document.querySelectorAll('.jp-Notebook .jp-Cell .cm-content')];
const el = editors.find(e => e.textContent.includes(marker) && e.textContent.includes('NotImplementedError'));
if (!el) return 'no cell with ' + marker;
const view = el.cmView.view;  // CodeMirror 6's EditorView of this cell
view.dispatch({changes: {from: 0, to: view.state.doc.length, insert: text}});
return 'ok';
"""

OUTPUTS = """return [...document.querySelectorAll('.jp-Notebook .jp-OutputArea-output')]
  .map(o => o.textContent).join('\\n');"""

BUSY = """return [...document.querySelectorAll('.jp-Notebook .jp-InputArea-prompt')]
  .filter(p => p.textContent.includes('*')).length;"""


def _formgrader_action(instructor, column, what):
    """Press the button of ``attention``'s row in formgrader's column ``column`` and wait for
    its result window; returns that window's text."""
    row = f"//tr[td[contains(@class,'name')][contains(normalize-space(),'{NAME}')]]"
    instructor.click(f"{row}/td[contains(@class,'{column}')]//a", what)
    modal = instructor.xpath("//*[(@id='success-modal' or @id='error-modal') and contains(@class,'in')]",
                             f"{what}: its result")
    time.sleep(0.5)  # the window fades in
    instructor.shot(column)
    text = modal.text
    instructor.click("//*[(@id='success-modal' or @id='error-modal')]//button[normalize-space()='Close' or "
                     "contains(@class,'close')]", f"{what}: close")
    time.sleep(0.5)
    return text


TERMINAL_TEXT = """return [...document.querySelectorAll('.jp-Terminal .xterm-accessibility-tree > div')]
  .map(row => row.textContent).join('\\n');"""


def _page_text(browser, path):
    """The text of the page this user's browser shows at ``path`` on the hub."""
    browser.driver.get(f"{browser.hub.url}{path}")
    browser.xpath("//body", f"the page {path}")
    return browser.text()


def _in_terminal(browser, line, until, timeout=WAIT):
    """Type ``line`` and Enter into the terminal open in ``browser`` and wait until the text
    on its screen matches the regular expression ``until``; returns that text."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    area = browser.xpath("//*[contains(@class,'jp-Terminal')]//textarea[contains(@class,'xterm-helper-textarea')]",
                         "the terminal's input")
    ActionChains(browser.driver).click(area).send_keys(line).send_keys(Keys.ENTER).perform()
    return browser.wait(lambda d: (lambda t: t if re.search(until, t) else None)(d.execute_script(TERMINAL_TEXT)),
                        f"'{until}' in the terminal", timeout=timeout)


MENU_LABELS = """return [...document.querySelectorAll('.lm-Menu .lm-Menu-itemLabel')].map(e => e.textContent);"""


def _nbgrader_menu(browser):
    """The labels of the Nbgrader menu this user sees."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    browser.click("//div[contains(@class,'lm-MenuBar-itemLabel')][normalize-space()='Nbgrader']", "menu Nbgrader")
    labels = browser.wait(lambda d: d.execute_script(MENU_LABELS) or None, "the Nbgrader menu's items")
    browser.shot("nbgrader-menu")
    ActionChains(browser.driver).send_keys(Keys.ESCAPE).perform()
    return labels


def _fill_run_validate_submit(browser, replacements):
    browser.open_lab()
    labels = _nbgrader_menu(browser)
    assert "Assignment List" in labels and "Formgrader" not in labels, labels  # formgrader: the instructor's
    # ... its server side too: a student's server has no formgrader to answer
    page = _page_text(browser, f"/user/{browser.user}/formgrader/manage_assignments")
    browser.shot("no-formgrader")
    assert "404" in page and "Manage Assignments" not in page, page[:500]
    browser.open_lab()
    browser.assignments_tab()
    browser.click(_row_button("released_assignments_list", "Fetch"), "Fetch attention")
    browser.xpath(f"//*[@id='fetched_assignments_list']//*[contains(normalize-space(),'{NAME}')]",
                  "attention among the fetched assignments")
    browser.shot("fetched")
    home = browser.hub.home(browser.user)
    assert (home / NAME / ATTENTION.notebook).is_file()

    browser.open_lab(f"{NAME}/{ATTENTION.notebook}")
    browser.xpath("//*[contains(@class,'jp-Notebook')]//*[contains(@class,'cm-content')]", "the notebook's cells")
    browser.wait(lambda d: d.execute_script("return document.querySelector('.jp-Notebook-ExecutionIndicator') "
                                            "=== null || !document.body.innerText.includes('Kernel starting')"),
                 "the kernel")
    for function, source in replacements.items():
        done = browser.wait(lambda d, function=function, source=source: d.execute_script(SET_CELL, f"def {function}(", source) == "ok"
                            or None, f"write {function}")
        assert done
    browser.shot("filled")
    browser.menu("Run", "Run All Cells")
    time.sleep(2)
    browser.wait(lambda d: d.execute_script(BUSY) == 0 or None, "every cell run")
    browser.shot("ran")
    page = browser.driver.execute_script(OUTPUTS)
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    ActionChains(browser.driver).key_down(Keys.CONTROL).send_keys("s").key_up(Keys.CONTROL).perform()
    saved = home / NAME / ATTENTION.notebook
    marker = next(iter(replacements.values())).strip().splitlines()[-1].strip()
    browser.wait(lambda d: any(marker in "".join(c["source"]) for c in json.loads(saved.read_text())["cells"])
                 or None, "the notebook saved")
    browser.click("//*[contains(@class,'jp-Toolbar')]//*[normalize-space()='Validate' or @title='Validate']"
                  "/ancestor-or-self::*[self::button or self::jp-button][1]", "the Validate button")
    dialog = browser.xpath("//*[contains(@class,'jp-Dialog-content')]", "the validation result")
    browser.wait(lambda d: "alidat" in dialog.text or "Success" in dialog.text or None, "validation finished")
    time.sleep(1)
    validation = dialog.text
    browser.shot("validated")
    browser.click("//*[contains(@class,'jp-Dialog')]//button[contains(@class,'jp-mod-accept') or "
                  "contains(@class,'jp-mod-reject')]", "close the validation result")
    browser.open_lab()
    browser.assignments_tab()
    browser.click(_row_button("fetched_assignments_list", "Submit"), "Submit attention")
    browser.xpath(f"//*[@id='submitted_assignments_list']//*[contains(normalize-space(),'{NAME}')]",
                  "the submission listed")
    browser.shot("submitted")
    return page, validation


MARK = "lmrt_pwned"
RAN = f"window.{MARK}=1;document.title='{MARK}'"
HOSTILE_MARKDOWN = "\n\n".join([
    "My explanation: the weights sum to one.",
    f"<img src=x onerror=\"{RAN}\">",
    f"<svg onload=\"{RAN}\"><circle r=5 /></svg>",
    f"<script>{RAN}</script>",
    f"<iframe srcdoc=\"<script>parent.{RAN}</script>\"></iframe>",
    f"[open me](javascript:{RAN})",
    "![figure](attachment:figure.svg)",
])
HOSTILE_SVG = f'<svg xmlns="http://www.w3.org/2000/svg" onload="{RAN}"><script>{RAN}</script></svg>'
NOT_RUN = f"return [window.{MARK} === undefined, document.title !== '{MARK}']"


def _submit_hostile_notebook(hub):
    """The attacker fetches and submits from her terminal (runuser, the hub's environment) the
    reference answers plus a markdown cell, an SVG attachment and HTML, SVG and JavaScript
    outputs that would each run script in the page of whoever renders them."""
    import base64
    import pwd

    import nbformat

    from autograder.demo.fill import filled_notebook
    home = Path(pwd.getpwnam(ATTACKER).pw_dir)
    env = ["env", "-i", f"HOME={home}", f"USER={ATTACKER}", f"PATH={hub.prefix / 'venv' / 'bin'}:/usr/bin:/bin",
           f"NBGRADER_EXCHANGE={hub.exchange}", "LANG=C.UTF-8"]

    def run(*command):
        proc = subprocess.run(["runuser", "-u", ATTACKER, "--", *env, *command], cwd=home, capture_output=True,
                              text=True, timeout=600)
        assert proc.returncode == 0, f"{ATTACKER}: {command}:\n{proc.stdout}\n{proc.stderr}"

    run("nbgrader", "fetch_assignment", NAME)
    nb = filled_notebook(ATTENTION)
    cell = nbformat.v4.new_markdown_cell(HOSTILE_MARKDOWN, attachments={
        "figure.svg": {"image/svg+xml": base64.b64encode(HOSTILE_SVG.encode()).decode()}})
    cell.metadata["tags"] = [f'x"><img src=x onerror="{RAN}">']
    nb.cells.insert(1, cell)
    for c in nb.cells:
        if c.cell_type == "code":
            c.outputs = [nbformat.v4.new_output("display_data", data={
                "text/html": f"<img src=x onerror=\"{RAN}\">", "image/svg+xml": HOSTILE_SVG,
                "application/javascript": RAN, "text/plain": "x"})]
            break
    run("python", "-c", "import sys; open(sys.argv[1], 'w').write(sys.argv[2])",
        str(home / NAME / ATTENTION.notebook), nbformat.writes(nb))
    run("nbgrader", "submit", NAME)


def _formgrader_shows_the_hostile_notebook_inert(instructor):
    """Open the attacker's submission in formgrader as the instructor: her explanation shows,
    nothing of hers ran (no marker set, no title changed), and no element with a handler or a
    script URL of hers is in the page. The same check on a page that does carry the payload
    first shows that the check sees a payload that runs."""
    hub = instructor.hub
    instructor.driver.get("data:text/html,<title>t</title><img src=x onerror=\"" + RAN + "\">")
    instructor.wait(lambda d: d.execute_script(NOT_RUN) == [False, False] or None, "the payload running on a bare page")
    instructor.driver.get(f"{hub.url}/user/{INSTRUCTOR}/formgrader/gradebook/{NAME}/{NAME}")
    link = instructor.xpath(f"//tr[td[contains(normalize-space(),'{ATTACKER}')]]//a[contains(@href,'/submissions/')]",
                            "the attacker's submission in the gradebook")
    instructor.driver.get(link.get_attribute("href"))
    shown = instructor.xpath("//p[contains(normalize-space(),'My explanation: the weights sum to one.')]",
                             "the attacker's markdown, rendered")
    instructor.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", shown)
    time.sleep(3)  # an image's error, an SVG's load and MathJax have run by now
    instructor.shot("hostile-submission")
    assert instructor.driver.execute_script(NOT_RUN) == [True, True]
    handlers = instructor.driver.execute_script(
        "return [...document.querySelectorAll('*')].flatMap(e => [...e.attributes]"
        f".filter(a => a.value.includes('{MARK}')).map(a => e.tagName + ' ' + a.name))")
    assert handlers == [], handlers
    active = instructor.driver.execute_script(
        "return [...document.querySelectorAll('.student-markdown')].filter(e => e.textContent.includes('My explanation'))"
        ".flatMap(e => [...e.querySelectorAll('script, svg, iframe, object, embed, style, form')]).map(e => e.tagName)")
    assert active == [], active


def test_a_term_on_the_hub_in_a_browser(hub, tmp_path):
    browsers = {}
    try:
        for user in (INSTRUCTOR, *STUDENTS):
            browsers[user] = Browser(hub, user, tmp_path)
        instructor = browsers[INSTRUCTOR]

        # 1. The instructor generates and releases the assignment in formgrader.
        instructor.log_in()
        assert "Formgrader" in _nbgrader_menu(instructor)
        instructor.menu("Nbgrader", "Formgrader")
        instructor.xpath("//iframe[contains(@src,'formgrader')]", "formgrader in a tab")
        instructor.shot("formgrader-tab")
        instructor.driver.get(f"{hub.url}/user/{INSTRUCTOR}/formgrader/manage_assignments")
        instructor.xpath(f"//td[contains(@class,'name')][contains(normalize-space(),'{NAME}')]",
                         "attention among the assignments")
        assert "Successfully created the student version" in _formgrader_action(instructor, "assign", "Generate")
        assert "Successfully released" in _formgrader_action(instructor, "release", "Release")

        # 2. The students fetch, fill, run the visible checks, validate and submit.
        reference = reference_code(ATTENTION)
        work = {STUDENTS[0]: dict(reference), STUDENTS[1]: dict(reference, **{MISTAKE.function: MISTAKE.code})}
        seen = {}
        for user in STUDENTS:
            browsers[user].log_in()
            seen[user] = _fill_run_validate_submit(browsers[user], work[user])
        ann_page, ann_validation = seen[STUDENTS[0]]
        bob_page, bob_validation = seen[STUDENTS[1]]
        assert MISTAKE.feedback in bob_page, bob_page[-3000:]  # the visible check names bob's mistake
        assert MISTAKE.feedback not in ann_page
        assert "Success! Your notebook passes all the tests." in ann_validation, ann_validation
        assert "Success!" not in bob_validation, bob_validation  # a visible check fails: validate says so
        _submit_hostile_notebook(hub)
        for user in (*STUDENTS, ATTACKER):
            inbound = list((hub.exchange / "lm-reads-text" / "inbound").glob(f"{user}+{NAME}+*"))
            assert len(inbound) == 1, (user, inbound)

        # 3. The instructor collects, grades (the grade of record), and releases feedback.
        instructor.driver.get(f"{hub.url}/user/{INSTRUCTOR}/formgrader/manage_assignments")
        assert "Successfully collected" in _formgrader_action(instructor, "collect", "Collect")
        # The grade of record, typed in a terminal of the instructor's JupyterLab as README has it.
        home = hub.home(INSTRUCTOR)
        assert os.stat(home).st_mode & 0o777 == 0o700 and os.stat(hub.course).st_mode & 0o777 == 0o700
        before = {p for p in home.rglob("*")}
        instructor.open_lab()
        instructor.menu("File", "New Launcher")
        instructor.click("//*[contains(@class,'jp-LauncherCard')][.//*[contains(@class,'jp-LauncherCard-label')]"
                         "[normalize-space()='Terminal']]", "the launcher's Terminal")
        _in_terminal(instructor, "pwd", "\n" + re.escape(str(hub.course)))  # it opens in the course folder
        instructor.shot("terminal")
        summary = _in_terminal(instructor, "python -m autograder grade submitted/",
                               r"graded \d+ notebook\(s\)|Traceback|command not found|No module named", timeout=1200)
        screen = _in_terminal(instructor, "echo grade exit status $?", r"grade exit status \d")
        errors = hub.course / "graded" / "grader-errors.log"
        (OUTPUT / "grade.log").write_text(summary + "\n" + screen + "\n"
                                          + (errors.read_text() if errors.is_file() else ""))
        instructor.shot("graded")
        assert "graded 3 notebook(s) of 3 student(s)" in summary, summary
        assert "grade exit status 0" in screen, screen
        assert (hub.course / "graded" / "grades.csv").is_file()
        # Nothing the grader wrote landed in the instructor's home (JupyterLab's own state aside).
        written = {p for p in home.rglob("*")} - before
        assert not [p for p in written if not p.relative_to(home).parts[0].startswith(".")], written
        instructor.driver.get(f"{hub.url}/user/{INSTRUCTOR}/formgrader/manage_assignments")
        assert "Successfully generated feedback" in _formgrader_action(instructor, "generate-feedback", "Feedback")
        assert "Successfully released feedback" in _formgrader_action(instructor, "release-feedback", "Release feedback")
        instructor.driver.get(f"{hub.url}/user/{INSTRUCTOR}/formgrader/gradebook/{NAME}/{NAME}")
        instructor.xpath(f"//td[contains(normalize-space(),'{STUDENTS[1]}')]", "bob in the gradebook")
        instructor.shot("gradebook")

        # The attacker's submission in formgrader: her markup is there, as text, and none of it ran.
        _formgrader_shows_the_hostile_notebook_inert(instructor)

        # 4. Each student fetches and reads their own feedback, and only theirs.
        expected = {STUDENTS[0]: "Score: 19.0 / 19.0", STUDENTS[1]: "Score: 15.0 / 19.0"}
        for user in STUDENTS:
            browser = browsers[user]
            browser.open_lab()
            browser.assignments_tab()
            browser.click(_row_button("submitted_assignments_list", "Fetch Feedback"), "Fetch Feedback")
            folder = hub.home(user) / NAME / "feedback"
            browser.wait(lambda d, folder=folder: any(folder.rglob("*.html")) or None, "the feedback fetched")
            browser.shot("feedback-fetched")
            files = sorted(folder.rglob("*.html"))
            assert [f.name for f in files] == ["attention.html"]
            rel = files[0].relative_to(hub.home(user))
            browser.driver.get(f"{hub.url}/user/{user}/files/{rel.as_posix()}")
            report = browser.xpath("//*[contains(@class,'autograder-report')]", "the grader's report in the feedback")
            page = browser.text()
            browser.shot("feedback")
            assert expected[user] in page, page[:2000]
            # The grader's report names bob's mistake, and no mistake in ann's (the notebook's
            # visible-check cell quotes every catalogued message, so only the report is read).
            assert (MISTAKE.feedback in report.text) == (user == STUDENTS[1]), report.text[:2000]
            assert "BEGIN HIDDEN TESTS" not in browser.driver.page_source
        # Neither can open the other's files: the hub sends them away from another user's server.
        ann, bob = browsers[STUDENTS[0]], browsers[STUDENTS[1]]
        bob.driver.get(f"{hub.url}/user/{STUDENTS[0]}/files/{NAME}/{ATTENTION.notebook}")
        time.sleep(2)
        bob.shot("other-students-files")
        assert "def attention_row" not in bob.driver.page_source
        assert f"/user/{STUDENTS[0]}/files" not in bob.driver.current_url or "403" in bob.text()
        assert ann.driver  # ann's browser stays open until the end (closed below)
        # The idle culler ran as the hub's service for the whole term (culling itself takes an
        # hour of idleness by default: not waited for here).
        log = (OUTPUT / "hub.log").read_text()
        assert "Starting service 'idle-culler'" in log and "Service idle-culler exited" not in log
    finally:
        for browser in browsers.values():
            try:
                browser.driver.quit()
            except Exception:
                pass
