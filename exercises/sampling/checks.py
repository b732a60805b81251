"""Hidden checks of the "sampling" exercise: temperature, one weighted draw, top-p, the loop.

The fixed cases of temperature and top-p (the course text's figures, ``worked.py``: toy model 1
at the fork after "live the", the "sat"/"the" shares of "the cat") are declared once in
``cases.py``, visible or hidden; the line below makes its graded ones hidden checks. Here: the
draws of sample_next and generate, judged as random draws (``draws.py`` makes and counts them,
``counting.py`` holds the exact tests; fixed seeds; the toy models run in the student's
process, so these are not declared cases), and the randomized cases against the reference
(``solutions/sampling.py``); the named mistakes' values come from ``wrong.py``.

A correct sampler fails any check on draws with probability below ``draws.ALPHA`` = 1e-9,
whatever the seeds (``docs/random-draws.md``).
"""
import numpy as np

from autograder.authoring import (
    PROBES,
    Accept,
    Mismatch,
    check,
    excuse,
    expect_close,
    expect_equal,
    fail,
    hidden_checks,
)
from solutions import sampling as ref

from .cases import CASES
from .counting import fisher_two_sided, too_even_tail
from .draws import (
    ALPHA,
    BLOCK,
    BLOCKS,
    DRAWS,
    PAIRS,
    RUNS,
    SKEWED,
    STEPS,
    _count_draws,
    _draws,
    _generator_fault,
    _ids,
    _judge_counts,
    _loop_of_reference_fails,
    _sampler_at_fault,
    _seeded_fault,
    _toy_model,
)
from .worked import KING, VOCAB, toy_weights
from .wrong import (
    GREEDY_DECODING,
    GREEDY_IDS,
    LIVE_THE,
    NOT_INDEPENDENT,
    PROMPT,
    PROMPT_DROPPED,
    SAME_DRAWS_EACH_RUN,
    TOO_EVEN,
    _temperature_mistakes,
    _top_p_mistakes,
)

globals().update(hidden_checks(CASES))  # the graded fixed cases of cases.py, first (declared.py's order)

# -- apply_temperature --------------------------------------------------------------------------
@check("apply_temperature", "random scores and temperatures, large scores at small T", points=1)
def check_temperature_random(apply_temperature, rng):
    for case in range(5):
        V = int(rng.integers(2, 40))
        z = rng.normal(scale=3.0, size=V)
        T = float(rng.uniform(0.2, 5.0))
        if case == 4:
            # the top score / T is 1250 for every draw (scaled alone, all scores could stay below
            # exp's limit of 709): exp overflows unless the scores are shifted
            z, T = (z - z.max()) * 20.0 + 25.0, 0.02
        if case == 3:
            z = z.astype(np.float32)         # float32 scores (shares to float32 precision are fine)
        expect_close(apply_temperature(z, T), ref.apply_temperature(z, T), atol=1e-6 if case == 3 else 1e-9,
                     what=f"shares of {V} random {z.dtype} scores at T = {T:.4f}",
                     mistakes=_temperature_mistakes(z, T))


# -- sample_next ----------------------------------------------------------------------------------
@check("sample_next", 'the counts follow the shares: 400 draws after "live the" at T = 1 and T = 2, '
                      '1,000 on skewed shares; a share of 1 is always drawn, a share of 0 never', points=1)
def check_sample_counts(submission):
    for shares, seed, n in ((ref.apply_temperature(LIVE_THE, 1), 20261, DRAWS),
                            (ref.apply_temperature(LIVE_THE, 2), 20262, DRAWS),
                            (np.array([0.2, 0.7, 0.1]), 20263, SKEWED)):
        counts = _count_draws(submission, shares, seed, n)
        greedy = np.eye(len(shares))[int(np.argmax(shares))]
        where = f'after "live the" at T = {1 if seed == 20261 else 2}' if len(shares) == len(VOCAB) else \
            f"on the shares {shares.tolist()}"
        _judge_counts(counts, shares, n, f"{n} draws {where}",
                      mistakes={"always return the most likely token (that is greedy, not sampling)": greedy,
                                "draw every token with the same chance, ignoring the shares":
                                np.full(len(shares), 1 / len(shares))})
    rng = submission.probe("generator", 5)
    for shares in ([0.0, 0.0, 1.0, 0.0], [0.5, 0.0, 0.5], [0.0, 1.0]):
        for got in _draws(submission, np.array(shares), rng, 20, [i for i, s in enumerate(shares) if s > 0]):
            if shares[got] == 0.0:
                fail(f"sample_next({shares}, rng) drew {got}, a token whose share is 0")


@check("sample_next", "draws from the generator it is given: the same seed gives the same draws whatever "
                      "np.random's state, another seed or an advanced generator other draws, and rng moves on",
       points=1)
def check_sample_generator(submission):
    fault = _generator_fault(submission)
    if fault:
        fail(fault)


