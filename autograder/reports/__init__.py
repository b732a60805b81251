"""What the grader writes: the console table and result files (``console``, ``files``), the student's HTML
page (``student``), the class report (``class_report``), and the escaping every written cell goes through
(``csvsafe``, ``safetext``)."""
