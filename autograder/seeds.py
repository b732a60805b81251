"""Per-student seeds for the randomized hidden cases (issue #2, requirement 6).

seed = first 8 bytes of HMAC-SHA256(course secret, "student_id/check name"): the same
student is always graded on the same cases, neighbours get different ones, and nobody
without the secret can predict them. The secret lives outside the release, in
``.course_secret`` at the course root (git-ignored) or in ``$COURSE_SECRET``.
"""
import hashlib
import hmac
import os
import secrets
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SECRET_FILE = PROJECT_ROOT / ".course_secret"


def case_seed(secret, student_id, check_name):
    """Seed (an ``int`` below 2**64) for one student's randomized cases of one check.

    Args:
        secret: the course secret (``bytes`` or ``str``).
        student_id: the student's id (``str``).
        check_name: the check's name (``str``).
    """
    key = secret.encode() if isinstance(secret, str) else secret
    digest = hmac.new(key, f"{student_id}/{check_name}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big")


def load_secret(path=None, create=False):
    """Return the course secret (``bytes``).

    Order: ``$COURSE_SECRET``, then the file ``path`` (default ``.course_secret`` at the
    course root). With ``create=True`` a missing file is created with 32 random bytes
    (hex), which the caller should report: regrading needs the same secret.

    Raises:
        FileNotFoundError: no secret set and ``create`` is false.
    """
    if os.environ.get("COURSE_SECRET"):
        return os.environ["COURSE_SECRET"].encode()
    path = Path(path) if path else SECRET_FILE
    if not path.exists():
        if not create:
            raise FileNotFoundError(f"no course secret: set $COURSE_SECRET or create {path}")
        path.write_text(secrets.token_hex(32) + "\n")
        path.chmod(0o600)
    return path.read_text().strip().encode()
