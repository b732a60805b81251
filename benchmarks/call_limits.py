"""Benchmark: how much CPU time does one call of each graded function need? Prints the table
behind ``limits.CALL_CPU_MEASURED``; asserts nothing.

    python benchmarks/call_limits.py [--exercises attention next_token ...] [--rounds 1]

For every exercise it grades, in the sandbox, (1) the reference notebook and (2) a notebook
in the slowest honest style we could write: pure-Python loops over lists for every function
below (``SLOW_STYLES``; converted back to numpy arrays only at the return, as a student
copying the maths by hand would), on the checks' own inputs, the largest hidden ones
included. The child reports the CPU time (``time.process_time``) each call used; this
prints, per function, the largest over all its calls and the factor to the limit
``Limits.call_cpu_seconds``.
"""
import argparse
import tempfile
import time
from pathlib import Path

import nbformat

from autograder.core.registry import EXERCISES
from autograder.demo.fill import filled_notebook
from autograder.grading.discover import discover
from autograder.grading.workers import grade_job
from autograder.sandbox.limits import Limits
from autograder.submission.remote import ChildSubmission

SECRET = b"call-limits"

_LOOP_HELPERS = '''
import math
import numpy as np

def _rows(A):
    A = np.asarray(A, dtype=float)
    return [[float(x) for x in row] for row in (A if A.ndim == 2 else A.reshape(1, -1))]

def _matmul(A, B):
    n, m, p = len(A), len(B), len(B[0])
    out = []
    for i in range(n):
        row = []
        for j in range(p):
            s = 0.0
            for k in range(m):
                s += A[i][k] * B[k][j]
            row.append(s)
        out.append(row)
    return out

def _transpose(A):
    return [[A[i][j] for i in range(len(A))] for j in range(len(A[0]))]

def _softmax_list(z):
    m = max(z)
    e = [math.exp(x - m) if x != -math.inf else 0.0 for x in z]
    s = 0.0
    for x in e:
        s += x
    return [x / s for x in e]
'''

# Pure-Python styles, one whole solution cell per function (exercise -> {function: source}).
SLOW_STYLES = {
    "attention": {
        "softmax": _LOOP_HELPERS + '''
def softmax(z, axis=-1):
    z = np.asarray(z, dtype=float)
    moved = np.moveaxis(z, axis, -1)
    flat = moved.reshape(-1, moved.shape[-1]) if moved.size else moved.reshape(0, 0)
    out = [_softmax_list([float(x) for x in row]) for row in flat]
    return np.moveaxis(np.array(out, dtype=float).reshape(moved.shape), -1, axis)
''',
        "project_qkv": '''
def project_qkv(X, W_Q, W_K, W_V):
    X = _rows(X)
    return tuple(np.array(_matmul(X, _rows(W)), dtype=float).reshape(len(X), -1) for W in (W_Q, W_K, W_V))
''',
        "attention_row": '''
def attention_row(q, K, V):
    q = [float(x) for x in np.asarray(q, dtype=float)]
    K, V = _rows(K), _rows(V)
    scores = []
    for k in K:
        s = 0.0
        for a, b in zip(q, k):
            s += a * b
        scores.append(s)
    weights = _softmax_list([s / math.sqrt(len(q)) for s in scores])
    context = [0.0] * len(V[0])
    for w, v in zip(weights, V):
        for j in range(len(v)):
            context[j] += w * v[j]
    return np.array(scores), np.array(weights), np.array(context)
''',
        "causal_mask": '''
def causal_mask(T):
    return np.array([[j <= i for j in range(T)] for i in range(T)], dtype=bool).reshape(T, T)
''',
        "attention_matrix": '''
def attention_matrix(Q, K, V, causal=False):
    Q, K, V = _rows(Q), _rows(K), _rows(V)
    scores = _matmul(Q, _transpose(K))
    d = len(Q[0])
    weights = []
    for i, row in enumerate(scores):
        scaled = [s / math.sqrt(d) if (not causal or j <= i) else -math.inf for j, s in enumerate(row)]
        weights.append(_softmax_list(scaled))
    return np.array(scores), np.array(weights), np.array(_matmul(weights, V)).reshape(len(Q), -1)
''',
    },
    "embeddings": {
        "cosine_similarity": '''
import math
import numpy as np

def cosine_similarity(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.ndim != 1 or b.ndim != 1 or a.shape != b.shape:
        raise ValueError("cosine_similarity needs two 1-D vectors of one size")
    a, b = [float(x) for x in a], [float(x) for x in b]
    dot = na = nb = 0.0
    for x, y in zip(a, b):
        dot += x * y
        na += x * x
        nb += y * y
    if na == 0.0 or nb == 0.0:
        return 0.0
    return max(-1.0, min(1.0, dot / (math.sqrt(na) * math.sqrt(nb))))
''',
        "cosine_similarity_matrix": '''
def cosine_similarity_matrix(A, B):
    A, B = np.asarray(A, dtype=float), np.asarray(B, dtype=float)
    if A.ndim != 2 or B.ndim != 2 or A.shape[1] != B.shape[1]:
        raise ValueError("cosine_similarity_matrix needs (n, d) and (m, d) arrays")
    return np.array([[cosine_similarity(r, s) for s in B] for r in A], dtype=float).reshape(len(A), len(B))
''',
    },
}

