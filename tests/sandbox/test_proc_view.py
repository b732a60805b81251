"""A child cannot list the container's processes through /proc.

The setuid level has no PID namespace: probing ``/proc/N`` used to list every process of the
container with its uid, command line and state (without Landlock, which would refuse the
reads). Where the launcher holds CAP_SYS_ADMIN (as on this machine) it now mounts the child a
/proc of its own with ``hidepid=invisible`` (``sandbox/proc_view.py``). The bubblewrap level
has its own PID namespace. Both levels, the setuid one without Landlock (the tests-only
switch of ``sandbox/setuid.py``).
"""
import os

import pytest

from autograder.sandbox.limits import Limits
from autograder.sandbox.setuid import WITHOUT_LANDLOCK
from autograder.submission.remote import ChildSubmission

PROBE = '''
import os
def processes():
    """Every /proc/N the child can see: (its uid, whether it is the child itself)."""
    seen = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                seen.append((os.stat("/proc/" + name).st_uid, int(name) == os.getpid()))
            except OSError:
                pass
    # pid 1 probed by number, listed or not
    try:
        seen.append((os.stat("/proc/1").st_uid, os.getpid() == 1))
    except OSError:
        pass
    return seen, os.getuid()
'''


@pytest.mark.parametrize("level", ["bubblewrap", "setuid"])
def test_the_child_sees_no_process_of_another_uid(level, monkeypatch):
    monkeypatch.setenv(WITHOUT_LANDLOCK, "1")
    assert os.geteuid() == 0  # the setuid level and the hidden /proc need a root grader
    limits = Limits(call_seconds=10.0, retry_seconds=5.0, cell_seconds=10.0, level=level)
    with ChildSubmission([(1, PROBE)], limits) as sub:
        seen, uid = sub.function("processes")()
    assert seen, "the child should at least see itself"
    assert {owner for owner, _ in seen} == {uid}, seen   # before: root's pid 1, the grader, ...
    assert any(me for _, me in seen)
