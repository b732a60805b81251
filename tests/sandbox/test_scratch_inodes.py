"""The sandbox's /tmp is capped in files and folders (tmpfs nr_inodes), not only in bytes:
a million empty folders (kernel memory outside every other limit) stop early with a clear
message, and the next student is graded as usual."""
import os
import re

import nbformat
import pytest

from autograder.core.registry import EXERCISES
from autograder.demo.fill import filled_notebook
from autograder.grading.notebook import grade_notebook
from autograder.sandbox.limits import Limits
from autograder.sandbox.policy import bwrap_args

SECRET = b"inode-secret"
EMBEDDINGS = EXERCISES["embeddings"]
MILLION_FOLDERS = '''import os
for i in range(1_000_000):
    os.mkdir(f"/tmp/empty{i}")
'''

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="the inode cap is mounted by the root launcher")


@needs_root
def test_a_million_empty_folders_stop_at_the_inode_cap_and_the_next_student_is_graded(tmp_path):
    limits = Limits(scratch_inodes=2000, cell_seconds=60.0)
    nb = filled_notebook(EMBEDDINGS)
    nb.cells.insert(1, nbformat.v4.new_code_cell(MILLION_FOLDERS))
    path = tmp_path / "hostile.ipynb"
    nbformat.write(nb, path)
    hostile = grade_notebook(path, EMBEDDINGS, "mallory", SECRET, limits)
    assert hostile.confinement == "bubblewrap+seccomp (a sandbox uid of its own)"
    note = next(n for n in hostile.notes if "No space left on device" in n)
    made = int(re.search(r"/tmp/empty(\d+)", note).group(1))
    assert made < 2000   # stopped by the cap (the folder it could not make is the next one)
    assert "holds at most 2000 files and folders" in note
    assert hostile.score == hostile.max_score  # the cell's error costs nothing else
    path2 = tmp_path / "next.ipynb"
    nbformat.write(filled_notebook(EMBEDDINGS), path2)
    honest = grade_notebook(path2, EMBEDDINGS, "next", SECRET, limits)
    assert honest.score == honest.max_score and not [n for n in honest.notes if "No space" in n]


def test_the_root_launcher_binds_its_capped_scratch_and_others_keep_bwraps_tmpfs():
    limits = Limits(scratch_bytes=1234, scratch_inodes=99)
    capped = bwrap_args([], limits, 3, 4, scratch="/tmp/scratch")
    i = capped.index("--bind")
    assert capped[i:i + 3] == ["--bind", "/tmp/scratch", "/tmp"] and "--tmpfs" not in capped
    plain = bwrap_args([], limits, 3, 4)
    i = plain.index("--tmpfs")
    assert plain[i - 2:i + 2] == ["--size", "1234", "--tmpfs", "/tmp"]
