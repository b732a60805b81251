"""JupyterHub configuration of the course hub (``scripts/hub.sh start`` runs the hub with it).

Everything machine-specific comes from the environment hub.sh sets (defaults in brackets):

* ``HUB_PREFIX`` [/opt/lm-reads-text]: the Python environment every user runs
  (``venv/``), configurable-http-proxy (``node/``), tiktoken's cache, the hub's state.
* ``HUB_STATE`` [HUB_PREFIX/hub-state]: the hub's database and cookie secret.
* ``HUB_IP`` [127.0.0.1] and ``HUB_PORT`` [8000]: where the hub listens; the proxy's API
  and the hub itself use ``HUB_PROXY_API_PORT`` [8001] and ``HUB_INTERNAL_PORT`` [8081].
* ``HUB_INSTRUCTOR`` [instructor]: the unix user who grades (formgrader, hub admin).
* ``HUB_COURSE_DIR``: the instructor's course directory (a copy of this repository).
* ``HUB_ROSTER``: the roster file, one student's unix user name a line (``#`` comments).
* ``NBGRADER_EXCHANGE`` [/srv/nbgrader/exchange]: nbgrader's exchange.

Users log in with their unix password (JupyterHub's PAMAuthenticator); only the instructor
and the students of the roster may. Each gets a JupyterLab (``/lab``) started as their own
unix user by the LocalProcessSpawner, from the shared environment, in their home folder:
nbgrader's Assignments tab and Validate button for everybody, formgrader for the instructor
only (hub.sh disables it in the shared environment and enables it in the instructor's own
Jupyter config). docs/hub.md says what to change for a real authenticator.
"""
import os
from pathlib import Path

c = get_config()  # noqa: F821 (provided by traitlets when JupyterHub loads this file)

PREFIX = Path(os.environ.get("HUB_PREFIX", "/opt/lm-reads-text"))
VENV = PREFIX / "venv"
STATE = Path(os.environ.get("HUB_STATE", PREFIX / "hub-state"))
INSTRUCTOR = os.environ.get("HUB_INSTRUCTOR", "instructor")
COURSE_DIR = os.environ.get("HUB_COURSE_DIR", "")
EXCHANGE = os.environ.get("NBGRADER_EXCHANGE", "/srv/nbgrader/exchange")


def roster(path):
    """The user names of a roster file: one a line, blank lines and ``#`` comments skipped."""
    if not path or not Path(path).is_file():
        return set()
    names = set()
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        name = line.split("#", 1)[0].strip()
        if name:
            names.add(name)
    return names


# -- where it listens: the loopback address only, unless HUB_IP says otherwise -----------------
c.JupyterHub.ip = os.environ.get("HUB_IP", "127.0.0.1")
c.JupyterHub.port = int(os.environ.get("HUB_PORT", "8000"))
c.JupyterHub.hub_ip = "127.0.0.1"
c.ConfigurableHTTPProxy.command = [str(PREFIX / "node" / "node_modules" / ".bin" / "configurable-http-proxy")]
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{int(os.environ.get('HUB_PROXY_API_PORT', '8001'))}"
c.JupyterHub.hub_port = int(os.environ.get("HUB_INTERNAL_PORT", "8081"))
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.ConfigurableHTTPProxy.pid_file = str(STATE / "jupyterhub-proxy.pid")
c.JupyterHub.cleanup_servers = True
c.JupyterHub.cleanup_proxy = True

# -- who may log in: unix users with a password, the instructor and the roster ----------------
c.JupyterHub.authenticator_class = "jupyterhub.auth.PAMAuthenticator"
c.Authenticator.allowed_users = roster(os.environ.get("HUB_ROSTER")) | {INSTRUCTOR}
c.Authenticator.admin_users = {INSTRUCTOR}

# -- what each user gets: JupyterLab from the shared environment, as their own unix user -------
c.JupyterHub.spawner_class = "jupyterhub.spawner.LocalProcessSpawner"
c.Spawner.cmd = [str(VENV / "bin" / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.http_timeout = 120
c.Spawner.start_timeout = 120
c.Spawner.environment = {
    "PATH": f"{VENV / 'bin'}:/usr/local/bin:/usr/bin:/bin",
    "TIKTOKEN_CACHE_DIR": str(PREFIX / "tiktoken-cache"),
    "NBGRADER_EXCHANGE": EXCHANGE,
    "NBGRADER_COURSE_ID": os.environ.get("NBGRADER_COURSE_ID", "lm-reads-text"),
    "MPLBACKEND": "module://matplotlib_inline.backend_inline",
}


def pre_spawn(spawner):
    """The instructor's server starts in the course directory with the course's own package
    importable (``python -m autograder grade``), and their terminals open there
    (``LMRT_COURSE_DIR``: scripts/hub_server_config.py); students start in their home folder."""
    if spawner.user.name == INSTRUCTOR and COURSE_DIR:
        spawner.notebook_dir = COURSE_DIR
        spawner.environment = dict(spawner.environment, PYTHONPATH=COURSE_DIR, LMRT_COURSE_DIR=COURSE_DIR)


c.Spawner.pre_spawn_hook = pre_spawn

# -- a hub that lasts a term: idle servers culled, sizes per student ----------------------------
# JupyterHub's idle culler (the PyPI package jupyterhub-idle-culler, pinned in
# requirements-hub.txt) stops every user's server that has had no activity (no browser tab
# talking to it, no running kernel's output) for HUB_CULL_TIMEOUT seconds [3600]; a student's
# next log-in starts it again (their files stay). Each server also shuts its own idle kernels
# and terminals down (scripts/hub_server_config.py).
CULL_TIMEOUT = int(os.environ.get("HUB_CULL_TIMEOUT", "3600"))
c.JupyterHub.services = [{
    "name": "idle-culler",
    "command": [str(VENV / "bin" / "python"), "-m", "jupyterhub_idle_culler",
                f"--timeout={CULL_TIMEOUT}", "--cull-every=300"],
}]
c.JupyterHub.load_roles = [{
    "name": "idle-culler",
    "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
    "services": ["idle-culler"],
}]
# Memory and CPU per user's server. LocalProcessSpawner does not enforce these: it only hands
# them to the server (MEM_LIMIT, CPU_LIMIT in its environment, which resource displays read).
# A spawner that enforces them (jupyterhub-systemdspawner: a systemd unit per user with
# MemoryMax and CPUQuota) reads the same two settings; docs/hub.md gives the sizes.
c.Spawner.mem_limit = os.environ.get("HUB_MEM_LIMIT", "1G")
c.Spawner.cpu_limit = float(os.environ.get("HUB_CPU_LIMIT", "1"))
