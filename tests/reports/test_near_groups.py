"""Near-copies by code (``reports/near_groups.py``): students handing in the same code are one group,
listed once, and each pair of distinct codes is compared once; the result is what comparing every
pair of students with copydetect gives.

Notebooks are the attention release with solution cells written in (``demo.fill.filled_notebook``),
compared as a class run compares them (``near_copies.find``), or solution regions given directly.
"""
import io
import json
from itertools import combinations

import copydetect
import nbformat

from autograder.core.registry import EXERCISES
from autograder.core.vocabulary import Job, NotebookResult
from autograder.demo.fill import filled_notebook
from autograder.reports import boilerplate, class_sections, near_copies, near_groups
from autograder.reports.normalise import normalise

EX = EXERCISES["attention"]
SOFTMAX = ("def softmax(z, axis=-1):\n    z = np.asarray(z, dtype=float)\n"
           "    shifted = z - np.max(z, axis=axis, keepdims=True)\n    exps = np.exp(shifted)\n"
           "    return exps / np.sum(exps, axis=axis, keepdims=True)\n")
ROW = ("def attention_row(q, K, V):\n    q, K, V = (np.asarray(a, dtype=float) for a in (q, K, V))\n"
       "    scores = K @ q / np.sqrt(len(q))\n    weights = softmax(scores)\n    return scores, weights, weights @ V\n")
NEAR_1 = SOFTMAX.replace("return exps / np.sum(exps, axis=axis, keepdims=True)",  # the sum named first
                         "total = np.sum(exps, axis=axis, keepdims=True)\n    return exps / total")
NEAR_2 = ROW.replace("weights @ V", "np.dot(weights, V)")
OWN = ("def softmax(z, axis=-1):\n    out = []\n    for row in np.atleast_2d(z):\n        m = max(row)\n"
       "        e = [math.exp(v - m) for v in row]\n        out.append([v / sum(e) for v in e])\n    return np.array(out)\n")


def _counting(monkeypatch):
    """Count copydetect's comparisons: a list of ``(filtered code a, filtered code b)`` per call."""
    calls, real = [], copydetect.compare_files

    def compare_files(a, b):
        calls.append((a.filtered_code, b.filtered_code))
        return real(a, b)
    monkeypatch.setattr(copydetect, "compare_files", compare_files)
    return calls


def _hand_in(tmp_path, hand_ins):
    jobs, results = [], []
    for student, code in hand_ins.items():
        path = tmp_path / "submitted" / student / EX.notebook
        path.parent.mkdir(parents=True)
        nbformat.write(filled_notebook(EX, code), path)
        jobs.append(Job(path, student, EX))
        results.append(NotebookResult(student, EX.assignment, EX.notebook, []))
    return jobs, results


def test_five_students_handing_in_the_same_code_are_listed_once_with_the_near_copies(tmp_path, monkeypatch):
    same = {"softmax": SOFTMAX, "attention_row": ROW}
    hand_ins = {f"s{n}": same for n in range(1, 6)}
    hand_ins |= {"near1": {"softmax": NEAR_1, "attention_row": ROW}, "near2": {"softmax": SOFTMAX, "attention_row": NEAR_2}}
    calls = _counting(monkeypatch)
    path = near_copies.find(*_hand_in(tmp_path, hand_ins), tmp_path)
    data = json.loads(path.read_text(encoding="utf-8"))
    items = data["assignments"][EX.assignment]
    groups = [i for i in items if len(i["students"]) == 1]
    assert [(g["students"], g["count"], g["share"]) for g in groups] == [([["s1", "s2", "s3", "s4", "s5"]], [5], [1.0])]
    five = ["s1", "s2", "s3", "s4", "s5"]
    pairs = {frozenset(tuple(x) for x in i["students"]) for i in items if len(i["students"]) == 2}
    assert {frozenset([tuple(five), ("near1",)]), frozenset([tuple(five), ("near2",)])} <= pairs  # group and copy
    for i in items:
        if len(i["students"]) == 2:
            assert i["count"] == [len(x) for x in i["students"]] and min(i["share"]) >= near_copies.SHARE
            assert set(i["evidence"]) >= {"softmax"} and all(len(v) == 2 for v in i["evidence"].values())
    # no item lists two students of the group against each other
    assert all(not (len(i["students"]) == 2 and set(i["students"][0]) & set(i["students"][1])) for i in items)
    # three codes: the group's code compared with itself once, each pair of codes once (7 students: 21 pairs)
    assert len(calls) == 1 + 3
    assert len({frozenset(c) for c in calls}) == 4
    assert data["compared"][EX.assignment] == {"students": 7, "codes": 3, "compared": 4, "candidates": 3,
                                               "not compared": 0}


