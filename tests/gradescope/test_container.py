"""The Gradescope zip in a real container: Podman's defaults, Debian 12, the bundle's own setup.sh.

``scripts/container_rootfs.sh`` installs Podman, runc and debootstrap (Debian packages) and
makes a Debian 12 root file system (``debootstrap --variant=minbase bookworm``), cached under
``~/.cache/lm-reads-text``; it is imported once as an image into Podman's store. A container
of it runs the zip's ``setup.sh`` as Gradescope does when it builds the autograder's image
(apt installs Debian 12's stock Python 3.11.2 and bubblewrap; pip installs the pins from the
package registry); the result is committed as an image, and each submission is graded by
``run_autograder`` in a fresh container of that image, started with Podman's defaults (root
inside, default capabilities, seccomp profile and masked ``/proc``; no extra privilege).
bubblewrap cannot start there, so the grader must fall back to the setuid level.

Podman 4.3 on this kind of machine: ``--runtime runc --cgroup-manager cgroupfs``, a
containers.conf with ``default_ulimits = []`` (the host's hard limits are below Podman's
defaults), and the host's CA bundle mounted at another path with ``PIP_CERT`` for pip
(see docs/containers.md). Slow (the first run downloads Debian and the Python packages).
"""
import contextlib
import hashlib
import json
import os
import secrets
import subprocess
import time
import zipfile
from pathlib import Path

import nbformat
import pytest

from autograder.core.registry import EXERCISES, PROJECT_ROOT
from autograder.demo.fill import filled_notebook
from autograder.gradescope import bundle as gradescope

pytestmark = pytest.mark.slow

ATTENTION = EXERCISES["attention"]
IMAGE = "localhost/lm-reads-text-debian12"
HOST_CA = "/etc/ssl/certs/ca-certificates.crt"
SOURCE = "/autograder/source"

# A submission that tries to read the bundle's secret, reference and checks, to write into
# the bundle and the results, and reports what happened in its feedback (an exception message).
HOSTILE = r'''
import os

def _try(action):
    try:
        action()
        return "DONE"
    except Exception as exc:
        return type(exc).__name__

_SRC = "/autograder/source"
_ATTEMPTS = [
    ("secret", lambda: open(_SRC + "/project/.course_secret").read()),
    ("reference", lambda: open(_SRC + "/project/solutions/attention.py").read()),
    ("list_reference", lambda: os.listdir(_SRC + "/project/solutions")),
    ("checks", lambda: open(_SRC + "/project/exercises/attention/checks.py").read()),
    ("config", lambda: open(_SRC + "/config.json").read()),
    ("write_source", lambda: open(_SRC + "/project/evil.py", "w").write("import os")),
    ("write_checks", lambda: open(_SRC + "/project/exercises/attention/checks.py", "a").write("#")),
    ("write_results", lambda: open("/autograder/results/results.json", "w").write("{}")),
    ("grader_environ", lambda: open("/proc/1/environ").read()),
]
_REPORT = " ".join(f"{name}={_try(action)}" for name, action in _ATTEMPTS)

def causal_mask(T):
    raise RuntimeError("ATTEMPTS " + _REPORT)
'''


def _podman(args, conf, timeout=1800, **kwargs):
    env = dict(os.environ, CONTAINERS_CONF=str(conf))
    return subprocess.run(["podman", "--runtime", "runc", "--cgroup-manager", "cgroupfs", *args], env=env,
                          capture_output=True, text=True, timeout=timeout, **kwargs)


def _image_exists(tag, conf):
    return _podman(["image", "exists", tag], conf, timeout=120).returncode == 0


