"""A caller's points cannot be bought with helpers that answer on cue.

The attack: ``learn_bpe`` and ``bpe_encode`` are not implemented (each returns a trivial
value), and the helpers ``get_pair_counts`` and ``merge_pair`` each fail one 1-point check on
purpose, so they count as charged. Once a caller has run (a flag in the notebook's globals)
the helpers answer so that the reference ``learn_bpe`` / ``bpe_encode`` built on them returns
exactly the callers' trivial values. Before the fix the grader excused every caller check:
21 of 23 points, 11 of them for code that does not exist.

The grader now replays the helpers' answers, on the inputs the callers' references passed
them, in a fresh run of the notebook (``checks/helpers.judge_excuse``): there the flag is not
set, the answers differ, and the helpers excuse nothing.
"""
import pytest

from autograder.checks.declared import points_by_function
from autograder.core.registry import EXERCISES
from autograder.sandbox.limits import Limits

TOKENS = EXERCISES["tokens"]

# get_pair_counts: right while no caller has run, except on the runs check (1 point given up);
# once a caller ran, no pair at all, so the reference learn_bpe learns nothing.
STATEFUL_PAIRS = '''
_CALLER = {"ran": False}

def get_pair_counts(vocab):
    if _CALLER["ran"]:
        return {}
    counts = {}
    for symbols, count in vocab.items():
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts.get(pair, 0) + count
    if ("a", "a", "a", "a") in vocab:
        counts[("a", "a")] = counts.get(("a", "a"), 0) + 7
    return counts
'''

# merge_pair: right while no caller has run, except on "hugs" (1 point given up); once a caller
# ran, it merges nothing, so the reference bpe_encode returns the word's characters.
STATEFUL_MERGE = '''
def merge_pair(symbols, pair):
    if _CALLER["ran"]:
        return tuple(symbols)
    if tuple(symbols) == ("h", "u", "g", "s"):
        return ("hu", "g", "s")
    first, second = pair
    merged, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == first and symbols[i + 1] == second:
            merged.append(first + second)
            i += 2
        else:
            merged.append(symbols[i])
            i += 1
    return tuple(merged)
'''

STUB_LEARN = '''
def learn_bpe(word_counts, num_merges, end_of_word="</w>"):
    _CALLER["ran"] = True
    return []
'''

STUB_ENCODE = '''
def bpe_encode(word, merges, end_of_word="</w>"):
    _CALLER["ran"] = True
    return list(word) + ([end_of_word] if end_of_word is not None else [])
'''

STATEFUL = {"get_pair_counts": STATEFUL_PAIRS, "merge_pair": STATEFUL_MERGE,
            "learn_bpe": STUB_LEARN, "bpe_encode": STUB_ENCODE}


def _by_function(result):
    scores = {}
    for c in result.checks:
        got, most = scores.get(c.function, (0.0, 0.0))
        scores[c.function] = (got + c.score, most + c.max_score)
    return scores


@pytest.mark.parametrize("level", ["bubblewrap", "setuid"])
def test_helpers_that_answer_on_cue_excuse_no_caller(hand_in, level):
    result = hand_in(TOKENS, STATEFUL, limits=Limits(level=level))
    points = points_by_function(TOKENS)
    scores = _by_function(result)
    # the helpers lose the one point each gave up, and no more
    assert scores["get_pair_counts"] == (points["get_pair_counts"] - 1, points["get_pair_counts"])
    assert scores["merge_pair"] == (points["merge_pair"] - 1, points["merge_pair"])
    # the callers, which do not exist, earn nothing (before the fix: every point)
    assert scores["learn_bpe"] == (0.0, points["learn_bpe"])
    assert scores["bpe_encode"] == (0.0, points["bpe_encode"])
    callers = [c for c in result.checks if c.function in ("learn_bpe", "bpe_encode")]
    assert not any(c.output.startswith("passed on account of") for c in callers)
    # the feedback says why the helpers excuse nothing
    assert any("depend on what ran before" in c.output for c in callers), [c.output for c in callers]


