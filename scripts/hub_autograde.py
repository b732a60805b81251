"""``nbgrader autograde`` and formgrader's Autograde button, switched off on the course hub.

nbgrader's autograde runs every student's notebook in a kernel of the user who grades, with
nothing between the student's code and that user's files: on the hub, the instructor's
course folder (reference solutions, hidden checks, the course secret that seeds every
student's cases, the gradebook, every other student's submission) and their JupyterHub
session. A student's cell can read or change any of it. ``python -m autograder grade
submitted/`` grades the same notebooks in the grading sandbox (bubblewrap, seccomp, no view of
the course folder) and records the same scores in the gradebook, with the ``autograded/``
copies formgrader shows; it is the way to grade on the hub.

``scripts/hub.sh install`` copies this file into the hub's Python environment as the module
``lmrt_hub_autograde`` and selects ``AutogradeSwitchedOff`` as ``Autograde.exporter_class`` in
the environment's nbgrader config. nbgrader builds that exporter after listing the
submissions and before it touches any of them (no student folder is removed, no kernel
started), so both the command and the button stop there with ``MESSAGE``. An instructor who
accepts the exposure above can switch it back on in the course's ``nbgrader_config.py``
(``c.Autograde.exporter_class = "nbconvert.exporters.NotebookExporter"``).
"""
from nbconvert.exporters import NotebookExporter
from nbgrader.converters.base import NbGraderException

MESSAGE = (
    "nbgrader autograde is switched off on this hub: it would run each student's code as you, "
    "unconfined, where it can read and change your course folder (solutions, hidden checks, the "
    "course secret, the gradebook, every submission). Grade with the confined grader instead: "
    "python -m autograder grade submitted/ (or submitted/<student>/<assignment>/ for one student) "
    "in a terminal in the course folder; it records the scores in the gradebook and writes the "
    "autograded/ copies formgrader shows.")


class AutogradeSwitchedOff(NotebookExporter):
    """The exporter nbgrader's Autograde would run notebooks with; building it stops autograde."""

    def __init__(self, *args, parent=None, **kwargs):
        if parent is not None:
            parent.log.error(MESSAGE)
        raise NbGraderException(MESSAGE)
