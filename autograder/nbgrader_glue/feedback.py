"""The notebook formgrader shows and ``nbgrader generate_feedback`` turns into the students' HTML:
``autograded/<student>/<assignment>/<notebook>.ipynb``, the submission cleaned by nbgrader's own sanitizing
preprocessors and made inert (``nbgrader_glue/inert.py``: no markup, output or metadata of the student's that a
page rendering it would run), with the grader's report as its first cell and each function's checks under its hidden-test cell
(``write_feedback_notebook``; ``nbgrader_glue/gradebook.py`` calls it after recording the scores)."""
import logging
import os
import tempfile
from pathlib import Path

SUBMISSION_FILES = ("timestamp.txt", "submission_secret.txt")
log = logging.getLogger("autograder.nbgrader_glue.gradebook")  # one log for recording and feedback


def nbgrader_modules():
    """nbgrader's modules (and nbformat), imported on first use: they take seconds."""
    import nbformat
    from nbgrader import api, preprocessors, utils
    return nbformat, api, preprocessors, utils


def student_logger(student, assignment):
    return logging.LoggerAdapter(log, {"where": f"{student}/{assignment}"})


REPORT_CELL_SOURCE = "# The grader's report on this notebook (python -m autograder grade: the grade of record)"


def _check_lines(checks):
    lines = []
    for c in checks:
        lines.append(f"{'PASS' if c.score == c.max_score else 'FAIL'}  {c.score:g}/{c.max_score:g}  {c.name}")
        if c.output:
            lines.append("      " + c.output.replace("\n", "\n      "))
    return lines


def feedback_notebook(course, result, path, record=None, gb=None, releases=None):
    """The notebook ``nbgrader generate_feedback`` renders for one graded submission.

    Args:
        course: ``CourseDirectory``.
        result: its ``vocabulary.NotebookResult``.
        path: the submitted .ipynb file.
        record: the gradebook's ``Totals`` of it (the report's headline), or None.
        gb: an open ``nbgrader.api.Gradebook`` to read the source cells from (``None``: nbgrader's
            ``OverwriteCells`` opens one of its own).
        releases: ``release.Releases`` of ``gb``: the released notebook's cells and kernelspec
            are then read from there, once for the class (``None``: through ``gb``).
    Returns:
        ``nbformat.NotebookNode``: the sanitized, inert submission with the grader's report on
        top and each function's checks under its hidden-test cell. A submission that
        cannot be read or sanitized gives a notebook holding the report alone.
    """
    from autograder.core.registry import find
    from autograder.nbgrader_glue.cells import (
        CheckCellMetadataOnce,
        OverwriteKernelspecOpen,
        OverwriteReleasedCells,
        released_source,
    )
    from autograder.nbgrader_glue.inert import inert_notebook
    from autograder.reports.console import table
    from autograder.reports.student import render_fragment
    nbformat, _, preprocessors, utils = nbgrader_modules()
    aid, sid = result.assignment_id, result.student_id
    notebook_id = Path(find(aid).notebook).stem
    resources = {"nbgrader": {"notebook": notebook_id, "assignment": aid, "student": sid, "db_url": course.db_url}}
    if gb is not None:
        resources["nbgrader"]["gradebook"] = gb if releases is None else _release_book(gb, releases, notebook_id, aid)
    student_log = student_logger(sid, aid)
    try:
        nb = nbformat.read(path, as_version=4)
        kinds = (preprocessors.ClearOutput, preprocessors.DeduplicateIds, OverwriteKernelspecOpen,
                 OverwriteReleasedCells, CheckCellMetadataOnce)
        for step in _steps(kinds, course, releases):
            step.log = student_log
            nb, resources = step.preprocess(nb, resources)
        inert_notebook(nb)  # nothing the student wrote runs where formgrader or the feedback shows it
    except Exception as exc:  # anything a hostile notebook does to nbformat or nbgrader
        student_log.warning("feedback shows the report only: %s: %s", type(exc).__name__, exc)
        nb = nbformat.v4.new_notebook()
    by_function = {}
    for c in result.checks:
        by_function.setdefault(c.function, []).append(c)
    for cell in nb.cells:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "")
        function = grade_id.removeprefix("test_")
        if cell.cell_type == "code" and utils.is_grade(cell) and grade_id.startswith("test_") \
                and function in by_function:
            shown = released_source(cell.source, course)
            cell.source = cell.source if shown is None else shown  # the hidden code is not for students
            checks = by_function[function]
            lines = _check_lines(checks) + [f"{function}: {sum(c.score for c in checks):g} of "
                                            f"{sum(c.max_score for c in checks):g} points"]
            cell.outputs = [nbformat.from_dict({"output_type": "stream", "name": "stdout", "text": "\n".join(lines) + "\n"})]
    nb.cells.insert(0, _report_cell(nbformat, render_fragment(result, record=record), table(result)))
    return nb