@check("sample_next", "consecutive draws are independent: 600 pairs of draws in a row, each kind counted "
                      "(Fisher's exact test)", points=1)
def check_sample_independent(submission):
    # Two tokens, so a pair is one of four kinds; Fisher's exact test does not need the shares
    # to be right (the count check judges those): only that the second draw ignores the first.
    draws = np.asarray(_draws(submission, np.array([0.6, 0.4]), submission.probe("generator", 3101), 2 * PAIRS))
    first, second = draws[0::2] == 0, draws[1::2] == 0
    table = [int(np.sum(first & second)), int(np.sum(first & ~second)),
             int(np.sum(~first & second)), int(np.sum(~first & ~second))]
    if fisher_two_sided(*table) <= ALPHA:
        after_top = table[0] / max(1, table[0] + table[1])
        after_other = table[2] / max(1, table[2] + table[3])
        fail(f"in {PAIRS} pairs of draws in a row on the shares [0.6, 0.4], token 0 came second "
             f"{after_top:.1%} of the time after token 0 and {after_other:.1%} of the time after token 1; each "
             f"draw must be made afresh, whatever came before (a correct sampler fails this check with probability "
             f"below {ALPHA:g}). That is what you get when you {NOT_INDEPENDENT}")


@check("sample_next", "the counts vary as chance makes them: 40 blocks of 100 draws are not all near "
                      "their share", points=1)
def check_sample_not_too_even(submission):
    shares = np.array([0.6, 0.4])
    draws = _draws(submission, shares, submission.probe("generator", 4101), BLOCKS * BLOCK)
    blocks = (np.asarray(draws).reshape(BLOCKS, BLOCK) == 0).sum(axis=1)
    if too_even_tail(blocks, BLOCK, 0.6) <= ALPHA:
        fail(f"in {BLOCKS} blocks of {BLOCK} draws on the shares [0.6, 0.4], token 0 came up "
             f"{int(blocks.min())} to {int(blocks.max())} times, never far from 60; chance spreads it wider "
             f"(a correct sampler fails this check with probability below {ALPHA:g}). That is what you get when "
             f"you {TOO_EVEN}")


# -- top_p_filter -----------------------------------------------------------------------------------
def _random_cut(rng, probs):
    """A p in (0, 1) at least 1e-6 away from every running total of the sorted shares."""
    totals = np.cumsum(np.sort(np.asarray(probs, dtype=float))[::-1])
    while True:
        p = float(rng.uniform(0.05, 0.99))
        if np.min(np.abs(totals - p)) > 1e-6:
            return p


@check("top_p_filter", "random shares and p", points=1)
def check_top_p_random(top_p_filter, rng):
    for case in range(5):
        V = int(rng.integers(3, 40))
        probs = ref.apply_temperature(rng.normal(scale=2.0, size=V), 1)
        if case == 4:
            probs = probs.astype(np.float32)   # float32 shares (results to float32 precision are fine)
        p = _random_cut(rng, probs)
        expect_close(top_p_filter(probs, p), ref.top_p_filter(probs, p), atol=1e-6 if case == 4 else 1e-9,
                     what=f"top-p {p:.4f} of {V} random {probs.dtype} shares", mistakes=_top_p_mistakes(probs, p))


# -- generate ---------------------------------------------------------------------------------------------
@check("generate", 'greedy (T = 0) from "long live", 4 steps: long live the king said yes', points=1)
def check_generate_greedy(generate, submission):
    got = _ids(generate(_toy_model(submission), list(PROMPT), 4, 0, None), "generate")
    words = " ".join(VOCAB[i] if 0 <= i < len(VOCAB) else "?" for i in got)
    expect_equal(got, GREEDY_IDS, what=f'greedy decoding from "long live" (it said "{words}")',
                 mistakes={PROMPT_DROPPED: GREEDY_IDS[2:]})


@check("generate", "leaves the caller's prompt list unchanged", points=1)
def check_generate_prompt(submission):
    model = _toy_model(submission)
    _, args_after = submission.call_keeping_args("generate", model, list(PROMPT), 2, 0, None)
    expect_equal(list(args_after[1]), PROMPT, what="the prompt list you were given, after the call",
                 mistakes={"append to the caller's prompt list instead of a copy of it": GREEDY_IDS[:4]})


@check("generate", 'T = 1: queen at the fork about half the time (100 seeds from "long live"; '
                   '300 steps of a model stuck at the fork)', points=1)
