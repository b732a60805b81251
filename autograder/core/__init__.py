"""The shared vocabulary, the bottom layer every other package may import (and which imports none of
them): the course's exercises and the project's paths (``registry``), the figures of the course text
(``worked``), the kinds of problems and the results the stages pass up (``vocabulary``: ``Problem``,
``CheckResult``, ``NotebookResult``, ``Job``), and the escaping every shown piece of student text goes
through (``safetext``)."""
