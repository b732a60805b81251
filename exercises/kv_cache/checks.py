"""Hidden checks of the "kv_cache" exercise: generation with a KV cache.

Worked values are the course text's (``worked.py`` and the attention exercise's list where
they come from): "the cat" (inputs, weights, keys, values, the context of "cat") and the
section on generating text (decoding through the cache; the cache's size for 12 layers of
width 768). The fixed cases that are calls on fixed inputs are declared once in ``cases.py``
(the line below makes its graded ones hidden checks); here are the randomized checks, compared
with the reference solution (solutions/kv_cache.py), and the fixed checks of KVCache and
decode_step, which work on objects built in the student's process and so cannot be declared
cases (each says why). Each known mistake is a small wrong variant of ``wrong.py``, so the
feedback can name it when a student's value matches.

decode_step's checks decode into the grader's cache of the contract (``probes.ContractCache``),
not the student's KVCache: a KVCache bug is charged to KVCache's checks alone.

Efficiency is checked by count, not by clock, in the same calls whose outputs are checked:
every decode_step check hands it the weights as real arrays whose products with token rows are
counted by the grader (``autograder/submission/counted.py``; reading the values out costs nothing),
and the counted check decodes its steps into ONE cache the student's code fills itself: the
first steps as in any other check, then with a row of the grader's appended (through
``append``) before each step, so only a step that reads the cache gives the right context.
"""
import numpy as np

from autograder.authoring import check, expect_close, expect_equal, fail, hidden_checks
from solutions import kv_cache as ref

from .cases import ALIASED_KEYS, ALIASED_VALUES, CASES, REUSED_KEYS, REUSED_VALUES
from .worked import CONTEXT_CAT, CONTEXT_THE, K_CAT, K_THE, V_CAT, V_THE, W_K, W_Q, W_V, X_THE_CAT
from .wrong import (
    ALIAS,
    ROWS_AS_COLUMNS,
    SEEN_RECOMPUTED,
    _attend,
    _attention_mistakes,
    _decode_mistakes,
    _size_mistakes,
)

globals().update(hidden_checks(CASES))  # the graded fixed cases of cases.py, first (declared.py's order)


# -- helpers ----------------------------------------------------------------------------------------
def _rows(cache, name):
    """``cache.keys`` or ``cache.values``, or a failure saying why it is not an array."""
    value = getattr(cache, name)
    if callable(value):
        fail(f"KVCache.{name} should be an array you read without parentheses (an attribute, or a "
             "method marked @property), not a plain method")
    return value


def _expect_cache(cache, keys, values, what):
    expect_equal(len(cache), len(keys), what=f"len(cache) {what}")
    expect_close(_rows(cache, "keys"), keys, atol=1e-9, what=f"cache.keys {what}",
                 mistakes={ROWS_AS_COLUMNS: np.transpose(keys)})
    expect_close(_rows(cache, "values"), values, atol=1e-9, what=f"cache.values {what}",
                 mistakes={ROWS_AS_COLUMNS: np.transpose(values)})


def _random_weights(rng, d_model, d_k, d_v):
    return rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_v))


def _random_sequence(rng, max_T=16):
    T = int(rng.integers(2, max_T + 1))
    d_model, d_k, d_v = (int(n) for n in rng.integers(1, 9, size=3))
    return rng.normal(size=(T, d_model)), _random_weights(rng, d_model, d_k, d_v)


# -- KVCache ---------------------------------------------------------------------------------------------
@check("KVCache", "starts empty; append adds one key row and one value row", points=1)
def check_cache_append(KVCache, rng):
    cache = KVCache()
    expect_equal(len(cache), 0, what="len(KVCache()) of a new cache")
    d_k, d_v = 3, 2
    keys, values = rng.normal(size=(4, d_k)), rng.normal(size=(4, d_v))
    for t in range(len(keys)):
        cache.append(keys[t], values[t])
        expect_equal(len(cache), t + 1, what=f"len(cache) after {t + 1} appends")
    _expect_cache(cache, keys, values, "after 4 appends (key rows of length 3, value rows of length 2)")


@check("KVCache", "stored rows stay put when the caller reuses its arrays", points=1)
def check_cache_copies(KVCache, submission):
    """A fixed check that cannot be a declared case: the caller's buffers must live in the
    student's process (``submission.probe``) for a kept reference to show; the notebook's case
    (``cases.py``) writes into its own arrays."""
    k = submission.probe("mutable_array", [1.0, 2.0, 3.0])
    v = submission.probe("mutable_array", [4.0, 5.0])
    cache = KVCache()
    cache.append(k, v)
    k.fill(-1.0)   # the caller writes the next token's rows into the same buffers
    v.fill(-2.0)
    cache.append(k, v)
    what = "after append(k, v), then writing new numbers into the same k and v arrays and appending them again"
    expect_close(_rows(cache, "keys"), REUSED_KEYS, atol=1e-12, what=f"cache.keys {what}",
                 mistakes={ALIAS: ALIASED_KEYS, ROWS_AS_COLUMNS: np.transpose(REUSED_KEYS)})
    expect_close(_rows(cache, "values"), REUSED_VALUES, atol=1e-12, what=f"cache.values {what}",
                 mistakes={ALIAS: ALIASED_VALUES, ROWS_AS_COLUMNS: np.transpose(REUSED_VALUES)})


