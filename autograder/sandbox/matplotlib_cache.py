"""matplotlib's font list, built once per machine for every sandbox to copy.

``import matplotlib.pyplot`` looks for ``fontlist-v<version>.json`` in its configuration
folder and, when it is missing, scans the system's fonts to write it. A sandbox starts with
an empty configuration folder (``MPLCONFIGDIR`` in its private scratch), so without help
every student's fork server, and every cold child, would scan the fonts again: about a third
of the cost of importing pyplot (``benchmarks/profile_grading.py``). ``prefill()`` builds
the list once in the project's ``.cache/matplotlib``, which the sandbox shows read-only; the
child copies it into its own folder before anything imports matplotlib
(``child/mplcache.py``). matplotlib writes the list by its path, so the folder is checked first
(``cache_folder.open_folder``): this user's own, not a link, writable by no one else; then no
other user can put a link or a file of theirs at the name matplotlib writes.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from autograder.sandbox import cache_folder

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def cache_dir() -> Path:
    """The project's matplotlib cache folder (a ``Path``; may not exist yet)."""
    return PROJECT_ROOT / ".cache" / "matplotlib"


def prefill(directory=None, timeout=120.0):
    """Have matplotlib write its font list into ``directory`` (default ``cache_dir()``), by
    importing ``matplotlib.font_manager`` in a separate interpreter with that folder as its
    configuration folder (it reads the list when present, writes it when not).

    Args:
        directory: the folder (``str`` or ``Path``); created when missing.
        timeout: seconds the import may take.
    Returns:
        list of the ``fontlist-*.json`` files there (``Path``); empty when matplotlib is not
        installed or the import failed (grading then only pays the scan in each sandbox).
    Raises:
        cache_folder.UnsafeFolder: the folder is a link, is owned by another user or may be
            written by others (the message names it).
    """
    directory = Path(directory or cache_dir())
    try:
        os.close(cache_folder.open_folder(directory, create=True))
    except OSError:
        return []
    try:
        env = {"MPLCONFIGDIR": str(directory), "MPLBACKEND": "Agg", "HOME": str(directory),
               "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        subprocess.run([sys.executable, "-I", "-c", "import matplotlib.font_manager"], env=env,
                       timeout=timeout, capture_output=True, check=False)
    except (OSError, subprocess.SubprocessError):
        pass
    return sorted(directory.glob("fontlist-*.json"))


def ensure(directory=None) -> list:
    """``prefill(directory)`` unless the font list there is already newer than the installed
    matplotlib's ``font_manager.py`` (which names the list's version): a class run then starts
    no interpreter for it. Returns the ``fontlist-*.json`` files there (``Path``)."""
    directory = Path(directory or cache_dir())
    built = sorted(directory.glob("fontlist-*.json"))
    try:
        import importlib.util
        spec = importlib.util.find_spec("matplotlib")  # found, not imported
        if spec is not None and spec.origin is not None:
            source = Path(spec.origin).parent / "font_manager.py"
            if built and min(p.stat().st_mtime for p in built) >= source.stat().st_mtime:
                return built
    except (AttributeError, TypeError, OSError, ImportError, ValueError):
        pass
    try:
        return prefill(directory)
    except cache_folder.UnsafeFolder as exc:
        print(f"matplotlib's font list not built: {exc}", file=sys.stderr)
        return []


def main() -> int:
    """Build the font list (``python -m autograder caches``); print where."""
    try:
        built = prefill()
    except cache_folder.UnsafeFolder as exc:
        print(f"matplotlib cache: {exc}", file=sys.stderr)
        return 1
    print("\n".join(str(p) for p in built) or "matplotlib wrote no font list")
    return 0
