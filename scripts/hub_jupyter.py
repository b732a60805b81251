"""Switch nbgrader's instructor-only parts on or off at one Jupyter config level, and check
what a user really gets (``scripts/hub.sh`` runs this with the hub's own Python).

    python hub_jupyter.py set   LEVEL on|off LAB_PLUGIN... -- SERVER_EXTENSION...
    python hub_jupyter.py check       on|off LAB_PLUGIN... -- SERVER_EXTENSION...

LEVEL is ``sys_prefix`` (the shared environment: written by root at install) or ``user``
(the running user's ``~/.jupyter``: the instructor's). ``check`` reads the configuration as
the user running it sees it, with JupyterLab's and Jupyter Server's own readers, and exits
with status 1 and a message naming every plugin or extension in the wrong state.

Why the page config is written here and not with ``jupyter labextension disable``:
JupyterLab 4.1+ runs a one-off migration each time its extension manager starts: when the
sys_prefix page config has ``disabledExtensions`` but no ``lockedExtensions`` key, it copies
every disabled plugin into ``lockedExtensions``. Two ``labextension disable`` commands in a
row therefore lock the first plugin at sys_prefix (the second command's start runs the
migration), and a lock at a higher level makes the instructor's ``labextension enable
--level=user`` a no-op that only logs "Extension locked at a higher level" and exits 0. This
script writes ``disabledExtensions`` and an explicit ``lockedExtensions`` (which ends that
migration for good) and removes any lock on our plugins, so a user level can switch them on.
Server extensions go through Jupyter Server's own ``ExtensionConfigManager``, which writes
``jupyter_server_config.d/<module>.json`` at the level, as ``jupyter server extension
enable/disable`` does.
"""
from __future__ import annotations

import os
import sys


def _split(args: list[str]) -> tuple[list[str], list[str]]:
    if "--" in args:
        i = args.index("--")
        return args[:i], args[i + 1:]
    return args, []


def set_state(level: str, on: bool, plugins: list[str], extensions: list[str]) -> None:
    """Write ``on`` (enabled) or off for ``plugins`` (JupyterLab plugin ids) and ``extensions``
    (Jupyter Server extension modules) in the config of ``level`` ('sys_prefix' or 'user').

    Raises ValueError for another level."""
    from jupyter_core.paths import ENV_CONFIG_PATH, jupyter_config_dir
    from jupyter_server.extension.config import ExtensionConfigManager
    from jupyterlab_server.config import get_static_page_config, write_page_config

    if level not in ("sys_prefix", "user"):
        raise ValueError(f"level must be sys_prefix or user, not {level!r}")
    page = get_static_page_config(level=level)
    disabled = page.get("disabledExtensions", {})
    if isinstance(disabled, list):  # the old list form
        disabled = dict.fromkeys(disabled, True)
    locked = page.get("lockedExtensions", {})
    for plugin in plugins:
        disabled[plugin] = not on
        locked.pop(plugin, None)
    page["disabledExtensions"] = disabled
    page["lockedExtensions"] = locked  # present, so JupyterLab's migration never locks anything
    write_page_config(page, level=level)

    config_dir = ENV_CONFIG_PATH[0] if level == "sys_prefix" else jupyter_config_dir()
    manager = ExtensionConfigManager(read_config_path=[config_dir],
                                     write_config_dir=os.path.join(config_dir, "jupyter_server_config.d"))
    for module in extensions:
        (manager.enable if on else manager.disable)(module)


def check_state(on: bool, plugins: list[str], extensions: list[str]) -> list[str]:
    """The plugins and extensions not in state ``on`` for the user running this, each as a
    sentence; empty when all are as wanted. Reads the merged page config of every level (as
    JupyterLab's page handler does) and the server extensions as Jupyter Server merges them."""
    from jupyter_core.paths import jupyter_config_path
    from jupyter_server.extension.config import ExtensionConfigManager
    from jupyterlab_server.config import get_static_page_config

    wrong = []
    page = get_static_page_config(level="all")
    disabled = page.get("disabledExtensions", {})
    if isinstance(disabled, list):
        disabled = dict.fromkeys(disabled, True)
    for plugin in plugins:
        if bool(disabled.get(plugin, False)) == on:
            wrong.append(f"JupyterLab plugin {plugin} is {'disabled' if on else 'enabled'}")
        if on:
            # a lock at a level above the user's keeps the user from switching it on
            higher = get_static_page_config(level="sys_prefix", include_higher_levels=True)
            if higher.get("lockedExtensions", {}).get(plugin):
                wrong.append(f"JupyterLab plugin {plugin} is locked above the user level")
    servers = ExtensionConfigManager(read_config_path=jupyter_config_path()).get_jpserver_extensions()
    for module in extensions:
        if bool(servers.get(module, False)) != on:
            wrong.append(f"server extension {module} is {'off' if on else 'on'}")
    return wrong


def main(argv: list[str]) -> int:
    """Command line: see the module's docstring. Returns the exit status."""
    if len(argv) >= 3 and argv[0] == "set" and argv[2] in ("on", "off"):
        plugins, extensions = _split(argv[3:])
        set_state(argv[1], argv[2] == "on", plugins, extensions)
        return 0
    if len(argv) >= 2 and argv[0] == "check" and argv[1] in ("on", "off"):
        plugins, extensions = _split(argv[2:])
        wrong = check_state(argv[1] == "on", plugins, extensions)
        user = os.environ.get("USER") or os.environ.get("HOME", "?")
        for line in wrong:
            print(f"hub_jupyter check ({user}): {line}", file=sys.stderr)
        return 1 if wrong else 0
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