_LEARNED_HELPERS = """
import math
import numpy as np

def _L(A):
    return np.asarray(A, dtype=float).tolist()

def _vm(v, M):
    out = [0.0] * len(M[0])
    for i, vi in enumerate(v):
        row = M[i]
        for j in range(len(row)):
            out[j] += vi * row[j]
    return out

def _soft(s):
    m = max(s)
    e = [math.exp(v - m) for v in s]
    total = sum(e)
    return [v / total for v in e]
"""

SLOW_STYLES["learned_attention"] = {
    "model_forward": _LEARNED_HELPERS + """
def model_forward(params, ids, positions=True, equal_weights=False):
    p = {k: _L(v) for k, v in params.items()}
    ids = [int(i) for i in ids]
    D, T = len(p["E"][0]), len(ids)
    x = [list(p["E"][i]) for i in ids]
    if positions:
        for t in range(T):
            for c in range(D):
                angle = t / 10000.0 ** (2 * (c // 2) / D)
                x[t][c] += math.sin(angle) if c % 2 == 0 else math.cos(angle)
    q = _vm(x[-1], p["W_Q"])
    K = [_vm(r, p["W_K"]) for r in x]
    V = [_vm(r, p["W_V"]) for r in x]
    scores = [sum(a * b for a, b in zip(k, q)) for k in K]
    weights = [1.0 / T] * T if equal_weights else _soft([v / math.sqrt(len(q)) for v in scores])
    out = [sum(weights[t] * V[t][j] for t in range(T)) for j in range(len(V[0]))]
    h = [a + b for a, b in zip(x[-1], out)]
    z1 = [a + b for a, b in zip(_vm(h, p["W1"]), p["b1"])]
    a1 = [max(v, 0.0) for v in z1]
    logits = [a + b for a, b in zip(_vm(a1, p["W2"]), p["b2"])]
    A = np.array
    return {"x": A(x), "q": A(q), "K": A(K), "V": A(V), "scores": A(scores), "weights": A(weights),
            "out": A(out), "h": A(h), "z1": A(z1), "a1": A(a1), "logits": A(logits), "probs": A(_soft(logits))}
""",
    "attention_backward": _LEARNED_HELPERS + """
def attention_backward(read, W_Q, W_K, W_V, d_out):
    x, q, K, V, w = (_L(read[k]) for k in ("x", "q", "K", "V", "weights"))
    WQ, WK, WV, d_out = _L(W_Q), _L(W_K), _L(W_V), _L(d_out)
    T, dk, dv, dm = len(x), len(q), len(d_out), len(x[0])
    d_weights = [sum(V[t][j] * d_out[j] for j in range(dv)) for t in range(T)]
    d_V = [[w[t] * d_out[j] for j in range(dv)] for t in range(T)]
    mean = sum(w[t] * d_weights[t] for t in range(T))
    d_scores = [w[t] * (d_weights[t] - mean) / math.sqrt(dk) for t in range(T)]
    d_q = [sum(K[t][i] * d_scores[t] for t in range(T)) for i in range(dk)]
    d_K = [[d_scores[t] * q[i] for i in range(dk)] for t in range(T)]

    def times_transpose(v, M):
        return [sum(v[j] * M[i][j] for j in range(len(v))) for i in range(len(M))]

    def x_transpose_times(B):
        return [[sum(x[t][i] * B[t][j] for t in range(T)) for j in range(len(B[0]))] for i in range(dm)]
    d_x = [[a + b for a, b in zip(times_transpose(d_K[t], WK), times_transpose(d_V[t], WV))] for t in range(T)]
    d_x[-1] = [a + b for a, b in zip(d_x[-1], times_transpose(d_q, WQ))]
    A = np.array
    return {"weights": A(d_weights), "scores": A(d_scores), "q": A(d_q), "K": A(d_K), "V": A(d_V),
            "W_Q": A([[x[-1][i] * d_q[j] for j in range(dk)] for i in range(dm)]),
            "W_K": A(x_transpose_times(d_K)), "W_V": A(x_transpose_times(d_V)), "x": A(d_x)}
""",
}