# -- decode_step --------------------------------------------------------------------------------------------
def _cache(submission):
    """An empty cache of the contract, built where the student's code runs (``probes.ContractCache``).
    decode_step's checks decode into it, not into the student's own KVCache: a KVCache bug is
    charged to KVCache's checks only."""
    return submission.probe("kv_cache")


def _counted(submission, Ws):
    """The weights as matrices whose products the grader counts. Every decode_step check passes
    these (only check_decode_counts judges the count), so the weights' type does not tell a
    judged step from another."""
    return [submission.counted_weights(W) for W in Ws]


def _step(decode_step, x, cache, counters):
    for counter in counters:
        counter.new_step()
    return decode_step(x, cache, *counters)


def _expect_counts(counters, n):
    """Fail when ``n`` decode steps projected more than ``n`` token rows through a matrix."""
    names = ("W_Q", "W_K", "W_V")
    totals = {name: c.rows_projected for name, c in zip(names, counters)}
    over = {name: total for name, total in totals.items() if total > n}
    if over:
        name = max(over, key=over.get)
        per_step = counters[names.index(name)].rows_per_step[1:]
        counts = ", ".join(f"{name_} {total}" for name_, total in totals.items())
        fail(f"token rows your decode_step projected over {n} decode steps: {counts} (through {name}, "
             f"step by step: {per_step}). With a cache each step projects only its new token, {n} rows "
             f"per matrix in all; 1 + 2 + ... + {n} = {n * (n + 1) // 2} is what you get when you "
             "recompute the prefix (the projections of every earlier token) at every step, even when "
             "the result is then read from the cache. Read the earlier keys and values from the cache, "
             "and project only the new token.")


@check("decode_step", '"the" on an empty cache', points=1)
def check_decode_first(decode_step, submission):
    """A fixed check that cannot be a declared case: it decodes into the grader's cache of the
    contract and counted weights, built in the student's process (module docstring)."""
    cache, counters = _cache(submission), _counted(submission, (W_Q, W_K, W_V))
    context = _step(decode_step, X_THE_CAT[0], cache, counters)
    expect_close(context, CONTEXT_THE, what='context of "the", decoded on an empty cache')
    _expect_cache(cache, [K_THE], [V_THE], 'after decoding "the" (its key and value, appended)')


@check("decode_step", '"cat" with "the" already in the cache', points=1)
def check_decode_second(decode_step, submission):
    """A fixed check that cannot be a declared case: it decodes into the grader's cache of the
    contract and counted weights, built in the student's process (module docstring)."""
    cache = _cache(submission)
    cache.append(np.array(K_THE), np.array(V_THE))
    counters = _counted(submission, (W_Q, W_K, W_V))
    context = _step(decode_step, X_THE_CAT[1], cache, counters)
    expect_close(context, CONTEXT_CAT, what='context of "cat", with the key and value of "the" in the cache',
                 mistakes=_decode_mistakes(X_THE_CAT[1], [K_THE], [V_THE], (W_Q, W_K, W_V)))
    _expect_cache(cache, [K_THE, K_CAT], [V_THE, V_CAT], 'after decoding "cat"')


@check("decode_step", 'decoding "the" then "cat" gives the rows of the full computation', points=1)
def check_decode_the_cat(decode_step, submission):
    """A fixed check that cannot be a declared case: it decodes into the grader's cache of the
    contract and counted weights, built in the student's process (module docstring)."""
    cache, counters = _cache(submission), _counted(submission, (W_Q, W_K, W_V))
    contexts = [_step(decode_step, x, cache, counters) for x in X_THE_CAT]
    expect_close(contexts[0], CONTEXT_THE, what='context of "the" (first decode step)')
    expect_close(contexts[1], CONTEXT_CAT, what='context of "cat" (second decode step)',
                 mistakes=_decode_mistakes(X_THE_CAT[1], [K_THE], [V_THE], (W_Q, W_K, W_V)))


@check("decode_step", "random sequences (T up to 16) match the full recomputation within 1e-9", points=2)
def check_decode_random(decode_step, submission, rng):
    for _ in range(3):
        X, Ws = _random_sequence(rng)
        want = ref.causal_self_attention(X, *Ws)
        cache, counters = _cache(submission), _counted(submission, Ws)
        for t, x in enumerate(X):
            context = _step(decode_step, x, cache, counters)
            expect_close(context, want[t], atol=1e-9, rtol=1e-9,
                         what=f"context of token {t} of {len(X)} (d_model {len(x)}, d_k {Ws[0].shape[1]}, "
                              f"d_v {Ws[2].shape[1]}), decoded one token at a time",
                         mistakes=_decode_mistakes(x, X[:t] @ Ws[1], X[:t] @ Ws[2], Ws))