@contextlib.contextmanager
def container_session(work):
    """Images for the zip, in folder ``work``: yields ``run(label, notebook)`` -> (results.json
    dict, container name, stdout) in a fresh container of an image where the zip's setup.sh
    ran; ``run.setup_output``, ``run.setup_seconds``, ``run.secret``, ``run.conf``."""
    work = Path(work)
    made = subprocess.run(["bash", str(PROJECT_ROOT / "scripts" / "container_rootfs.sh")],
                          capture_output=True, text=True, timeout=3600)
    assert made.returncode == 0, made.stderr[-3000:]
    rootfs = Path(made.stdout.strip().splitlines()[-1])
    conf = work / "containers.conf"
    conf.write_text("[containers]\ndefault_ulimits = []\n")

    # The cached root file system, once, as an image (Podman keeps it between runs).
    base = f"{IMAGE}:rootfs-{int((rootfs / '.complete').stat().st_mtime)}"
    if not _image_exists(base, conf):
        tar = subprocess.Popen(["tar", "-C", str(rootfs), "--exclude=./.complete", "-c", "."],
                               stdout=subprocess.PIPE)
        imported = _podman(["import", "-", base], conf, stdin=tar.stdout)
        tar.stdout.close()
        assert tar.wait() == 0 and imported.returncode == 0, imported.stderr[-2000:]

    # The zip, unpacked as Gradescope does, with a secret of this run.
    secret = b"container-secret-" + secrets.token_hex(12).encode()
    zip_path = gradescope.build_bundle(ATTENTION.name, work / "build", secret)
    bundle = work / "bundle"
    with zipfile.ZipFile(zip_path) as zf:
        for info in zf.infolist():
            zf.extract(info, bundle)
            os.chmod(bundle / info.filename, (info.external_attr >> 16) & 0o777)

    # setup.sh in a container; its result is the image every submission runs in. An image
    # made by an earlier run with the same setup.sh and requirements starts with its venv
    # and packages installed, so setup.sh only checks them (a warm run).
    key = hashlib.sha256(b"".join((bundle / n).read_bytes() for n in ("setup.sh", "requirements.txt"))
                         + base.encode()).hexdigest()[:16]
    ready = f"{IMAGE}:setup-{key}"
    start = ready if _image_exists(ready, conf) else base
    name = f"lm-setup-{secrets.token_hex(4)}"
    script = (f"rm -rf {SOURCE}/project {SOURCE}/*.sh {SOURCE}/config.json && mkdir -p {SOURCE} && "
              f"cp -a /bundle/. {SOURCE}/ && bash {SOURCE}/setup.sh && "
              f"cp {SOURCE}/run_autograder /autograder/run_autograder")
    t0 = time.monotonic()
    setup = _podman(["run", "--name", name, "-v", f"{HOST_CA}:/host-ca.crt:ro", "-e", "PIP_CERT=/host-ca.crt",
                     "-v", f"{bundle}:/bundle:ro", start, "bash", "-c", script], conf, timeout=3600)
    setup_seconds = time.monotonic() - t0
    try:
        assert setup.returncode == 0, setup.stdout[-3000:] + setup.stderr[-3000:]
        image = f"{IMAGE}:run-{secrets.token_hex(4)}"
        committed = _podman(["commit", name, image], conf)
        assert committed.returncode == 0, committed.stderr
        if start == base:
            assert _podman(["tag", image, ready], conf).returncode == 0
    finally:
        _podman(["rm", "-f", name], conf)

    names = []

    def run(label, nb):
        d = work / label
        (d / "submission").mkdir(parents=True)
        (d / "results").mkdir()
        nbformat.write(nb, d / "submission" / ATTENTION.notebook)
        (d / "submission_metadata.json").write_text(json.dumps({"users": [{"sid": f"s-{label}", "email": "",
                                                                             "id": 1}]}))
        cname = f"lm-{label}-{secrets.token_hex(4)}"
        names.append(cname)
        proc = _podman(["run", "--name", cname, "-v", f"{d / 'submission'}:/autograder/submission",
                        "-v", f"{d / 'submission_metadata.json'}:/autograder/submission_metadata.json",
                        "-v", f"{d / 'results'}:/autograder/results", image, "/autograder/run_autograder"],
                       conf, timeout=900)
        assert (d / "results" / "results.json").is_file(), proc.stdout[-3000:] + proc.stderr[-3000:]
        return json.loads((d / "results" / "results.json").read_text()), cname, proc.stdout

    run.setup_output = setup.stdout + setup.stderr
    run.setup_seconds = setup_seconds
    run.secret = secret.decode()
    run.conf = conf
    try:
        yield run
    finally:
        for cname in names:
            _podman(["rm", "-f", cname], conf)
        _podman(["rmi", "-f", image], conf)


@pytest.fixture(scope="module")
def container(tmp_path_factory):
    with container_session(tmp_path_factory.mktemp("container")) as run:
        yield run


def test_setup_installs_on_debian_12s_python_and_the_sandbox_falls_back(container):
    out = container.setup_output
    assert "(Python 3.11." in out, out[-3000:]  # Debian 12's stock python3.11 (3.11.2)
    assert "sandbox: setuid level starts" in out and "ready to grade attention" in out, out[-3000:]


def test_the_solution_gets_full_marks_at_the_setuid_level(container):
    results, _, stdout = container("solution", filled_notebook(ATTENTION))
    assert results["score"] == sum(t["max_score"] for t in results["tests"]) == ATTENTION.points, stdout[-3000:]
    assert results["extra_data"]["confinement_level"] == "setuid", results["extra_data"]
    assert results["extra_data"]["confinement"].startswith("setuid+seccomp")


def test_the_untouched_release_gets_zero(container):
    results, _, _ = container("release", nbformat.read(ATTENTION.release_notebook, as_version=4))
    assert results["score"] == 0 and sum(t["max_score"] for t in results["tests"]) == ATTENTION.points
    assert results["extra_data"]["confinement_level"] == "setuid"


def test_a_hostile_notebook_reads_and_writes_nothing_of_the_bundle(container):
    nb = filled_notebook(ATTENTION, {"causal_mask": HOSTILE})
    results, cname, stdout = container("hostile", nb)
    text = json.dumps(results)
    assert container.secret not in text
    report = next((t["output"] for t in results["tests"] if "ATTEMPTS " in t["output"]), None)
    assert report is not None, text[-3000:]
    for name in ("secret", "reference", "list_reference", "checks", "config", "write_source", "write_checks",
                 "write_results", "grader_environ"):
        assert f"{name}=PermissionError" in report, report
    assert results["extra_data"]["confinement_level"] == "setuid"
    assert results["extra_data"]["confinement"].startswith("setuid+seccomp")
    assert all(t["score"] == 0 for t in results["tests"] if t["name"].startswith("causal_mask"))
    assert results["score"] > 0  # its other functions are graded as usual
    # Nothing was written into the bundle: copying the file out of the stopped container fails.
    copied = _podman(["cp", f"{cname}:{SOURCE}/project/evil.py", str(Path(container.conf).parent / "evil.py")],
                     container.conf, timeout=120)
    assert copied.returncode != 0 and not (Path(container.conf).parent / "evil.py").exists()
