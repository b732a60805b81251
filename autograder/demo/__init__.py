"""The demo class: simulated students, filled notebooks, and the end-to-end nbgrader run."""
