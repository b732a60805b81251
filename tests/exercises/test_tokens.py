"""The tokens exercise: reference and stubs graded end to end, worked values, offline tiktoken."""
import os
import subprocess
import sys

import pytest

from autograder.core.registry import EXERCISES, PROJECT_ROOT
from autograder.sandbox.tiktoken_cache import cache_dir, prefill

TOKENS = EXERCISES["tokens"]


# -- the reference reproduces every worked value (typed from the course text: the tokens worked values, docs/worked-examples.md
#    and 2, independently of the check file) ------------------------------------------------
@pytest.fixture(scope="module")
def ref():
    os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(cache_dir()))
    prefill([os.environ["TIKTOKEN_CACHE_DIR"]])
    from solutions import tokens
    return tokens


def test_worked_round_one_pair_counts(ref):
    vocab = {tuple(w) + ("</w>",): c for w, c in {"low": 5, "lower": 2, "newest": 6, "widest": 3}.items()}
    counts = ref.get_pair_counts(vocab)
    assert counts == {("e", "s"): 9, ("s", "t"): 9, ("t", "</w>"): 9, ("w", "e"): 8,
                      ("l", "o"): 7, ("o", "w"): 7, ("n", "e"): 6, ("e", "w"): 6,
                      ("w", "</w>"): 5, ("w", "i"): 3, ("i", "d"): 3, ("d", "e"): 3,
                      ("e", "r"): 2, ("r", "</w>"): 2}
    tied = [p for p in counts if counts[p] == 9]
    assert tied == [("e", "s"), ("s", "t"), ("t", "</w>")]  # met in this order in "newest"
    hug = ref.get_pair_counts({tuple(w): c for w, c in {"hug": 3, "pug": 2, "hugs": 1}.items()})
    assert hug == {("h", "u"): 4, ("u", "g"): 6, ("p", "u"): 2, ("g", "s"): 1}
    assert ref.get_pair_counts({("a", "a", "a", "a"): 1}) == {("a", "a"): 3}


def test_worked_merges_and_encodings(ref):
    assert ref.learn_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 3) == \
        [("e", "s"), ("es", "t"), ("est", "</w>")]
    assert ref.bpe_encode("lowest", [("e", "s"), ("es", "t"), ("est", "</w>")]) == ["l", "o", "w", "est</w>"]
    hug_merges = ref.learn_bpe({"hug": 3, "pug": 2, "hugs": 1}, 4, end_of_word=None)
    assert hug_merges == [("u", "g"), ("h", "ug"), ("p", "ug"), ("hug", "s")]
    assert ref.learn_bpe({"hug": 3, "pug": 2, "hugs": 1}, 40, end_of_word=None) == hug_merges
    assert ref.bpe_encode("pugs", hug_merges, end_of_word=None) == ["pug", "s"]
    assert ref.bpe_encode("xyzzy", hug_merges, end_of_word=None) == ["x", "y", "z", "z", "y"]
    assert ref.merge_pair(("a", "a", "a"), ("a", "a")) == ("aa", "a")
    assert ref.bpe_encode("abc", [("b", "c"), ("a", "b")]) == ["a", "bc", "</w>"]


def test_worked_tiktoken_pieces(ref):
    assert ref.tiktoken_pieces("strawberry") == ["str", "aw", "berry"]
    assert ref.tiktoken_pieces("Hello world") == ["Hello", " world"]
    assert ref.tiktoken_pieces("don't") == ["don", "'t"]
    assert ref.tiktoken_pieces("artificial intelligence") == ["art", "ificial", " intelligence"]
    assert len(ref.tiktoken_pieces("lowest")) == 1
    assert ref.tiktoken_pieces("Collegeville") == ["College", "ville"]
    assert ref.tiktoken_pieces("CS357") == ["CS", "357"]
    assert ref.tiktoken_pieces("internationalization") == ["international", "ization"]
    pieces = ref.tiktoken_pieces("naïve 🍓")
    assert "\ufffd" in "".join(pieces)  # the emoji is split over tokens that are not UTF-8 alone


