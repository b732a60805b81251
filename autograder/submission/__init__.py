"""The submission interface the checks use, wherever the student's code runs.

* ``remote.ChildSubmission``: the code runs in a confined child process (the grade of record);
  ``exchange`` holds its request/reply half (``Exchange``, ``RemoteObject``).
* ``local.LocalSubmission``: the code runs in this process (nbgrader's hidden test cells).
* ``notebook``, ``files``, ``digest``, ``counted``, ``repeated``: reading a hand-in, and the rules
  that repeat or count a student's calls.

The limits of a child and the one error every failure of student code becomes are
``sandbox.limits.Limits`` and ``sandbox.limits.StudentCodeError``. Import each name from the module
that defines it: ``local`` and ``remote`` (numpy, the wire codec) then load only when used, so the
grading command's own process reads notebooks without loading them.
"""
