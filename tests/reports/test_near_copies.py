"""Are planted near-copies found, honest independent work left alone, and nothing graded down?

Notebooks are the attention release with solution cells written in (``demo.fill.filled_notebook``):
two honest, independently written styles and a near-copy of the first (names changed, comments
added, blank lines moved). Compared by copydetect through ``reports/near_copies.py`` as a class run
does it (``grading/outputs.write_class_outputs``).
"""
import csv
import json

import nbformat

from autograder.core.registry import EXERCISES
from autograder.core.vocabulary import CheckResult, Job, NotebookResult
from autograder.demo.fill import filled_notebook
from autograder.grading.outputs import write_class_outputs, write_results
from autograder.reports import boilerplate, class_load, class_report, near_copies

EX = EXERCISES["attention"]
HONEST_A = {  # bodies replace the whole solution cell (filled_notebook), as a student's cell would read
    "softmax": "def softmax(z, axis=-1):\n    z = np.asarray(z, dtype=float)\n"
               "    shifted = z - np.max(z, axis=axis, keepdims=True)\n    exps = np.exp(shifted)\n"
               "    return exps / np.sum(exps, axis=axis, keepdims=True)\n",
    "attention_matrix": "def attention_matrix(Q, K, V, causal=False):\n"
                        "    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))\n"
                        "    scores = Q @ K.T\n    scaled = scores / np.sqrt(Q.shape[-1])\n    if causal:\n"
                        "        scaled = np.where(causal_mask(len(Q)), scaled, -np.inf)\n"
                        "    weights = softmax(scaled, axis=-1)\n    return scores, weights, weights @ V\n",
}
HONEST_B = {
    "softmax": "def softmax(z, axis=-1):\n    values = np.asarray(z, dtype=float)\n"
               "    largest = values.max(axis=axis, keepdims=True)\n    top = np.exp(values - largest)\n"
               "    return top / top.sum(axis=axis, keepdims=True)\n",
    "attention_matrix": "def attention_matrix(Q, K, V, causal=False):\n    n = len(Q)\n    raw = np.zeros((n, n))\n"
                        "    for i in range(n):\n        for j in range(n):\n"
                        "            raw[i, j] = np.dot(Q[i], K[j])\n    w = np.zeros((n, n))\n"
                        "    allowed = causal_mask(n)\n    for i in range(n):\n"
                        "        cols = [j for j in range(n) if allowed[i, j] or not causal]\n"
                        "        w[i, cols] = softmax(raw[i, cols] / math.sqrt(np.shape(Q)[1]))\n"
                        "    return raw, w, w @ np.asarray(V, dtype=float)\n",
}
COPY = {f: src.replace("shifted", "centred").replace("exps", "e_values").replace("scores", "s")
        .replace("weights", "attn").replace("scaled", "z").replace("\n    return", "\n\n    # done\n    return")
        for f, src in HONEST_A.items()}


def _class(tmp_path):
    hand_in = tmp_path / "submitted"
    jobs, results = [], []
    for student, code in (("ann", HONEST_A), ("bob", HONEST_B), ("cat", COPY)):
        path = hand_in / student / "attention.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(filled_notebook(EX, code), path)
        jobs.append(Job(path, student, EX))
        results.append(NotebookResult(student, "attention", "attention.ipynb",
                                      [CheckResult("softmax", "softmax: rows", 1.0, 1.0, "", frozenset())]))
    return jobs, results


def test_planted_copy_found_honest_styles_not_and_nothing_graded_down(tmp_path):
    jobs, results = _class(tmp_path)
    out = tmp_path / "graded"
    write_class_outputs(jobs, results, out, say=lambda *a: None)
    found = json.loads((out / near_copies.NOTE_FILE).read_text(encoding="utf-8"))["assignments"]["attention"]
    # names, comments and blank lines aside cat's code is ann's: one group of two texts, shown once
    assert [(p["students"], p["count"], p["texts"]) for p in found] == [([["ann", "cat"]], [2], [2])]
    assert found[0]["share"] == [1.0] and found[0]["shared"] >= near_copies.MIN_TOKENS
    assert "shifted" in found[0]["evidence"]["softmax"][0]   # the code as its first student handed it in
    page = (out / class_report.CLASS_HTML).read_text(encoding="utf-8")
    section = page.split("<h2 id='near-copies'>", 1)[1]
    assert "<td>2 students, the same code once what does nothing, names, order and layout are left out: ann, cat</td><td>attention</td>" \
        in section and "bob" not in section.split("near-mistakes")[0]
    assert "<td><pre>def softmax(z, axis=-1):" in section  # the group's code
    with open(out / "grades.csv", newline="", encoding="utf-8") as f:
        assert {r["student_id"]: r["total"] for r in csv.DictReader(f)} == {"ann": "1", "bob": "1", "cat": "1"}


