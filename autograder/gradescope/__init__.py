"""Gradescope: the bundle an instructor uploads (``bundle``), and the runtime inside Gradescope's
container (``container``, ``environment``) with its shell files (``files/``)."""
