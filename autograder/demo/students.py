"""The demo class: who hands in what.

``ada`` hands in the reference solutions, ``bo`` the untouched stubs, and the others
realistic mistakes from ``autograder.demo.mistakes``: each name maps to mistake ids
(``<exercise>-<label>``), at most one per function; every other function is the reference.
``eve`` also breaks things a grader must survive: an endless loop and an attempt to
import the grader's reference solutions.
"""

REFERENCE = "reference"
STUBS = "stubs"

STUDENTS = {
    "ada": REFERENCE,
    "bo": STUBS,
    "cy": ["attention-no_sqrt_scaling", "tokens-overlapping_merge", "embeddings-dot_product_only",
           "next_token-sign_flipped", "kv_cache-recomputes_prefix",
           "learned_attention-no_softmax_correction"],
    "dee": ["attention-softmax_wrong_axis", "tokens-pairs_not_weighted", "embeddings-nan_for_zero_vector",
            "next_token-y_minus_p", "kv_cache-size_no_factor_2",
            "learned_attention-scaled_by_d_model"],
    "eve": ["attention-mask_after_softmax", "attention-overflowing_softmax",
            "tokens-most_frequent_pair_first", "next_token-mutates_input", "kv_cache-aliases_inputs",
            "learned_attention-position_after_projections"],
}

# Hostile code handed in by "eve" on top of her mistakes (exercise -> {function: code}).
HOSTILE = {
    "attention": {"causal_mask": '''
def causal_mask(T):
    while True:          # never returns: the grader must stop it and go on
        pass
'''},
    "embeddings": {"cosine_similarity": '''
def cosine_similarity(a, b):
    from solutions.embeddings import cosine_similarity as theirs   # not allowed
    return theirs(a, b)
'''},
}