def test_the_released_scaffold_is_not_evidence():
    # a release that gives code (a plotting helper kept by every student) above the part to write
    given = ("def softmax(z, axis=-1):\n    figure, axes = plt.subplots(1, 2, figsize=(8, 3))\n"
             "    for ax, title in zip(axes, ['scores', 'weights']):\n        ax.set_title(title)\n"
             "        ax.set_xlabel('token position')\n        ax.grid(True, alpha=0.3)\n"
             "    table = {name: index for index, name in enumerate(sorted(['a', 'b', 'c', 'd']))}\n"
             "    axes[0].set_xticks(range(len(table)), labels=list(table), rotation=45)\n"
             "    # YOUR CODE HERE\n")
    a = {"softmax": given + "    e = np.exp(z - z.max(axis, keepdims=True))\n    return e / e.sum(axis, keepdims=True)\n"}
    b = {"softmax": given + "    top = np.max(z, axis=axis, keepdims=True)\n    out = []\n    for row in z:\n"
                            "        out.append(row)\n    return np.array(out)\n"}
    assert near_copies.code_pairs({"a": a, "b": b}, ["softmax"]) != []   # the given code alone looks copied
    assert near_copies.code_pairs({"a": a, "b": b}, ["softmax"], {"softmax": given}) == []


def test_a_rare_combination_of_named_mistakes(tmp_path):
    def result(student, mistakes):
        checks = [CheckResult(f, f"{f}: case", 0.0 if m else 1.0, 1.0, "wrong" if m else "", frozenset(),
                              details={"what": "w", "expected": 1, "got": 2, "mistakes": [m]} if m else None)
                  for f, m in mistakes]
        return NotebookResult(student, "attention", "attention.ipynb", checks)
    rare1, rare2, common = "mask the diagonal too", "divide the scores by d_k instead of sqrt(d_k)", "forget x"
    out = tmp_path / "graded"
    for r in (result("s1", [("causal_mask", rare1), ("attention_row", rare2), ("softmax", common)]),
              result("s2", [("causal_mask", rare1), ("attention_row", rare2), ("softmax", common)]),
              result("s3", [("causal_mask", ""), ("attention_row", ""), ("softmax", common)]),
              result("s4", [("causal_mask", rare1), ("attention_row", ""), ("softmax", common)])):
        write_results(r, out)
    entries, _ = class_load.load(out)
    # rare1 is made by 3 students (s1, s2, s4): not rare; rare2 by 2; so s1 & s2 share one rare mistake only
    assert near_copies.mistake_pairs(entries) == []
    entries = [e for e in entries if e.student != "s4"]  # now rare1 is made by s1 and s2 alone
    assert near_copies.mistake_pairs(entries) == [
        ("s1", "s2", [("attention", "attention_row", rare2, 2), ("attention", "causal_mask", rare1, 2)])]


def test_the_courses_worked_examples_are_not_evidence():
    """Two students who paste the notebook's worked-example code (the inputs of "the cat" and
    "river bank loan", the calls that print them) above their own, different code."""
    release = nbformat.read(EX.release_notebook, as_version=4)
    shown = [c.source for c in release.cells if c.cell_type == "code"
             and not c.metadata.get("nbgrader", {}).get("solution")
             and any(word in c.source for word in ("X_the_cat =", "Q_rbl =", "attention_matrix(Q_rbl"))]
    assert len(shown) >= 3
    pasted = "\n".join(shown) + "\n"
    a = {"softmax": pasted + "def softmax(z, axis=-1):\n    e = np.exp(z - z.max(axis, keepdims=True))\n"
                             "    return e / e.sum(axis, keepdims=True)\n"}
    b = {"softmax": pasted + "def softmax(z, axis=-1):\n    top = np.max(z, axis=axis, keepdims=True)\n"
                             "    out = []\n    for row in np.exp(z - top):\n        out.append(row / row.sum())\n"
                             "    return np.array(out)\n"}
    released = boilerplate.regions(release, EX.functions)
    course = boilerplate.course_code(EX, release)
    assert "RBL_OUTPUT" in course   # exercises/attention/worked.py, the course text's figures
    assert near_copies.code_pairs({"a": a, "b": b}, ["softmax"], released) != []  # the pasted code alone
    assert near_copies.code_pairs({"a": a, "b": b}, ["softmax"], released, course) == []
    # a real near-copy (COPY of HONEST_A) is still found with the worked examples subtracted
    both = ["softmax", "attention_matrix"]
    hand_ins = {s: {f: pasted + code[f] for f in both} for s, code in (("a", HONEST_A), ("b", HONEST_B),
                                                                        ("c", COPY))}
    assert [p["students"] for p in near_copies.code_pairs(hand_ins, both, released, course)] == [[["a", "c"]]]


def test_a_class_handing_in_the_same_code_is_one_group_and_only_the_most_alike_items_are_kept(monkeypatch):
    # 12 students, one code: one item naming the 12 (66 pairs of students before: the file grew
    # with the square of the class)
    code = "\n".join(f"def f{i}(x):\n    y = x * {i} + {i * i}\n    return sorted(set(y)) if y else [x, {i}]"
                     for i in range(8))
    solutions = {f"s{n:02d}": {"f": code} for n in range(12)}
    items = near_copies.code_pairs(solutions, ["f"])
    assert [(p["students"], p["count"], p["share"]) for p in items] == [([sorted(solutions)], [12], [1.0])]
    # 7 students, each a code of their own a small edit away (a constant in one line): 21 pairs of codes
    edited = {f"t{n}": {"f": code.replace("* 3 + 9", f"* 3 + {100 + n}")} for n in range(7)}
    every = near_copies.code_pairs(edited, ["f"])
    assert len(every) == 21 and all(len(p["students"]) == 2 for p in every)
    monkeypatch.setattr(near_copies, "KEPT", 5)
    kept = near_copies.code_pairs(edited, ["f"])
    assert kept == every[:5] and min(kept[-1]["share"]) >= max(min(p["share"]) for p in every[5:])
