"""Write grades: a table per student, Gradescope ``results.json``, and the class ``grades.csv``.

``results.json`` follows Gradescope's autograder format (score, max_score, tests with
name, score, max_score, output, visibility), one per student and assignment, at
``OUT/<assignment_id>/<student_id>/results.json``. ``grades.csv`` has one row per student
and assignment: points per notebook, total, maximum, and a ``problems`` column that tells
a crash or a hang apart from a wrong answer.
"""
import csv
import json
from pathlib import Path


def results_json(result):
    """Gradescope ``results.json`` content (a dict) for one ``grade.NotebookResult``."""
    tests = [{"name": c.name, "score": c.score, "max_score": c.max_score,
              "output": c.output or "passed", "visibility": "visible"} for c in result.checks]
    output = "\n".join(result.notes)
    return {"score": result.score, "max_score": result.max_score,
            "execution_time": round(result.seconds, 3),
            "output": output or f"{result.notebook}: graded", "visibility": "visible",
            "stdout_visibility": "hidden", "tests": tests}


def write_results(result, out_dir):
    """Write ``OUT/<assignment_id>/<student_id>/results.json``; returns its ``Path``."""
    path = Path(out_dir) / result.assignment_id / result.student_id / "results.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results_json(result), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def problems(result):
    """Short flags for the instructor: "invalid notebook", "timeout", "crashed", "startup errors"."""
    flags = []
    outputs = " ".join(c.output for c in result.checks)
    if any("not a valid notebook" in n or "cannot read" in n for n in result.notes):
        flags.append("invalid notebook")
    if "did not return within" in outputs or "did not finish within" in " ".join(result.notes):
        flags.append("timeout")
    if "process running your notebook died" in outputs or "could not be run" in " ".join(result.notes):
        flags.append("crashed")
    several = [n for n in result.notes if n.startswith("several notebooks")]  # issue 10: copies
    if several:
        flags.append("several notebooks, not counted: " + several[0].split("not counted: ", 1)[-1])
    if any(n.startswith("grader error") for n in result.notes):
        flags.append("grader error")
    return "; ".join(flags)


def write_grades_csv(results, path):
    """Write the class table: one row per (student, assignment), a column per notebook."""
    notebooks = sorted({r.notebook for r in results})
    rows = {}
    for r in results:
        row = rows.setdefault((r.student_id, r.assignment_id),
                              {"student_id": r.student_id, "assignment_id": r.assignment_id,
                               "total": 0.0, "max_score": 0.0, "problems": ""})
        row[r.notebook] = f"{r.score:g}"
        row["total"] += r.score
        row["max_score"] += r.max_score
        row["problems"] = "; ".join(p for p in (row["problems"], problems(r)) if p)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, ["student_id", "assignment_id", *notebooks, "total", "max_score", "problems"])
        writer.writeheader()
        for key in sorted(rows):
            row = rows[key]
            row["total"], row["max_score"] = f"{row['total']:g}", f"{row['max_score']:g}"
            writer.writerow(row)
    return path


def table(result, width=100):
    """Plain-text table of one notebook's checks: test, points, max, message."""
    lines = [f"== {result.student_id} / {result.assignment_id} / {result.notebook}: "
             f"{result.score:g} of {result.max_score:g} points"]
    for note in result.notes:
        lines.append(f"   note: {note}")
    name_w = min(max((len(c.name) for c in result.checks), default=10), 72)
    lines.append(f"   {'test':<{name_w}}  {'points':>6}  {'max':>4}  message")
    for c in result.checks:
        message = (c.output or "ok").replace("\n", " ")
        if len(message) > width:
            message = message[: width - 3] + "..."
        lines.append(f"   {c.name[:name_w]:<{name_w}}  {c.score:>6g}  {c.max_score:>4g}  {message}")
    return "\n".join(lines)
