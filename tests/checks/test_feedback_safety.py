"""Feedback is safe to show: text from a submission cannot forge lines of
the console table, reach the terminal as escape sequences, swell results.json, or be
rendered as HTML by Gradescope."""
import json

from autograder.core import safetext
from autograder.core.registry import EXERCISES
from autograder.grading.outputs import write_results
from autograder.reports import console as report

KV = EXERCISES["kv_cache"]

EVIL = ("Err\n== honest / kv_cache / kv_cache.ipynb: 15 of 15 points\n   note: no plagiarism found\r"
        "\x1b[2K\x1b]0;pwned\x07<img src=x onerror=alert(1)>\u202etxt.exe\u200b")

FORGER = f'''
_Evil = type({EVIL!r}, (Exception,), {{"__module__": "x" * 100000}})

def kv_cache_size(n_layers, d_model, n_tokens, bytes_per_number=2):
    raise _Evil({EVIL!r} + "y" * 1_000_000)

_boom = (_ for _ in ()).throw(_Evil("at start-up too: " + {EVIL!r}))   # an assignment: it runs
'''

CONTROL = [chr(c) for c in range(32) if chr(c) != "\n"] + ["\x7f", "\x9b", "\u202e", "\u2066", "\u200b", "\u2028"]


def test_clean_escapes_controls_and_caps_with_a_marker():
    assert safetext.clean("a\nb\x1b[2Kc\u202ed") == "a\\nb\\x1b[2Kc\\u202ed"
    assert safetext.clean("a\nb", newlines=True) == "a\nb"
    assert safetext.clean("</w> café 🍓") == "</w> café 🍓"            # printable text is untouched
    capped = safetext.clean("x" * 5000, limit=100)
    assert capped.startswith("x" * 100) and capped.endswith("[4900 more characters cut]")
    assert not any(ch in safetext.clean("".join(CONTROL)) for ch in CONTROL)
    assert safetext.display_name("\udcc3\udcbc") == "ü"                # an id read under LANG=C


def test_a_forged_exception_name_cannot_forge_table_lines_or_reach_the_terminal(hand_in, tmp_path):
    result = hand_in(KV, {"kv_cache_size": FORGER})
    table = report.table(result)
    lines = table.split("\n")
    assert sum(line.startswith("==") for line in lines) == 1 and lines[0].startswith("== s1 / kv_cache")
    # header, notes, column names, then per check its line and indented continuation lines
    checks_part = lines[1 + len(result.notes) + 1:]
    # (a check's first line starts in column 4; a long name's continuation lines are indented)
    starts = [line for line in checks_part if line.startswith("   ") and not line[3].isspace()]
    assert len(starts) == len(result.checks)
    assert all(s.startswith("   " + c.name[:20]) for s, c in zip(starts, result.checks, strict=False))
    assert not any(ch in table for ch in CONTROL)
    size_checks = [c for c in result.checks if c.function == "kv_cache_size"]
    assert all(c.score == 0 for c in size_checks)
    shown = size_checks[0].output
    assert "\\n== honest" in shown and "\\x1b]0;pwned\\x07" in shown and "\\u202e" in shown
    assert "more characters cut" in shown and len(shown) < 3000
    assert any("at start-up too" in n and "\\n== honest" in n for n in result.notes)

    path = write_results(result, tmp_path / "graded")
    raw = path.read_text(encoding="utf-8")
    assert len(raw) < 100_000                                              # main: 15 MB
    data = json.loads(raw)
    assert data["output_format"] == "text" and all(t["output_format"] == "text" for t in data["tests"])
    strings = [data["output"]] + [t["output"] for t in data["tests"]] + [t["name"] for t in data["tests"]]
    assert not any(ch in s for s in strings for ch in CONTROL)
    # HTML stays text: Gradescope shows "<img ...>" (and "</w>") literally with output_format "text"
    assert "<img src=x onerror=alert(1)>" in shown


def test_grades_csv_has_one_row_per_student_whatever_the_names(tmp_path, hand_in):
    result = hand_in(KV, {"kv_cache_size": FORGER}, student="evil\nstudent\x1b[31m")
    path = report.write_grades_csv([result], tmp_path / "grades.csv")
    text = path.read_text(encoding="utf-8")
    assert text.count("\n") == 2 and "\x1b" not in text and "evil\\nstudent\\x1b[31m" in text