def _all_pairs(hand_ins, functions):
    """The near-copies of every pair of students, with copydetect directly: ``{(a, b): (shared,
    share a, share b)}`` of the pairs that pass the thresholds (no boilerplate), each student's code in
    its canonical form (``normalise``) as the comparison reads it."""
    prints = {s: copydetect.CodeFingerprint("s.py", 25, 6, fp=io.StringIO(normalise(code, functions)))
              for s, code in hand_ins.items()}
    found = {}
    for a, b in combinations(sorted(hand_ins), 2):
        if not prints[a].hashes or not prints[b].hashes:
            continue
        shared, (sa, sb), _ = copydetect.compare_files(prints[a], prints[b])
        if shared >= near_copies.MIN_TOKENS and min(sa, sb) >= near_copies.SHARE:
            found[(a, b)] = (int(shared), round(float(sa), 3), round(float(sb), 3))
    return found


def _expanded(items):
    """The pairs of students an item list stands for, as ``_all_pairs`` gives them."""
    pairs = {}
    for i in items:
        if len(i["students"]) == 1:
            for a, b in combinations(i["students"][0], 2):
                pairs[(a, b)] = (i["shared"], i["share"][0], i["share"][0])
        else:
            for a in i["students"][0]:
                for b in i["students"][1]:
                    key, share = ((a, b), i["share"]) if a < b else ((b, a), i["share"][::-1])
                    pairs[key] = (i["shared"], *share)
    return pairs


def test_the_groups_and_pairs_stand_for_what_comparing_every_pair_of_students_gives(monkeypatch):
    renamed = {f: src.replace("exps", "e_z").replace("scores", "s") for f, src in
               {"softmax": SOFTMAX, "attention_row": ROW}.items()}
    hand_ins = {"a1": {"softmax": SOFTMAX, "attention_row": ROW}, "a2": {"softmax": SOFTMAX, "attention_row": ROW},
                "a3": {"softmax": SOFTMAX, "attention_row": ROW}, "r1": renamed, "r2": renamed,
                "n1": {"softmax": NEAR_1, "attention_row": ROW}, "n2": {"softmax": SOFTMAX, "attention_row": NEAR_2},
                "n3": {"softmax": NEAR_1, "attention_row": NEAR_2}, "o1": {"softmax": OWN}, "o2": {"softmax": OWN},
                "e": {}, "z": {"softmax": "def softmax(z):\n    return z\n"}}
    functions = ["softmax", "attention_row"]
    expected = _all_pairs(hand_ins, functions)
    assert len(expected) > 20  # the class holds near-copies of both kinds
    calls = _counting(monkeypatch)
    items = near_copies.code_pairs(hand_ins, functions)
    assert _expanded(items) == expected
    # codes: a (a1-a3 and the renamed r1, r2: names do not count), n1, n2, n3, o (o1, o2); z is too
    # short for a fingerprint and e empty. So the two groups once each and at most the 10 pairs of five
    # codes (every pair of the 10 students with code: 45)
    assert len({frozenset(c) for c in calls}) == len(calls)  # no pair of codes compared twice
    assert 2 + 6 <= len(calls) <= 2 + 10  # a, n1, n2, n3 share most of their code: their 6 pairs at least


