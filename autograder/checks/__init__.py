"""Hidden checks, one pytest file per exercise (``check_<exercise>.py``); see ``autograder.checking``."""
