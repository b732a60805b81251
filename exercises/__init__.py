"""The course: one folder per exercise (``exercises/<name>/``), read by ``autograder.core.registry``."""