# n decode steps with weights of width d_model: honest caching projects n token rows through
# each matrix, recomputing the prefix 1 + 2 + ... + n = n(n+1)/2 = 21.
COUNT_STEPS = 6


@check("decode_step", "each step projects only the new token (rows counted through W_Q, W_K, W_V)", points=2)
def check_decode_counts(decode_step, submission, rng):
    """Counted in the calls whose outputs are checked, all steps decoded into ONE cache that the
    student's decode_step fills itself. Before each step the grader appends, through the cache's
    own ``append``, the key and value of a token decode_step is never given (rows that are no
    token's projection: random noise added): a step that reads the cache attends over them, one
    that recomputes keys and values from the tokens it was given cannot. Whatever the step does,
    its products with token rows are counted (the weights are real arrays, counted by the grader,
    ``autograder/submission/counted.py``; reading them out costs nothing), so a step that reads the
    cache and also recomputes the prefix loses the points too, however it tells this cache apart."""
    n = COUNT_STEPS
    d_model, d_k, d_v = (int(d) for d in rng.integers(2, 9, size=3))  # as the random check draws them
    Ws = _random_weights(rng, d_model, d_k, d_v)
    # Tokens of norm about 1, so projections and scores are of order 1 and no softmax saturates:
    # every row of the cache weighs in the context, and a row the grader put in shows up in it.
    X = rng.normal(size=(n, d_model)) / np.sqrt(d_model)
    hidden = rng.normal(size=(n, d_model)) / np.sqrt(d_model)
    # The first steps decode into an empty cache nobody else touches (as in every other check);
    # from step `first_change` on, the grader appends a row of its own before each step.
    first_change = int(rng.integers(3, n))
    counters = _counted(submission, Ws)
    cache = _cache(submission)
    keys, values = [], []
    for t in range(n):
        if t + 1 >= first_change:
            k_in = hidden[t] @ Ws[1] + rng.normal(size=d_k)
            v_in = hidden[t] @ Ws[2] + rng.normal(size=d_v)
            cache.append(k_in, v_in)
            keys.append(k_in)
            values.append(v_in)
        context = _step(decode_step, X[t], cache, counters)
        q, k, v = (X[t] @ W for W in Ws)
        keys.append(k)
        values.append(v)
        want = _attend(q, np.vstack(keys), np.vstack(values))
        # Recomputing from the tokens decode_step was given, without the rows the grader put in.
        from_seen = _attend(q, X[:t + 1] @ Ws[1], X[:t + 1] @ Ws[2])
        expect_close(context, want, atol=1e-9, rtol=1e-9,
                     what=f"context of decode step {t + 1} of {n}"
                          + (f", after the grader changed the cache by appending the key and value of a token "
                             f"your decode_step was not given ({t + 2 - first_change} such rows so far, between "
                             "the rows your steps appended)" if t + 1 >= first_change else ""),
                     mistakes={SEEN_RECOMPUTED: from_seen})
    _expect_cache(cache, keys, values, f"after {n} decode steps, the grader's rows between them")
    _expect_counts(counters, n)


# -- causal_self_attention ------------------------------------------------------------------------------
@check("causal_self_attention", "random sequences (T up to 16, d_k != d_v)", points=2)
def check_attention_random(causal_self_attention, rng):
    for _ in range(3):
        X, Ws = _random_sequence(rng)
        expect_close(causal_self_attention(X, *Ws), ref.causal_self_attention(X, *Ws), atol=1e-9, rtol=1e-9,
                     what=f"contexts for X of shape {X.shape}, d_k {Ws[0].shape[1]}, d_v {Ws[2].shape[1]}",
                     mistakes=_attention_mistakes(X, Ws))


# -- kv_cache_size ----------------------------------------------------------------------------------------
def _size(kv_cache_size, *args):
    result = kv_cache_size(*args)
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        fail(f"kv_cache_size should return a tuple (numbers, bytes); got {type(result).__name__}")
    return result


@check("kv_cache_size", "other models and bytes per number", points=1)
def check_size_random(kv_cache_size, rng):
    for bytes_per_number in (4, 1, 2):
        n_layers, d_model = int(rng.integers(1, 100)), int(rng.choice([64, 512, 1024, 4096]))
        n_tokens = int(rng.integers(1, 200_000))
        want = ref.kv_cache_size(n_layers, d_model, n_tokens, bytes_per_number)
        expect_close(_size(kv_cache_size, n_layers, d_model, n_tokens, bytes_per_number), want, atol=0.5,
                     what=f"kv_cache_size({n_layers}, {d_model}, {n_tokens}, bytes_per_number={bytes_per_number})",
                     mistakes=_size_mistakes(n_layers, d_model, n_tokens, bytes_per_number))
