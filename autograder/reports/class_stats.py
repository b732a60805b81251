"""The class report's numbers: each check's pass rate (``check_stats``), the mistakes the class made
(``mistake_table``), the score histogram and the students ordered by the gaps they share, and the two CSVs
(``class_checks.csv``, ``class_mistakes.csv``, every cell through ``csvsafe``)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from autograder.reports import csvsafe
from autograder.reports.class_load import HISTOGRAM_BINS


@dataclass
class CheckStats:
    """One check across the class: ``assignment``, ``function``, ``name``, ``points`` (its
    maximum), ``submitted`` and ``passed`` (students), ``mean_points`` (over those who submitted)."""
    assignment: str
    function: str
    name: str
    points: float
    submitted: int = 0
    passed: int = 0
    total_points: float = 0.0

    @property
    def pass_rate(self):
        """Share of the students who submitted that passed, in [0, 1]."""
        return self.passed / self.submitted if self.submitted else 0.0

    @property
    def mean_points(self):
        return self.total_points / self.submitted if self.submitted else 0.0


def add_check_stats(stats: dict, e) -> None:
    """Count entry ``e`` into ``stats`` (``{assignment: {check name: CheckStats}}``, checks in the
    order first seen). A notebook not attempted (``Entry.not_attempted``: every function still the
    released stub) names its checks but counts in no pass rate or mean."""
    by_name = stats.setdefault(e.assignment, {})
    if e.not_attempted:
        for t in e.tests:
            by_name.setdefault(t.name, CheckStats(e.assignment, t.function, t.name, t.max_score))
        return
    for t in e.tests:
        s = by_name.setdefault(t.name, CheckStats(e.assignment, t.function, t.name, t.max_score))
        s.points = max(s.points, t.max_score)
        s.submitted += 1
        s.passed += t.passed
        s.total_points += t.score


def check_stats(entries) -> dict:
    """``{assignment: [CheckStats, ...]}`` in the checks' order as first seen (``add_check_stats``);
    ``entries``: any iterable of ``Entry``, read once."""
    stats: dict[str, dict[str, CheckStats]] = {}  # assignment -> check name -> its figures
    for e in entries:
        add_check_stats(stats, e)
    return {a: list(v.values()) for a, v in stats.items()}


def mistake_table(entries) -> list:
    """Named mistakes ranked by how many students made them.

    Returns:
        list of ``(assignment, function, mistake, [(student, k), ...])`` (``k``: the entry's place in
        ``entries``, from 0; by student), most students first (then assignment, function, mistake);
        a student counts once per mistake however many of its checks name it.
    """
    made: dict = {}  # (assignment, function, mistake) -> student -> k
    for k, e in enumerate(entries):
        for t in e.tests:
            if t.passed:
                continue
            for m in t.mistakes:
                made.setdefault((e.assignment, t.function, m), {})[e.student] = k
    return mistake_rows(made)


def mistake_rows(made: dict) -> list:
    """``mistake_table``'s rows from ``{(assignment, function, mistake): {student: k}}``."""
    rows = [(a, f, m, sorted(who.items())) for (a, f, m), who in made.items()]
    rows.sort(key=lambda r: (-len(r[3]), r[0], r[1], r[2]))
    return rows


def histogram(scores: list[float], max_score: float, bins: int = HISTOGRAM_BINS) -> list[int]:
    """Counts of ``scores`` in ``bins`` equal parts of [0, ``max_score``] (the top one closed).

    Returns: list of ``bins`` ints."""
    counts = [0] * bins
    for s in scores:
        share = s / max_score if max_score > 0 else 0.0
        counts[min(max(int(share * bins), 0), bins - 1)] += 1
    return counts


