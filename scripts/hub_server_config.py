"""Jupyter Server settings of every user's server on the course hub.

``scripts/hub.sh install`` copies this file to the shared environment's
``etc/jupyter/jupyter_server_config.py``, which every user's server reads.

Terminals: Jupyter Server starts a *login* shell when it has no terminal of its own (as
under JupyterHub); a login shell reads /etc/profile, which sets PATH anew and so drops the
hub's environment (``python: command not found``), and it opens in the folder the server
process started in (the home folder), whatever the server's root is. So every terminal here is
an interactive, non-login bash that keeps the server's environment (PATH with the hub's
Python first; for the instructor PYTHONPATH with the course). The instructor's opens in the
course folder (``LMRT_COURSE_DIR``, set by scripts/jupyterhub_config.py for the instructor
alone), where README's commands, ``python -m autograder grade submitted/`` among them, run
as written.
"""
import os
import shlex

c = get_config()  # noqa: F821 (provided by traitlets when Jupyter Server loads this file)

_course = os.environ.get("LMRT_COURSE_DIR", "")
if _course:
    c.ServerApp.terminado_settings = {
        "shell_command": ["/bin/bash", "-c", f"cd {shlex.quote(_course)} && exec /bin/bash -i"]}
else:
    c.ServerApp.terminado_settings = {"shell_command": ["/bin/bash", "-i"]}

# Idle kernels and terminals are shut down after HUB_KERNEL_CULL_TIMEOUT seconds [1800] (a
# kernel stays up while it runs a cell); the hub's idle culler stops idle servers as a whole.
_idle = int(os.environ.get("HUB_KERNEL_CULL_TIMEOUT", "1800"))
c.MappingKernelManager.cull_idle_timeout = _idle
c.MappingKernelManager.cull_interval = 300
c.MappingKernelManager.cull_connected = False  # a kernel whose tab is open stays
c.MappingKernelManager.cull_busy = False
c.TerminalManager.cull_inactive_timeout = _idle
c.TerminalManager.cull_interval = 300
