"""Near-copies compared by code, not by student (``near_copies.py`` uses this for each assignment).

Students whose code is the same once copydetect has normalised it (names, comments and blank lines
do not count: the same ``filtered_code``, so the same fingerprint) form one *code*: it is
fingerprinted once, compared once with each other code, and listed once. A code handed in by two
students or more is itself a near-copy (a *group*) when it is long enough (``flagged`` of the code
with itself); two codes are a near-copy pair when ``flagged`` says so of copydetect's comparison of
the two. For every pair of students this gives what comparing the two students directly gives:
copydetect's fingerprint, and so its comparison, depends only on the normalised code.

Which pairs of codes are compared: copydetect counts shared code only where the two fingerprints
share a k-gram hash, so a pair of codes sharing none has nothing in common and is not compared
(an inverted index of the hashes finds the pairs that share some: no near-copy is lost). When more
than ``COMPARED`` pairs of codes share a hash (a large class whose codes all differ a little:
1,429 codes are about 1 million pairs, some 3 minutes of copydetect per assignment), the
``COMPARED`` pairs sharing the largest fraction of their hashes (shared hashes over the larger
code's hashes) are compared and the rest are counted as not compared (``Stats.left``).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

COMPARED = 50_000  # comparisons of two distinct codes per assignment at most (about 10 s of copydetect)


@dataclass
class Code:
    """One normalised code of an assignment: its copydetect fingerprint (``CodeFingerprint``), the
    students who handed it in (sorted) and how many different texts they handed in."""
    print: object
    students: list = field(default_factory=list)
    texts: int = 0


@dataclass
class Stats:
    """What one assignment's comparison did: ``students``; ``codes`` (distinct normalised codes with
    any fingerprint left once the course's code is out); ``compared`` (copydetect comparisons, a
    group's own included); ``candidates`` (pairs of distinct codes sharing a k-gram hash); ``left``
    (of those, not compared: beyond ``COMPARED``)."""
    students: int = 0
    codes: int = 0
    compared: int = 0
    candidates: int = 0
    left: int = 0

    def as_dict(self) -> dict:
        """The fields as a dict of ints (as ``near_copies.json`` writes them)."""
        return {"students": self.students, "codes": self.codes, "compared": self.compared,
                "candidates": self.candidates, "not compared": self.left}


def codes_of(joined: dict, fingerprint, originals: dict | None = None) -> list:
    """The distinct normalised codes of an assignment.

    Args:
        joined: ``{student: code text}`` (a student's regions joined, the course's lines out).
        fingerprint: ``text -> CodeFingerprint`` (the boilerplate already bound).
        originals: ``{student: what they handed in}`` (any hashable) when ``joined`` is a form of
            it in which different hand-ins may meet (``normalise``): ``texts`` counts these.
    Returns:
        list of ``Code``, in the order of their first student (sorted names); codes without any
        fingerprint hash (nothing beyond the course's code) are left out: they share nothing.
    """
    by_text: dict = {}
    for s in sorted(joined):
        by_text.setdefault(joined[s], []).append(s)
    by_norm: dict = {}  # digest of the normalised code -> Code
    for text, members in by_text.items():
        fp = fingerprint(text)
        if not len(fp.hashes):
            continue
        key = hashlib.sha256(fp.filtered_code.encode("utf-8", "surrogatepass")).digest()
        code = by_norm.setdefault(key, Code(fp))
        code.students += members  # the first text's fingerprint stands for the code
        code.texts += 1
    codes = list(by_norm.values())
    for c in codes:
        c.students.sort()
        if originals is not None:
            c.texts = len({originals[s] for s in c.students})
        c.print.raw_code = None  # not read by compare_files; the students' own text is kept elsewhere
    return sorted(codes, key=lambda c: c.students[0])


def candidates(codes: list, limit: int | None = None) -> tuple:
    """Pairs of codes that share at least one fingerprint hash.

    Args:
        codes: ``Code`` list (each with hashes).
        limit: keep at most this many pairs, those sharing the largest fraction of hashes (shared
            hashes / the larger code's hashes; ties: the lower indices first); None: ``COMPARED``.
    Returns:
        ``(pairs, total)``: ``pairs`` a list of ``(i, j)`` index pairs (i < j) in index order,
        ``total`` the number of pairs sharing a hash.
    """
    limit = COMPARED if limit is None else limit
    index: dict = {}
    for i, c in enumerate(codes):
        for h in c.print.hashes:
            index.setdefault(int(h), []).append(i)
    postings = {h: np.asarray(v, dtype=np.int64) for h, v in index.items() if len(v) > 1}
    del index
    sizes = np.array([len(c.print.hashes) for c in codes], dtype=np.float64)
    kept_i, kept_j, kept_f, total = [], [], [], 0
    pending = 0
    for i, c in enumerate(codes):
        lists = [p[p > i] for h in c.print.hashes if (p := postings.get(int(h))) is not None]
        if not lists:
            continue
        counts = np.bincount(np.concatenate(lists), minlength=len(codes))
        j = np.nonzero(counts)[0]
        total += len(j)
        kept_i.append(np.full(len(j), i, dtype=np.int64))
        kept_j.append(j)
        kept_f.append(counts[j] / np.maximum(sizes[i], sizes[j]))
        pending += len(j)
        if pending > 2 * max(limit, 1):
            kept_i, kept_j, kept_f = _best(kept_i, kept_j, kept_f, limit)
            pending = len(kept_i[0])
    if not kept_i:
        return [], 0
    ii, jj, _ = (x[0] for x in _best(kept_i, kept_j, kept_f, limit))
    order = np.lexsort((jj, ii))
    return [(int(ii[k]), int(jj[k])) for k in order], total


def _best(kept_i, kept_j, kept_f, limit):
    """The ``limit`` pairs of the largest fraction (ties: lower i, then lower j), as one-array lists."""
    ii, jj, ff = np.concatenate(kept_i), np.concatenate(kept_j), np.concatenate(kept_f)
    order = np.lexsort((jj, ii, -ff))[:limit]
    return [ii[order]], [jj[order]], [ff[order]]


def compare_codes(codes: list, shared, flagged, keep: int) -> tuple:
    """The near-copies among ``codes``.

    Args:
        codes: ``Code`` list (``codes_of``).
        shared: ``(print a, print b) -> (shared characters, share a, share b)`` (copydetect's
            ``compare_files`` through ``near_copies._shared``).
        flagged: ``(share a, share b, shared) -> bool``.
        keep: how many to keep, the most alike.
    Returns:
        ``(found, stats)``: ``found`` a list of ``(indices, shared, shares)``: ``indices`` ``(i,)``
        for a group (a code of two students or more) or ``(i, j)`` for two codes, ``shares`` the
        share of each (rounded to 3 places); the largest smaller share first, then groups before
        pairs, then by index; at most ``keep``. ``stats`` a ``Stats`` (``students`` left 0).
    """
    stats = Stats(codes=len(codes))
    found = []

    def add(indices, result):
        nonlocal found
        stats.compared += 1
        n, a, b = result
        if flagged(a, b, n):
            found.append((indices, n, (round(a, 3),) if len(indices) == 1 else (round(a, 3), round(b, 3))))
            if len(found) > 2 * keep:
                found = _most_alike(found, keep)

    for i, c in enumerate(codes):
        if len(c.students) > 1:
            add((i,), shared(c.print, c.print))
    pairs, stats.candidates = candidates(codes)
    stats.left = stats.candidates - len(pairs)
    for i, j in pairs:
        add((i, j), shared(codes[i].print, codes[j].print))
    return _most_alike(found, keep), stats


def _most_alike(found: list, keep: int) -> list:
    return sorted(found, key=lambda x: (-min(x[2]), len(x[0]), x[0]))[:keep]