def _report_cell(nbformat, html, text):
    """The report cell: what ``nbformat.v4.new_code_cell`` and ``new_output`` build (a fresh cell id,
    ``display_data`` with empty metadata), without their schema check of each piece: the notebook is
    validated whole when written."""
    from nbformat.corpus.words import generate_corpus_id
    return nbformat.from_dict({
        "id": generate_corpus_id(), "cell_type": "code", "execution_count": None, "source": REPORT_CELL_SOURCE,
        "metadata": {"editable": False, "deletable": False},
        "outputs": [{"output_type": "display_data", "metadata": {}, "data": {"text/html": html, "text/plain": text}}]})


def _steps(kinds, course, releases):
    """The sanitizing preprocessors, configured by ``course``: made once for the class when ``releases``
    (``release.Releases``) is given, kept on it (each starts its work afresh at every ``preprocess``;
    the caller gives each notebook's logger), else made for this notebook."""
    if releases is None:
        return [kind(parent=course) for kind in kinds]
    made = releases.kept.get("feedback steps")
    if made is None or made[0] is not course:
        made = releases.kept["feedback steps"] = (course, [kind(parent=course) for kind in kinds])
    return made[1]


def _release_book(gb, releases, notebook_id, aid):
    """A ``release.ReleaseBook`` of the notebook, or ``gb`` when the gradebook has none (nbgrader's
    preprocessors then say so as they would)."""
    from autograder.nbgrader_glue.release import ReleaseBook
    _, api, _, _ = nbgrader_modules()
    try:
        return ReleaseBook(gb, releases.get(notebook_id, aid))
    except api.MissingEntry:
        return gb


def notebook_text(nb):
    """``nbformat.writes(nb)`` of a feedback notebook, the same text, made cheaper: ``nb`` is used up
    (``writes`` copies it whole to keep it) and is not checked against nbformat's schema, which only
    logs what it finds (``nbgrader generate_feedback`` reads the file through nbformat's validation).
    What that check changes is done as it does it: from nbformat 4.5 on, each cell without an id gets
    one, then each repeated id is replaced (``nbformat.validator``'s normalization)."""
    import json

    import nbformat
    from nbformat.corpus.words import generate_corpus_id
    from nbformat.v4.nbjson import BytesEncoder
    from nbformat.v4.rwbase import split_lines, strip_transient
    version = nbformat.reader.get_version(nb)
    if version[0] != 4:
        return nbformat.writes(nb)
    if version >= (4, 5):
        for cell in nb.cells:
            if "id" not in cell:
                cell["id"] = generate_corpus_id()
        seen = set()
        for cell in nb.cells:
            if cell["id"] in seen:
                cell["id"] = generate_corpus_id()
            seen.add(cell["id"])
    return json.dumps(strip_transient(split_lines(nb)), cls=BytesEncoder, indent=1, sort_keys=True,
                      separators=(",", ": "), ensure_ascii=False)


def _replace(path, write):
    """Write ``path`` through a temporary file: nbgrader leaves autograded files read-only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def write_feedback_notebook(course, result, path, record=None, gb=None, releases=None):
    """Write ``autograded/<student>/<assignment>/<notebook>.ipynb`` and copy the submission's
    ``timestamp.txt`` and ``submission_secret.txt`` beside it (``gb``, ``releases``: as for
    ``feedback_notebook``).
    Returns the notebook's ``Path``."""
    from autograder.core.registry import find
    nb = feedback_notebook(course, result, path, record, gb, releases)
    dest = Path(course.format_path(course.autograded_directory, result.student_id, result.assignment_id))
    target = dest / find(result.assignment_id).notebook
    _replace(target, lambda f: f.write(notebook_text(nb).encode("utf-8")))
    for name in SUBMISSION_FILES:
        src = Path(path).parent / name
        if src.is_file():
            _replace(dest / name, lambda f, src=src: f.write(src.read_bytes()))
    return target
