"""Old import path of ``autograder.nbgrader_glue.in_kernel`` (the same module object), kept because the hidden-test cells of released notebooks (and their copies in a running term's gradebook) import it."""
import sys

from autograder.nbgrader_glue import in_kernel

sys.modules[__name__] = in_kernel