def test_many_codes_sharing_fingerprints_are_compared_up_to_the_bound_and_the_rest_counted(monkeypatch):
    base = "\n".join(f"def f{i}(x):\n    y = x * {i} + {i * i}\n    return sorted(set(y)) if y else [x, {i}]"
                     for i in range(8))
    hand_ins = {f"t{n}": {"f": base.replace("* 3 + 9", f"* 3 + {100 + n}")} for n in range(6)}
    everything = near_copies._found(hand_ins, ["f"])[1]
    assert len(everything) == 15  # 6 codes, every pair alike
    monkeypatch.setattr(near_groups, "COMPARED", 4)
    calls = _counting(monkeypatch)
    codes, found, stats = near_copies._found(hand_ins, ["f"])
    assert len(calls) == 4 and (stats.candidates, stats.left, stats.compared) == (15, 11, 4)
    assert len(found) == 4 and all(x in everything for x in found)
    # the pairs compared are those sharing the largest fraction of hashes (copydetect's fingerprints)
    hashes = {copydetect.CodeFingerprint("s.py", 25, 6, fp=io.StringIO(c["f"])).filtered_code:
              copydetect.CodeFingerprint("s.py", 25, 6, fp=io.StringIO(c["f"])).hashes for c in hand_ins.values()}
    fraction = {frozenset((a, b)): len(hashes[a] & hashes[b]) / max(len(hashes[a]), len(hashes[b]))
                for a, b in combinations(hashes, 2)}
    compared = {frozenset(c) for c in calls}
    assert min(fraction[p] for p in compared) >= max(fraction[p] for p in fraction if p not in compared)
    # the page says how many pairs of codes were not compared
    top = near_copies.Top(near_copies.code_pairs(hand_ins, ["f"]))
    top.total, top.compared = len(top), stats.as_dict()
    page = class_sections.near_copies_html({EX.assignment: top}, [])
    assert "11 pairs of codes that share some fingerprints were not compared" in page


def test_a_large_group_is_named_in_part_on_the_page_with_a_count_of_the_rest():
    code = {"softmax": SOFTMAX, "attention_row": ROW}
    hand_ins = {f"s{n:04d}": code for n in range(1429)} | {"solo": {"softmax": NEAR_1, "attention_row": ROW}}
    items = near_copies.code_pairs(hand_ins, ["softmax", "attention_row"])
    assert [(len(i["students"][0]), i["count"]) for i in items] == [(1429, [1429]), (near_copies.MEMBERS, [1429, 1])]
    assert items[1]["students"][1] == ["solo"]
    page = class_sections.near_copies_html({EX.assignment: items}, [])
    shown = class_sections.NEAR_NAMES_SHOWN
    assert "1429 students, the same code: s0000, s0001" in page and f"and {1429 - shown} more</td>" in page
    assert f"s{shown:04d}" not in page  # the ninth student is in the count, not named
    assert f"and {1429 - shown} more (1429 with the same code) &amp; solo</td>" in page


def test_regions_take_the_grade_id_cell_else_the_first_def_and_an_unreadable_notebook_is_left_out(tmp_path):
    nb = filled_notebook(EX, {"softmax": SOFTMAX})
    nb.cells.insert(0, nbformat.v4.new_code_cell("def softmax(z):\n    return 'a demonstration'\n"))
    assert boilerplate.regions(nb, EX.functions)["softmax"] == SOFTMAX  # the solution cell, not the earlier def
    for cell in nb.cells:
        cell.metadata.pop("nbgrader", None)
    found = boilerplate.regions(nb, EX.functions)
    assert found["softmax"] == "def softmax(z):\n    return 'a demonstration'"  # no grade_id: the first def
    assert set(found) == set(EX.functions)
    jobs, results = _hand_in(tmp_path, {"ann": {"softmax": SOFTMAX}, "bob": {"softmax": SOFTMAX}, "eve": {}})
    jobs[2].path.write_text("{not a notebook", encoding="utf-8")
    data = json.loads(near_copies.find(jobs, results, tmp_path).read_text(encoding="utf-8"))
    assert data["compared"][EX.assignment]["students"] == 2
    assert [i["students"] for i in data["assignments"][EX.assignment]] == [[["ann", "bob"]]]