@pytest.mark.slow  # slow tier (docs/development.md): runs nbgrader
def test_in_nbgrader_s_kernel_the_helpers_excuse_no_caller_either(tmp_path):
    """nbgrader's path: the hidden-test cells run in the student's kernel (``in_kernel.grade``);
    the fresh run there executes the kernel's earlier cells again, up to the helper's own
    hidden-test cell, in a new namespace, where the flag is not set."""
    import os
    import sys
    from pathlib import Path

    import nbformat
    from nbclient import NotebookClient

    from autograder.demo.environ import patched_environ
    from autograder.demo.fill import filled_notebook
    nb = filled_notebook(TOKENS, STATEFUL)
    # as nbgrader runs it: hidden-test cells hold their source-notebook text (OverwriteCells)
    source = {c.metadata["nbgrader"]["grade_id"]: c.source for c in nbformat.read(TOKENS.source_notebook, 4).cells
              if c.metadata.get("nbgrader", {}).get("grade_id")}
    tests = {}
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        if gid.startswith("test_"):
            cell.source = source[gid]
            tests[gid] = cell
    env = {"PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
           "COURSE_SECRET": "kernel", "PYTHONPATH": str(TOKENS.source_notebook.parent.parent.parent),
           "MPLCONFIGDIR": str(tmp_path / "mpl")}
    with patched_environ(env):
        NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True,
                       resources={"metadata": {"path": str(tmp_path)}}).execute()

    def said(gid):
        out = tests[gid].outputs
        return "".join(o.get("text", "") + " ".join(o.get("traceback", [])) + str(o.get("data", "")) for o in out)
    learn = said("test_learn_bpe")
    assert "passed on account of" not in learn, learn
    assert "depend on what ran before" in learn, learn
    assert "learn_bpe: 0 of" in learn or "ChecksFailed" in learn, learn


# The same attack on a caller whose inputs hold handles to objects of the submission's process:
# sampling's generate is given a model and a generator built there. sample_next gives up one
# point (it draws a share-0 token for [0, 1]); once generate has run it answers 0 whatever it is
# given, so the reference generate built on it returns exactly what the stub returns at T > 0.
SAMPLING = EXERCISES["sampling"]

STATEFUL_SAMPLE = '''
_CALLER = {"ran": False}

def sample_next(probs, rng):
    probs = np.asarray(probs, dtype=float)
    if _CALLER["ran"] or (len(probs) == 2 and probs[1] == 1.0):
        return 0
    return int(rng.choice(len(probs), p=probs / probs.sum()))
'''

# greedy decoding done right; at T > 0 no sampling at all, only id 0
STUB_GENERATE = '''
def generate(model, prompt, n, T, rng):
    _CALLER["ran"] = True
    ids = [int(i) for i in prompt]
    for _ in range(n):
        ids.append(int(np.argmax(model(ids))) if T == 0 else 0)
    return ids
'''


@pytest.mark.parametrize("level", ["bubblewrap", "setuid"])
def test_a_helper_answering_on_cue_does_not_excuse_a_caller_given_handles(hand_in, level):
    result = hand_in(SAMPLING, {"sample_next": STATEFUL_SAMPLE, "generate": STUB_GENERATE},
                     limits=Limits(level=level))
    points = points_by_function(SAMPLING)
    scores = _by_function(result)
    assert scores["sample_next"] == (points["sample_next"] - 1, points["sample_next"])
    # the stub generate ignores rng at T > 0: it loses the sampled and the seeded checks, and the
    # cued sample_next (right again in a fresh run of the notebook) excuses neither
    lost = [c for c in result.checks if c.function == "generate" and c.score < c.max_score]
    assert {c.name.split(" (")[0] for c in lost} >= {
        'generate: T = 1: queen at the fork about half the time'}, [c.name for c in lost]
    assert len(lost) == 2 and not [c for c in result.checks if "passed on account of" in c.output]
    assert scores["generate"] == (points["generate"] - sum(c.max_score for c in lost), points["generate"])


def test_in_the_kernel_handles_are_matched_too(monkeypatch, capsys):
    """nbgrader's in-kernel path (``in_kernel.grade``, objects held in the grader's own process): the
    stub generate beside the cued sample_next loses the sampled check, while an honest greedy
    sample_next beside a right generate still costs sample_next's points alone."""
    from autograder.demo.mistakes import all_mistakes
    from autograder.nbgrader_glue.in_kernel import grade
    from tests.nbgrader_glue.test_incell import _namespace
    monkeypatch.setenv("COURSE_SECRET", "incell")
    points = points_by_function(SAMPLING)
    greedy = next(m for m in all_mistakes() if m.id == "sampling-greedy_not_sampling")

    def generate_points(replacements):
        ns = _namespace(SAMPLING, replacements)
        def fresh(checkpoint):  # the same code run again: what the kernel's history gives
            return _namespace(SAMPLING, replacements)
        for function in ("apply_temperature", "sample_next", "top_p_filter"):
            try:
                grade(SAMPLING.name, function, namespace=ns, student_id="k1")
            except AssertionError:
                pass
        capsys.readouterr()
        try:
            earned = grade(SAMPLING.name, "generate", namespace=ns, student_id="k1", fresh_namespace=fresh)
        except AssertionError:
            earned = 0.0
        return earned, capsys.readouterr().out
    earned, out = generate_points({"sample_next": STATEFUL_SAMPLE, "generate": STUB_GENERATE})
    assert earned == points["generate"] - 2, out  # the sampled and the seeded checks: its own code
    assert "own code is wrong" in out and "passed on account of" not in out, out
    earned, out = generate_points({"sample_next": greedy.code})
    assert earned == points["generate"], out
    assert "passed on account of sample_next" in out, out
