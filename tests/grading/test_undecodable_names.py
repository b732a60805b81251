"""Two student folders whose names differ only in a byte that is not UTF-8 stay two students."""
import os
import shutil
from pathlib import Path

from autograder.core import safetext
from autograder.grading.discover import discover
from autograder.reports.class_load import shown_name
from autograder.reports.console import fs_name

RELEASE = Path(__file__).resolve().parents[2] / "assignments" / "tokens" / "tokens.ipynb"


def test_two_undecodable_folder_names_stay_two_ids(tmp_path):
    submitted = tmp_path / "submitted"
    for raw in (b"stud\xff", b"stud\xfe"):
        folder = Path(os.fsdecode(os.fsencode(submitted) + b"/" + raw + b"/tokens"))
        folder.mkdir(parents=True)
        shutil.copy(RELEASE, folder / "tokens.ipynb")
    jobs = discover(submitted)
    assert len(jobs) == 2
    ids = [safetext.display_name(j.student_id) for j in jobs]  # the ids a NotebookResult carries
    assert sorted(ids) == ["stud\\xfe", "stud\\xff"]
    assert "\ufffd" not in "".join(ids)
    assert len({shown_name(i) for i in ids}) == 2           # the class report's rows
    assert len({fs_name(i) for i in ids}) == 2              # the report folders
    # a name that is valid UTF-8 is shown as itself
    assert safetext.display_name(os.fsdecode("José".encode())) == "José"
