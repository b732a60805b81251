"""Removing a tree student code shaped (``child/removal.py``): any depth, width, modes or names.

``os.walk`` and ``shutil.rmtree`` recurse once per folder level: a chain of 1,500 nested folders
left in ``/dev/shm`` made the setuid level's clean-up raise ``RecursionError``, the chain
survived for a later student, and later runs whose uid lease tried that uid first refused the
whole class. These trees are built as an attacker builds them (by descriptor, as a path to the
bottom is longer than ``PATH_MAX``) and removed as root and as their unprivileged owner, for
whom a folder of mode 000 cannot even be listed.
"""
import os
import stat
import subprocess

import pytest
from conftest import other_uids
from shaped_trees import NAMES, build_chain, exists_any

from autograder.child import removal

DEPTH = 5_000  # five times Python's recursion limit; the deepest path is ~330 KB long
WIDE = 20_000


def _attack_tree(top, victim):
    """At ``top``: a chain of ``DEPTH`` folders (odd names, modes 000, 3777, 1000, 2000) with a
    file and a link to ``victim`` at the bottom, a folder of ``WIDE`` files, a folder of mode 000
    inside one of mode 000, links to ``victim`` and to ``/etc``, and a FIFO."""
    os.mkdir(top)
    build_chain(top, "chain", DEPTH, bottom=lambda fd: os.symlink(victim, "victim-link", dir_fd=fd))
    os.mkdir(f"{top}/wide")
    for i in range(WIDE):
        os.close(os.open(f"{top}/wide/{i}", os.O_CREAT | os.O_WRONLY, 0o600))
    os.makedirs(f"{top}/outer/inner")
    open(f"{top}/outer/inner/kept", "w").close()
    os.chmod(f"{top}/outer/inner", 0)
    os.chmod(f"{top}/outer", 0)
    os.symlink(victim, f"{top}/to-victim")
    os.symlink("/etc", f"{top}/to-etc")
    os.mkfifo(f"{top}/fifo")
    os.chmod(top, 0o3777)


def _victim(tmp_path):
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("the instructor's")
    return victim


def _remove(parent, name):
    fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        return removal.remove(fd, name, f"{parent}/{name}")
    finally:
        os.close(fd)


def test_a_chain_of_5000_folders_a_wide_folder_odd_names_and_modes_are_removed_as_root(shm_tmp):
    victim = _victim(shm_tmp)
    _attack_tree(f"{shm_tmp}/left", str(victim))
    assert _remove(str(shm_tmp), "left") == []
    assert not os.path.lexists(shm_tmp / "left")
    assert (victim / "keep.txt").read_text() == "the instructor's"  # no link was followed
    assert stat.S_IMODE(os.stat("/etc").st_mode) == 0o755


def test_their_owner_removes_them_without_privileges(shm_tmp, as_other_user):
    """The fork server's clean-up runs as the sandbox's uid: mode-000 folders are not listable
    by it until their modes are reset, which must happen by descriptor at every level."""
    uid = other_uids()[1]
    victim = _victim(shm_tmp)
    home = shm_tmp / "home"
    home.mkdir()
    os.chown(home, uid, uid)
    os.chmod(victim, 0o777)  # even a victim the owner may write is not reached through a link

    def attack_then_clean():
        _attack_tree(f"{home}/left", str(victim))
        return _remove(str(home), "left"), exists_any(str(home), "left")
    left, still_there = as_other_user(uid, attack_then_clean)[0]
    assert left == [] and not still_there
    assert sorted(os.listdir(victim)) == ["keep.txt"]


def test_what_cannot_be_removed_is_named_and_everything_else_goes(tmp_path):
    """An immutable file at the bottom of a chain (only root can make one): the chain's folders
    above it stay, named in the answer with the name escaped; its siblings go."""
    top = tmp_path / "left"
    top.mkdir()
    (top / "sibling").write_text("goes")
    bottom = build_chain(str(top), "chain", 50, bottom=lambda fd: os.close(
        os.open("fixed\nname", os.O_CREAT | os.O_WRONLY, 0o600, dir_fd=fd)))
    fixed = os.path.join(bottom, "fixed\nname")
    subprocess.run(["chattr", "+i", fixed], check=True)
    try:
        left = _remove(str(tmp_path), "left")
        assert len(left) == 1 and "fixed\\nname: Operation not permitted" in left[0], left
        assert left[0].startswith(f"{tmp_path}/left/chain/{removal.shown(NAMES[0])}/"), left
        assert "more folders" in left[0]  # a deep path is shortened, its two ends kept
        assert os.listdir(top) == ["chain"]
    finally:
        subprocess.run(["chattr", "-i", fixed], check=True)
    assert _remove(str(tmp_path), "left") == []


def test_another_file_system_inside_is_not_entered(tmp_path):
    top = tmp_path / "left"
    (top / "mnt").mkdir(parents=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "test-removal", str(top / "mnt")], check=True)
    try:
        (top / "mnt" / "theirs").write_text("on another file system")
        left = _remove(str(tmp_path), "left")
        assert left == [f"{top}/mnt: a mount point (another file system)"], left
        assert (top / "mnt" / "theirs").read_text() == "on another file system"
    finally:
        subprocess.run(["umount", str(top / "mnt")], check=True)


def test_emptying_keeps_the_folder(shm_tmp):
    (shm_tmp / "scratch").mkdir()
    build_chain(str(shm_tmp / "scratch"), "x", 1_200)
    os.symlink(_victim(shm_tmp), shm_tmp / "scratch" / "link")
    fd = os.open(shm_tmp / "scratch", os.O_RDONLY | os.O_DIRECTORY)
    try:
        assert removal.empty(fd) == []
    finally:
        os.close(fd)
    assert os.listdir(shm_tmp / "scratch") == []
    assert os.listdir(shm_tmp / "victim") == ["keep.txt"]


@pytest.mark.parametrize("name, text", [
    ("plain", "plain"), ("new\nline", "new\\nline"), (b"\xff\xfe", "\\xff\\xfe"), ("tab\there", "tab\\there"),
    ("x" * 255, "x" * 40 + "..." + "x" * 20 + " (255 bytes)"),
])
def test_names_in_messages_are_one_printable_line(name, text):
    assert removal.shown(name) == text
    assert not exists_any("/", "no such entry \n here")