def _record_cpu(store):
    """Wrap ``ChildSubmission._exchange`` to record each call's CPU seconds by function."""
    original = ChildSubmission._exchange

    def exchange(self, message, seconds):
        answer = original(self, message, seconds)
        name = message.get("name") or message.get("op")
        cpu = answer.get("cpu_seconds") if isinstance(answer, dict) else None
        if message.get("op") in ("init", "run_to"):
            name = "(notebook cells, one run)"
        if message.get("op") in ("call", "new", "method", "init", "run_to") and isinstance(cpu, float):
            store[name] = max(store.get(name, 0.0), cpu)
        return answer
    ChildSubmission._exchange = exchange
    return original


def measure(exercise, replacements, rounds):
    """``({function: largest CPU seconds of one call}, score, max_score)`` of ``exercise``
    handed in with ``replacements`` (``{}``: the reference)."""
    store = {}
    original = _record_cpu(store)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / "s" / exercise.assignment
            folder.mkdir(parents=True)
            nbformat.write(filled_notebook(exercise, replacements), folder / exercise.notebook)
            job, = discover(tmp)
            for _ in range(rounds):
                result, _ = grade_job(job, SECRET, Limits(call_cpu_seconds=60.0, call_seconds=120.0, confine=False,
                                                          notebook_seconds=600.0))
    finally:
        ChildSubmission._exchange = original
    return store, result.score, result.max_score


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exercises", nargs="+", default=list(EXERCISES))
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    limit = Limits().call_cpu_seconds
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; limit per call: {limit:g} CPU s")
    print(f"{'function':<28} {'reference':>10} {'slow style':>11} {'limit / slowest':>16}")
    for name in args.exercises:
        exercise = EXERCISES[name]
        ref, score, top = measure(exercise, {}, args.rounds)
        slow_code = SLOW_STYLES.get(name, {})
        slow, slow_score, _ = measure(exercise, slow_code, args.rounds) if slow_code else ({}, None, None)
        print(f"# {name}: reference {score:g}/{top:g}" +
              (f", slow style {slow_score:g}/{top:g}" if slow_code else ", no separate slow style"))
        for fn in sorted(set(ref) | set(slow)):
            worst = max(ref.get(fn, 0.0), slow.get(fn, 0.0))
            print(f"{fn:<28} {ref.get(fn, 0.0) * 1000:>8.1f}ms "
                  f"{(f'{slow[fn] * 1000:.1f}ms' if fn in slow else '-'):>11} {limit / max(worst, 1e-6):>15.0f}x")


if __name__ == "__main__":
    main()
