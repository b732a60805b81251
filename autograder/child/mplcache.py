"""Copy the font list the grader built (``autograder/sandbox/matplotlib_cache.py``) into this
process's empty ``MPLCONFIGDIR`` before matplotlib is imported, so the import does not scan
the system's fonts again. Nothing happens when either folder is missing or unreadable."""
import glob
import os
import shutil


def seed(project_root):
    """Copy ``<project_root>/.cache/matplotlib/fontlist-*.json`` into ``$MPLCONFIGDIR``."""
    target = os.environ.get("MPLCONFIGDIR")
    if not target or not project_root:
        return
    try:
        os.makedirs(target, exist_ok=True)
        for path in glob.glob(os.path.join(project_root, ".cache", "matplotlib", "fontlist-*.json")):
            shutil.copyfile(path, os.path.join(target, os.path.basename(path)))
    except OSError:
        pass
