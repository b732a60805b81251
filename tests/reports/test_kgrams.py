"""copydetect's k-gram hashes made the same in every process, so a near-copy verdict does not
change from one run of the class to the next."""
import os
import subprocess
import sys

from autograder.reports.kgrams import stable_kgrams

M64 = (1 << 64) - 1


def _reference(text, k):
    """The same hash written out with Python integers (an independent computation)."""
    out = []
    for i in range(len(text) - k + 1):
        h = 0
        for ch in text[i:i + k]:
            h = (h * 0x100000001B3 + ord(ch)) & M64
        h = ((h ^ (h >> 30)) * 0xBF58476D1CE4E5B9) & M64
        h = ((h ^ (h >> 27)) * 0x94D049BB133111EB) & M64
        h ^= h >> 31
        out.append(h - (1 << 64) if h >> 63 else h)
    return out


def test_hashes_match_an_independent_computation():
    text = "def f(x):\n    return x * 2  # é ∑ 𝜋\n"
    assert stable_kgrams(text, 5).tolist() == _reference(text, 5)
    assert stable_kgrams("abc", 5).tolist() == []


def test_equal_windows_equal_hashes_and_others_differ():
    h = stable_kgrams("abcabcabd", 3).tolist()
    assert h[0] == h[3] and len(set(h)) == 4   # abc bca cab abc bca cab abd -> abc, bca, cab, abd


SIMILARITY = """
import sys
from autograder.reports.boilerplate import fingerprint
from copydetect import compare_files
a = "def f(x):\\n    total = 0\\n    for i in range(len(x)):\\n        total += x[i] * x[i]\\n    return total ** 0.5\\n"
b = "def g(v):\\n    s = 0\\n    for j in range(len(v)):\\n        s = s + v[j] * v[j]\\n    return s ** 0.5\\n"
print(compare_files(fingerprint(a), fingerprint(b)), sorted(int(h) for h in fingerprint(a).hashes))
"""


def test_the_same_verdict_whatever_the_hash_seed():
    runs = set()
    for seed in ("1", "2", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        runs.add(subprocess.run([sys.executable, "-c", SIMILARITY], env=env, capture_output=True,
                                text=True, check=True).stdout)
    assert len(runs) == 1, runs
