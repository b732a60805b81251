"""The engine's side of the hidden checks: ``pytest.ini`` and the fixtures every check file
uses (``conftest.py``). The checks themselves are the course's: ``exercises/<name>/checks.py``;
see ``autograder.checks.api``."""