def check_generate_sampled(generate, submission):
    model = _toy_model(submission)
    counts = np.zeros(len(VOCAB), dtype=int)
    # RUNS calls generate(model, PROMPT, 2, 1, rng), each with its own generator (seeds 7000, 7001,
    # ...), in one exchange; they stop after the first run the loop below fails on.
    rngs = submission.probe_each("generator", [(7000 + seed,) for seed in range(RUNS)])
    runs = submission.repeat("generate", RUNS, (model, list(PROMPT), 2, 1, None), vary={4: rngs},
                             accept=Accept(range(len(VOCAB)), length=len(PROMPT) + 2, at=3))
    for value in runs:
        got = _ids(value, "generate")
        if len(got) != len(PROMPT) + 2:
            fail(f"generate(model, {PROMPT}, 2, 1, rng) returned {len(got)} ids; it should return "
                 "the 2 ids of the prompt and 2 new ones")
        if not 0 <= got[3] < len(VOCAB):
            fail(f"generate returned the id {got[3]}; ids run from 0 to {len(VOCAB) - 1}")
        counts[got[3]] += 1
    shares = ref.apply_temperature(ref.toy_scores(toy_weights(ref), GREEDY_IDS[1:3]), 1)
    greedy = {GREEDY_DECODING: np.eye(len(VOCAB))[KING]}
    # The same fork, STEPS times in one call: a model that always gives the "live the" scores.
    stuck = _ids(generate(submission.probe("fixed_scores_model", LIVE_THE), [1, 2], STEPS, 1,
                          submission.probe("generator", 8000)), "generate")
    if len(stuck) != 2 + STEPS or not all(0 <= i < len(VOCAB) for i in stuck):
        fail(f"generate(model, [1, 2], {STEPS}, 1, rng) returned {len(stuck)} ids; it should return "
             f"the 2 ids of the prompt and {STEPS} new ones, each from 0 to {len(VOCAB) - 1}")
    if any(i != KING for i in stuck[2:]):
        # Not greedy: the one run of STEPS steps draws; runs that all give one word share a generator.
        greedy = {SAME_DRAWS_EACH_RUN: np.eye(len(VOCAB))[int(np.argmax(counts))]}
    try:
        _judge_counts(counts, shares, RUNS, f'the word after "long live the" in {RUNS} runs at T = 1',
                      mistakes=greedy)
        _judge_counts(np.bincount(stuck[2:], minlength=len(VOCAB)), shares, STEPS,
                      f'{STEPS} steps at T = 1 of a model that always gives the "live the" scores', mistakes=greedy)
    except Mismatch as failure:
        if not _loop_of_reference_fails(submission, shares):
            raise
        # One bug, charged once (a sampler whose draws depend on earlier ones cannot be replayed
        # call by call, so this is judged on fresh draws); sample_next's own checks charge it.
        excuse("sample_next", "the reference generate calling your sample_next draws as wrongly on the same "
               "seeds, so the mistake is in sample_next and is charged there only", failure)


@check("generate", "the same seed gives the same text, other seeds other texts, and rng moves on (40 steps "
                   "at T = 2, again in reverse order and in a fresh run of the notebook)", points=1)
def check_generate_seeded(submission):
    fault = _seeded_fault(submission)
    # One bug, charged once: a sampler that does not draw from its generator makes any loop
    # around it fail here; sample_next's own check charges it (its feedback says why).
    if fault and _sampler_at_fault(submission):
        excuse("sample_next", "your sample_next does not draw from the generator it is given, so no loop "
               "around it can; the mistake is charged there only", Mismatch(fault))
    if fault:
        fail(fault)


@check("generate", "a model that reads the whole list: n steps, greedy and sampled, against the reference", points=1)
def check_generate_whole_list(generate, submission, rng):
    V = int(rng.integers(5, 12))
    scores = rng.normal(scale=3.0, size=(V, V))
    scores[np.arange(V), rng.permutation(V)] += 12.0  # each row's top word is its own
    model = submission.probe("whole_list_model", scores)
    local = PROBES["whole_list_model"](scores)
    for n in (0, 1, 7):
        prompt = [int(i) for i in rng.integers(0, V, size=int(rng.integers(1, 4) if n == 0 else rng.integers(2, 4)))]
        if n and (sum(prompt[:-1]) + len(prompt) - 1) % V == 0:
            prompt[0] = (prompt[0] + 1) % V
        # for n > 0 the whole prompt picks another row (sum(ids) + len(ids)) % V than its newest id
        # alone, whose top word differs: a generate that feeds the model less than the whole list
        # chooses another first word for every student, not only for most draws
        want = ref.generate(local, prompt, n, 0, None)
        got = _ids(generate(model, list(prompt), n, 0, None), "generate")
        only_new = ref.generate(lambda ids: local(ids[-1:]), prompt, n, 0, None)
        expect_equal(got, want, what=f"greedy generate from {prompt}, n = {n}, {V} words",
                     mistakes={PROMPT_DROPPED: want[len(prompt):],
                               "give the model only the newest id instead of the whole list so far": only_new})
    prompt = [int(rng.integers(0, V))]
    got = _ids(generate(model, list(prompt), 6, 1.5, submission.probe("generator", 99)), "generate")
    if len(got) != 7 or got[:1] != prompt or not all(0 <= i < V for i in got):
        fail(f"generate(model, {prompt}, 6, 1.5, rng) returned {got}; it should return the prompt "
             f"followed by 6 ids from 0 to {V - 1}")