# -- cl100k_base with the network unreachable -----------------------------------------------
NO_NETWORK = r'''
import socket

def refuse(*args, **kwargs):
    raise OSError("network unreachable (blocked by the test)")

socket.socket.connect = refuse
socket.socket.connect_ex = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse
try:
    socket.create_connection(("openaipublic.blob.core.windows.net", 443))
except OSError:
    pass
else:
    raise SystemExit("the network is still reachable")

import tiktoken
enc = tiktoken.get_encoding("cl100k_base")
assert [enc.decode([t]) for t in enc.encode("strawberry")] == ["str", "aw", "berry"]
text = "naïve 🍓"
assert b"".join(enc.decode_single_token_bytes(t) for t in enc.encode(text)) == text.encode()
from solutions.tokens import tiktoken_pieces
assert tiktoken_pieces("Hello world") == ["Hello", " world"]
print("offline ok")
'''


@pytest.mark.parametrize("where", ["grader", "student kernel"])
def test_cl100k_base_works_offline(tmp_path, where):
    """The grader passes TIKTOKEN_CACHE_DIR; a student's kernel uses tiktoken's default cache."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR")}
    env.update(TMPDIR=str(tmp_path), HOME=str(tmp_path), PYTHONPATH=str(PROJECT_ROOT))
    if where == "grader":
        prefill([cache_dir()])
        env["TIKTOKEN_CACHE_DIR"] = str(cache_dir())
    else:
        prefill([tmp_path / "data-gym-cache"])  # what `python -m autograder caches` fills
    run = subprocess.run([sys.executable, "-c", NO_NETWORK], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "offline ok" in run.stdout


# -- a learn_bpe that counts pairs without overlap loses a point for every student ------------
NON_OVERLAPPING_LEARN_BPE = '''
def learn_bpe(word_counts, num_merges, end_of_word="</w>"):
    tail = (end_of_word,) if end_of_word is not None else ()
    vocab = {tuple(w) + tail: c for w, c in word_counts.items()}
    merges = []
    while len(merges) < num_merges:
        counts = {}
        for symbols, count in vocab.items():
            i = 0
            while i < len(symbols) - 1:          # counts "a a" in "a a a a" twice, not three times
                pair = (symbols[i], symbols[i + 1])
                counts[pair] = counts.get(pair, 0) + count
                i += 2 if symbols[i] == symbols[i + 1] else 1
        if not counts:
            break
        best = max(counts, key=counts.get)
        merges.append(best)
        vocab = {merge_pair(s, best): c for s, c in vocab.items()}
    return merges
'''


@pytest.mark.slow
def test_counting_without_overlap_fails_the_fixed_case_for_every_student(ref):
    from autograder.checks.plugin import run_checks
    from autograder.submission.local import LocalSubmission
    ns = {"merge_pair": ref.merge_pair, "get_pair_counts": ref.get_pair_counts}
    exec(NON_OVERLAPPING_LEARN_BPE, ns)
    # Typed by hand: overlapping counts give a a: 3 > x y: 2, so (a, a) is merged first.
    assert ref.learn_bpe({"xy": 2, "aaaa": 1}, 3, None) == [("a", "a"), ("x", "y"), ("aa", "aa")]
    assert ns["learn_bpe"]({"xy": 2, "aaaa": 1}, 3, None) == [("x", "y"), ("a", "a"), ("aa", "aa")]
    for i in range(40):
        results = run_checks(TOKENS, LocalSubmission(ns), f"student{i:02d}", b"overlap", select="learn_bpe")
        fixed = [r for r in results if "overlapping pairs count" in r.name]
        assert len(fixed) == 1 and fixed[0].score == 0, f"student{i:02d}"
        assert "skip overlapping pairs when counting" in fixed[0].output
