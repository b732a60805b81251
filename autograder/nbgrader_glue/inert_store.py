"""The inert form of the markdown a class shares, kept on disk between runs of the grade command.

Making a markdown cell inert (``inert.inert_markdown``: nbconvert's markdown renderer, then bleach) takes
about 4 ms, and a class's notebooks share most of their markdown (the released text): a process does it
once for each distinct text, but each run of ``python -m autograder grade`` is a new process, which
paid it again for every text of every exercise (0.35 s for the seven exercises, 12 ms a notebook in a
class of 28). ``record`` keeps the texts that two or more notebooks of the run shared (never a text
only one student wrote) in ``STORE_DIR/<fingerprint>.json``; the next run reads them from there.

The fingerprint is a hash of ``inert.py`` itself and of the versions of everything its output depends on
(bleach, nbconvert, mistune, pygments): any change to the sanitizer starts a new file, and older files
are removed. An entry is the text's SHA-256 and its inert form, exactly what ``inert_markdown`` returns.
A store that cannot be read or written (missing, damaged, read-only) is ignored: the text is made
inert again. The folder is the project's ``.cache``, which the sandbox does not show to students' code,
opened and written with ``sandbox.cache_folder``'s checks: it must be this user's and no other user may
write it (else the store is neither read nor written), and the file is replaced, never written through.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

STORE_DIR = Path(__file__).resolve().parents[2] / ".cache" / "inert_markdown"
LIMIT = 4096  # entries kept: the most recently used
MAX_BYTES = 64 << 20  # a larger file is not read
_DEPENDS_ON = ("bleach", "nbconvert", "mistune", "pygments")
_loaded: dict | None = None


def fingerprint() -> str:
    """A hash of ``inert.py``'s source and of the versions of the packages its output depends on."""
    from importlib import metadata
    digest = hashlib.sha256((Path(__file__).parent / "inert.py").read_bytes())
    for name in _DEPENDS_ON:
        try:
            digest.update(f"{name}={metadata.version(name)};".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{name}=none;".encode())
    return digest.hexdigest()[:24]


def _key(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()


def _file_name() -> str:
    return f"{fingerprint()}.json"


def _folder(create: bool) -> int | None:
    """The store's folder, opened with ``sandbox.cache_folder``'s checks (ours, no link, no other
    user may write it), or ``None`` when it is missing or fails them."""
    from autograder.sandbox.cache_folder import UnsafeFolder, open_folder
    try:
        return open_folder(STORE_DIR, create=create)
    except (OSError, UnsafeFolder):
        return None


def _entries() -> dict:
    global _loaded
    if _loaded is None:
        from autograder.sandbox.cache_folder import read_file
        _loaded, fd = {}, _folder(create=False)
        if fd is not None:
            try:
                data = read_file(fd, _file_name(), MAX_BYTES)
                found = json.loads(data) if data is not None and len(data) <= MAX_BYTES else None
                if isinstance(found, dict):
                    _loaded = {k: v for k, v in found.items() if isinstance(k, str) and isinstance(v, str)}
            except ValueError:
                pass
            finally:
                os.close(fd)
    return _loaded


def lookup(source: str) -> str | None:
    """The inert form of ``source`` kept by an earlier run, or ``None``."""
    return _entries().get(_key(source))


def keep(inert: dict) -> None:
    """Add ``{source: inert form}`` to the store, most recent last (at most ``LIMIT`` entries), and
    remove the files of other fingerprints; when every text is in the store already, nothing is written. A folder that fails the checks, a read-only one or a
    full disk leave the store as it was."""
    from autograder.sandbox.cache_folder import write_file
    entries = _entries()
    if all(_key(source) in entries for source in inert):
        return  # nothing new: the file stays as it is (not written, not flushed to disk again)
    for source, html in inert.items():
        key = _key(source)
        entries.pop(key, None)
        entries[key] = html
    for key in list(entries)[:max(0, len(entries) - LIMIT)]:
        del entries[key]
    fd = _folder(create=True)
    if fd is None:
        return
    try:
        write_file(fd, _file_name(), json.dumps(entries).encode("utf-8"), 0o600)
        for other in os.listdir(fd):
            if other.endswith(".json") and other != _file_name():
                os.unlink(other, dir_fd=fd)
    except OSError:
        pass
    finally:
        os.close(fd)
