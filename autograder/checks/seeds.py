"""Per-student seeds for the randomized hidden cases.

seed = first 8 bytes of HMAC-SHA256(course secret, "student_id/check name/code digest"),
where the code digest is that of the notebook's code as graded (``submission/digest.py``): the same
notebook of the same student is always graded on the same cases, neighbours get different
ones, any change to the code gives new ones (so the cases a failing check shows cannot be
collected into a table of answers over resubmissions), and nobody without the secret can
predict them. The secret lives outside the release, in
``.course_secret`` at the course root (git-ignored) or in ``$COURSE_SECRET``.
"""
from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

from autograder.core.registry import SECRET_FILE


def case_seed(secret: bytes, student_id: str, check_name: str, code_digest=None) -> int:
    """Seed (an ``int`` below 2**64) for one student's randomized cases of one check.

    Args:
        secret: the course secret (``bytes`` or ``str``).
        student_id: the student's id (``str``).
        check_name: the check's name (``str``).
        code_digest: hex digest of the notebook's code as graded (``digest.digests_for_notebook``),
            or ``None`` for code that has no notebook (then the seed is the one of
            ``student_id`` and ``check_name`` alone).
    """
    key = secret.encode() if isinstance(secret, str) else secret
    # "surrogateescape": a student id read from a folder name under a non-UTF-8 locale holds
    # its raw bytes as surrogates; this gives back those bytes, the same as under UTF-8.
    text = f"{student_id}/{check_name}" + (f"/{code_digest}" if code_digest else "")
    digest = hmac.new(key, text.encode("utf-8", "surrogateescape"), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big")


def load_secret(path=None, create: bool = False) -> bytes:
    """Return the course secret (``bytes``).

    Order: the file ``path`` when given (it must exist: a mistyped name must not silently
    change every student's cases), else ``$COURSE_SECRET``, else ``.course_secret`` at the
    course root. With ``create=True`` a missing default file is created with 32 random
    bytes (hex) by ``new_secret``, which the caller should report: regrading needs the same
    secret (the command line does so only with ``--new-secret``).

    Raises:
        FileNotFoundError: ``path`` is missing, or no secret is set and ``create`` is false.
    """
    if path is not None:
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"course secret file {path} does not exist")
        return path.read_text(encoding="utf-8").strip().encode()
    if os.environ.get("COURSE_SECRET"):
        return os.environ["COURSE_SECRET"].encode()
    if not SECRET_FILE.exists():
        if not create:
            raise FileNotFoundError(f"no course secret: set $COURSE_SECRET or create {SECRET_FILE}")
        try:
            new_secret(SECRET_FILE)
        except FileExistsError:  # another process created it meanwhile: use that one
            pass
    return SECRET_FILE.read_text(encoding="utf-8").strip().encode()


def new_secret(path=SECRET_FILE) -> Path:
    """Create ``path`` holding 32 random bytes (hex), readable by its owner only from the
    start (``os.open`` with mode 0o600 and ``O_EXCL``: never world-readable, even briefly,
    and never overwriting an existing secret). Returns ``path``.

    Raises:
        FileExistsError: ``path`` exists already.
    """
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(secrets.token_hex(32) + "\n")
    return Path(path)
