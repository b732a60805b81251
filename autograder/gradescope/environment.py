"""What Gradescope's image must hold before anything is graded, checked by the zip's ``setup.sh``
(``python -m autograder container check-requirements | check-setup``): the pinned requirements installed
(``missing_requirements``), and the grader, the course files and the sandbox in place (``setup_problems``)."""
import hashlib
from pathlib import Path

from autograder.gradescope.intake import load_config


def missing_requirements(requirements_file):
    """Pinned requirements (``name==version`` lines, with or without an environment marker
    such as ``; python_version < "3.11"``) that apply to this Python and are not installed
    at that exact version.

    Markers are read with ``packaging`` (a pinned requirement); where it is not installed
    yet, every marked line counts as missing, so setup installs them.

    Returns:
        list of ``"name==version (found X)"`` strings; empty when all are satisfied.
    """
    from importlib import metadata
    try:
        from packaging.markers import Marker
    except ImportError:
        Marker = None
    missing = []
    for line in Path(requirements_file).read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or "==" not in line:
            continue
        line, _, marker = line.partition(";")
        name, version = (part.strip() for part in line.split("==", 1))
        if marker.strip() and Marker is None:
            missing.append(f"{name}=={version} (packaging is needed to read its marker)")
            continue
        if marker.strip() and not Marker(marker.strip()).evaluate():
            continue
        try:
            found = metadata.version(name)
        except metadata.PackageNotFoundError:
            found = None
        if found != version:
            missing.append(f"{name}=={version} (found {found or 'nothing'})")
    return missing


def setup_problems(source):
    """What would stop grading in this container; ``[]`` when ready.

    Checks the unpacked bundle at ``source``: config, checks, course secret, tiktoken's
    cache file (sha256) and the pinned requirements.
    """
    from autograder.sandbox.tiktoken_cache import CL100K_SHA256
    source = Path(source)
    problems = []
    try:
        config = load_config(source)
        checks = source / "project" / "exercises" / config["assignment"] / "checks.py"
        if not checks.is_file():
            problems.append(f"hidden checks missing: {checks}")
    except (OSError, ValueError, KeyError) as exc:
        problems.append(f"config.json unreadable: {exc}")
    secret = source / "project" / ".course_secret"
    if not (secret.is_file() and secret.read_text().strip()):
        problems.append(f"course secret missing: {secret}")
    caches = list((source / "project" / ".cache" / "tiktoken").glob("*"))
    if not any(hashlib.sha256(p.read_bytes()).hexdigest() == CL100K_SHA256 for p in caches if p.is_file()):
        problems.append("tiktoken's cl100k_base cache file is missing or damaged")
    problems += [f"not installed: {m}" for m in missing_requirements(source / "requirements.txt")]
    return problems