def bins(scores: list[float], max_score: float) -> list[tuple[float, float]]:
    """The histogram's ranges ``[(low, high), ...]``: one per point (or per run of whole points,
    at most ``HISTOGRAM_BINS`` + 1 ranges) when ``max_score`` and every score are whole numbers,
    both ends included; else tenths of ``max_score`` (a range holds its lower end, the last both)."""
    whole = max_score == int(max_score) and all(float(s) == int(s) for s in scores)
    if whole and max_score >= 1:
        top = int(max_score)
        width = -(-(top + 1) // (HISTOGRAM_BINS + 1))  # ceil: at most 11 ranges (0..10 for 10 points)
        return [(low, min(low + width - 1, top)) for low in range(0, top + 1, width)]
    return [(max_score * i / HISTOGRAM_BINS, max_score * (i + 1) / HISTOGRAM_BINS) for i in range(HISTOGRAM_BINS)]


def binned(scores: list[float], ranges: list[tuple[float, float]]) -> list[int]:
    """Counts of ``scores`` in ``ranges`` (``bins``): whole-point ranges hold both ends, tenths
    their lower end (the last both). Returns: list of ints, one per range."""
    whole = all(isinstance(low, int) for low, _ in ranges)
    counts = [0] * len(ranges)
    for s in scores:
        for i, (low, high) in enumerate(ranges):
            last = i == len(ranges) - 1
            if (low <= s <= high) if whole or last else (low <= s < high):
                counts[i] += 1
                break
        else:
            counts[0 if s < ranges[0][0] else -1] += 1
    return counts


def gap_order(entries, names):
    """``entries`` sorted so that students with the same failed checks stand together: by their
    failed checks (most often failed checks first, so common gaps make the big groups), then by
    name. ``names``: the assignment's check names."""
    fails = {n: 0 for n in names}
    for e in entries:
        for t in e.tests:
            if not t.passed and t.name in fails:
                fails[t.name] += 1
    passed = [b"".join(b"p" if {t.name: t.passed for t in e.tests}.get(n, False) else b"f" for n in names)
              for e in entries]
    ranked = gap_sorted([(p, e.student, k) for k, (p, e) in enumerate(zip(passed, entries, strict=True))],
                        names, fails)
    return [entries[row[2]] for row in ranked]


def gap_sorted(rows, names, fails: dict) -> list:
    """``gap_order`` on the grid's rows (``class_summary``: ``(cells, student, ...)``, ``cells`` a
    letter a check of ``names``, ``p`` where it passed; missing letters at the end: not passed).
    ``fails``: ``{check name: failed checks}`` (a name not in it: never failed)."""
    order = sorted(range(len(names)), key=lambda i: -fails.get(names[i], 0))
    passed = ord("p")

    def key(row):
        cells = row[0]
        return tuple(0 if i < len(cells) and cells[i] == passed else 1 for i in order), row[1]
    return sorted(rows, key=key)


def _write_csv(path, header, rows):
    """Write ``rows`` (lists) under ``header`` as UTF-8 CSV, every cell through ``csvsafe`` (a float
    written as ``:g``, so 2.0 points read ``2``)."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csvsafe.writer(f)
        writer.writerow(header)
        writer.writerows([f"{v:g}" if isinstance(v, float) else v for v in row] for row in rows)
    return Path(path)


def write_checks_csv(stats, path) -> Path:
    """``class_checks.csv``: assignment, function, check, points, submitted, passed,
    pass_rate (share in [0, 1], 3 decimals), mean_points (2 decimals)."""
    rows = [[s.assignment, s.function, s.name, s.points, s.submitted, s.passed, f"{s.pass_rate:.3f}",
             f"{s.mean_points:.2f}"] for a in sorted(stats) for s in stats[a]]
    return _write_csv(path, ["assignment", "function", "check", "points", "submitted", "passed", "pass_rate",
                             "mean_points"], rows)


def write_mistakes_csv(mistakes, path) -> Path:
    """``class_mistakes.csv``: assignment, function, mistake, count (students), students ("; ")."""
    rows = [[a, f, m, len(who), "; ".join(student for student, _ in who)] for a, f, m, who in mistakes]
    return _write_csv(path, ["assignment", "function", "mistake", "count", "students"], rows)
