"""One Gradescope submission as the container finds it: the build's settings (``load_config``), the
student's id from Gradescope's metadata (``student_id``), and the notebook that hands in the assignment among
the uploaded files (``find_notebook``)."""
import json
import os
from pathlib import Path

STUDENT_ID_FIELDS = ("sid", "email", "id")  # submission_metadata.json users[] keys, in order


def load_config(source):
    """The build's options (``config.json`` at the bundle's root), as a dict."""
    return json.loads((Path(source) / "config.json").read_text(encoding="utf-8"))


def student_id(metadata, fields=STUDENT_ID_FIELDS):
    """The student id to seed the randomized cases with, from submission_metadata.json.

    Args:
        metadata: the parsed submission_metadata.json (dict).
        fields: keys of each ``users[]`` entry tried in order (Gradescope's ``sid`` is the
            roster's student id, ``email`` the login, ``id`` Gradescope's own number).
    Returns:
        ``(student_id, note)``: the id (``str``) and a note for the instructor (``str``).
        For a group submission the smallest id of the group is used, whatever their order.
    Raises:
        ValueError: no user with any of ``fields`` set.
    """
    users = metadata.get("users") if isinstance(metadata, dict) else None
    if not isinstance(users, list) or not users:
        raise ValueError("submission_metadata.json lists no users")
    for field in fields:
        ids = sorted(str(u[field]).strip() for u in users
                     if isinstance(u, dict) and u.get(field) not in (None, "") and str(u[field]).strip())
        if len(ids) == len(users):
            note = f"student id {ids[0]!r} (users[].{field})"
            if len(ids) > 1:
                note += f"; group of {len(ids)}: {', '.join(ids)}; seeds use the first"
            return ids[0], note
    raise ValueError(f"no user in submission_metadata.json has {' or '.join(fields)} set")


def _notebook_grade_ids(path):
    """The nbgrader grade ids in the notebook at ``path``, read as grading reads it (a regular
    file, never through a link, outputs dropped); an empty set when it cannot be read."""
    from autograder.submission.notebook import InvalidNotebook, grade_ids, load_cells
    try:
        return grade_ids(load_cells(path))
    except InvalidNotebook:
        return set()


def find_notebook(submission_dir, exercise, grade_ids):
    """The notebook to grade among what the student uploaded.

    Students upload the .ipynb alone, renamed, inside a folder, or among other files.
    Candidates are every ``*.ipynb`` under ``submission_dir`` (symbolic links, hidden
    folders, ``__MACOSX`` and ``.ipynb_checkpoints`` left out). Preferred: the released
    file name (``attention.ipynb``), then the most nbgrader ``grade_id``s shared with the
    release (exact ids, which survive renaming), then the shallowest path, then the name.

    Returns:
        ``(path or None, notes)``: notes (``str`` list) say which file was graded and which
        were not, or why nothing could be graded.
    """
    submission_dir = Path(submission_dir)
    files = []
    for folder, dirs, names in os.walk(submission_dir):  # never follows symbolic links
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__MACOSX")
        files += [Path(folder) / n for n in sorted(names) if not n.startswith(".")]
    files = [p for p in files if not p.is_symlink() and p.is_file()]
    candidates = [p for p in files if p.suffix == ".ipynb"]
    if not candidates:
        seen = sorted(p.relative_to(submission_dir).as_posix() for p in files)[:20]
        return None, [f"no Jupyter notebook (.ipynb) found in your submission; upload {exercise.notebook}"
                      + (f" (found: {', '.join(seen)})" if seen else "")]
    wanted = set(grade_ids)

    def rank(path):
        rel = path.relative_to(submission_dir)
        return (path.name != exercise.notebook, -len(_notebook_grade_ids(path) & wanted), len(rel.parts),
                rel.as_posix())
    candidates.sort(key=rank)
    chosen, rest = candidates[0], candidates[1:]
    notes = []
    rel = chosen.relative_to(submission_dir).as_posix()
    if rel != exercise.notebook or rest:
        notes.append(f"graded {rel}" + (f"; not graded: {', '.join(p.relative_to(submission_dir).as_posix() for p in rest)}"
                                        if rest else ""))
    return chosen, notes
