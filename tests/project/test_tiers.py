"""The two test tiers: plain pytest leaves the slow tier out (reported as deselected),
``--slow`` runs both, ``-m slow`` the slow one alone (``tests/conftest.py``)."""
import re
import subprocess
import sys
import types

import conftest
import pytest

from autograder.core.registry import PROJECT_ROOT


class _Item:
    def __init__(self, name, slow):
        self.name, self.slow = name, slow

    def get_closest_marker(self, name):
        return object() if (name == "slow" and self.slow) else None


def _config(slow=False, markexpr="", args=("tests",)):
    deselected = []
    options = {"--slow": slow, "markexpr": markexpr}
    config = types.SimpleNamespace(getoption=options.__getitem__, args=list(args),
                                   hook=types.SimpleNamespace(pytest_deselected=lambda items: deselected.extend(items)))
    return config, deselected


@pytest.mark.parametrize("options, kept", [
    ({}, ["quick"]),                                            # plain pytest: the quick tier
    ({"slow": True}, ["quick", "slow"]),                        # --slow: both tiers
    ({"markexpr": "slow"}, ["quick", "slow"]),                  # -m chooses for itself
    ({"args": ("tests/test_x.py::test_slow",)}, ["quick", "slow"]),  # a test named by its id runs
])
def test_which_tests_each_invocation_keeps(options, kept):
    items = [_Item("quick", False), _Item("slow", True)]
    config, deselected = _config(**options)
    conftest.pytest_collection_modifyitems(config, items)
    assert [i.name for i in items] == kept
    assert [i.name for i in deselected] == [n for n in ("quick", "slow") if n not in kept]


@pytest.mark.slow
def test_a_real_run_reports_the_slow_tier_as_deselected():
    def collect(*args):
        proc = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "tests/course/test_build.py", *args],
                              cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        m = re.search(r"(\d+) deselected", proc.stdout)
        return [line for line in proc.stdout.splitlines() if "::" in line], int(m.group(1)) if m else 0
    quick, left_out = collect()
    everything, none_left = collect("--slow")
    slow_only, _ = collect("-m", "slow")
    assert left_out > 0 and none_left == 0 and len(quick) + left_out == len(everything)
    assert sorted(quick + slow_only) == sorted(everything)


def test_the_slow_marker_is_registered():
    text = (PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^\s*"slow: ', text, re.M)
