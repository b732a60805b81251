"""What the grader writes: the console table, ``results.json`` and ``grades.csv`` (``console``), the student's
HTML page (``student``), the class report (``class_report``, reading with ``class_load`` and counting with
``class_stats``), and the escaping every written cell goes through (``csvsafe``, ``safetext``)."""
