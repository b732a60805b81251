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
inert again. The folder is the project's ``.cache``, which the sandbox does not show to students' code.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

STORE_DIR = Path(__file__).resolve().parents[2] / ".cache" / "inert_markdown"
LIMIT = 4096  # entries kept: the most recently used
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


def _path() -> Path:
    return STORE_DIR / f"{fingerprint()}.json"


def _entries() -> dict:
    global _loaded
    if _loaded is None:
        try:
            found = json.loads(_path().read_text(encoding="utf-8"))
            _loaded = {k: v for k, v in found.items() if isinstance(k, str) and isinstance(v, str)} \
                if isinstance(found, dict) else {}
        except (OSError, ValueError):
            _loaded = {}
    return _loaded


def lookup(source: str) -> str | None:
    """The inert form of ``source`` kept by an earlier run, or ``None``."""
    return _entries().get(_key(source))


def keep(inert: dict) -> None:
    """Add ``{source: inert form}`` to the store, most recent last (at most ``LIMIT`` entries), and
    remove the files of other fingerprints. Errors (read-only folder, full disk) are ignored."""
    if not inert:
        return
    entries = _entries()
    for source, html in inert.items():
        key = _key(source)
        entries.pop(key, None)
        entries[key] = html
    for key in list(entries)[:max(0, len(entries) - LIMIT)]:
        del entries[key]
    target = _path()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".store.")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(entries, f)
            os.replace(tmp, target)
        except BaseException:
            os.unlink(tmp)
            raise
        for other in target.parent.glob("*.json"):
            if other != target:
                other.unlink(missing_ok=True)
    except OSError:
        pass
