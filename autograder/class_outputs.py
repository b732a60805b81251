"""What a class run writes once its notebooks are graded: one function, called by a single
run (``cli.py``) and by the merge of a class graded in shards (``cluster/merge.py``), so both
write the same files the same way."""
from . import class_report, gradebook, html_report, identical, report


def write_class_outputs(path, jobs, results, out, gradebook_option="auto", quiet=False):
    """Everything a class run writes once its notebooks are graded (a single run, and the
    merge of shards, ``cluster/merge.py``, both call this).

    In order: the grades into nbgrader's gradebook (``gradebook.record_for_cli``; its late
    penalties and manual overrides go into the reports and grades.csv), each student's
    results.json and report.html, identical submissions flagged (``identical.flag``),
    grades.csv, and the staff's class report (``class_report.write_after_run``).

    Args:
        path: the PATH graded (``submitted/``; tells the course for ``gradebook_option`` "auto").
        jobs: ``discover.Job`` list; results: their ``NotebookResult`` list, same order
            (changed in place: identical flags, gradebook notes).
        out: the output folder (``Path``).
        gradebook_option: ``--gradebook`` ("auto", "none" or a database URL).
        quiet: print no per-notebook table.
    Returns:
        ``(recorded, csv_path)``: whether the gradebook took every grade (``bool``), and
        the ``Path`` of grades.csv.
    """
    totals = {}
    recorded = gradebook.record_for_cli(gradebook_option, path, jobs, results, totals)  # nbgrader (gradebook.py)
    for r in results:
        report.write_results(r, out)
        html_report.write_html(r, out)
        if not quiet:
            print(report.table(r))
    # After the students' own reports: the flag is for the instructor (grades.csv, identical.csv).
    note_path, flagged = identical.flag(jobs, results, out)
    csv_path = report.write_grades_csv(results, out / "grades.csv", totals)
    if flagged:
        print(f"{len(flagged)} notebook(s) identical to another student's or hard-linked: listed in {note_path} "
              "(flagged only; their points are unchanged)")
    class_report.write_after_run(out)  # class.html and its CSVs, for staff
    return recorded, csv_path

