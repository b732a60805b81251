"""The course as data and everything generated from it: the exercise registry (``registry``), the worked
figures (``worked``), the visible cells (``visible``, ``visible_cell``), new exercise folders (``scaffold``),
and the build of notebooks, solutions and pages (``build``, ``pages``, ``docs_tables``)."""
