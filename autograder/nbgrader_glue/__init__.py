"""The grader inside nbgrader: the gradebook bridge (``gradebook``), the released-cell plugin
(``cells``), the CSV export plugin (``export``) and the hidden-test cell's entry (``in_kernel``).
Named ``nbgrader_glue``, not ``nbgrader``, so nothing shadows the library."""
