"""Realistic mistakes in the attention exercise: the ones the course text names."""
from autograder.authoring import Mistake

E = "attention"

MISTAKES = [
    Mistake(E, "softmax", "overflowing_softmax", '''
def softmax(z, axis=-1):
    z = np.asarray(z, dtype=float)
    e = np.exp(z)                      # no shift by the maximum
    return e / e.sum(axis=axis, keepdims=True)
''', failing=("check_softmax_large",
              "check_softmax_rows",
              "check_softmax_random"),
        feedback="without first subtracting the largest score"),

    Mistake(E, "softmax", "global_max_shift", '''
def softmax(z, axis=-1):
    z = np.asarray(z, dtype=float)
    e = np.exp(z - z.max())            # the largest entry of the whole array, not per row
    return e / e.sum(axis=axis, keepdims=True)
''', failing=("check_softmax_rows",),
        feedback="instead of each row's own largest"),

    Mistake(E, "softmax", "first_axis_always", '''
def softmax(z, axis=-1):
    z = np.asarray(z, dtype=float)
    e = np.exp(z - z.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)   # the first axis, whatever axis says
''', failing=("check_softmax_rows",
              "check_softmax_random"),
        feedback="take the softmax over the wrong axis"),

    Mistake(E, "attention_matrix", "scaled_by_d_v", '''
def attention_matrix(Q, K, V, causal=False):
    Q, K, V = (np.asarray(a, float) for a in (Q, K, V))
    scores = Q @ K.T
    scaled = scores / np.sqrt(V.shape[-1])      # d_v, the values' width, not d_k
    if causal:
        scaled = np.where(causal_mask(len(Q)), scaled, -np.inf)
    weights = softmax(scaled, axis=-1)
    return scores, weights, weights @ V
''', failing=("check_grid_random",
              "check_grid_rows_match"),
        feedback="sqrt(d_v)"),

    Mistake(E, "attention_row", "no_sqrt_scaling", '''
def attention_row(q, K, V):
    scores = np.asarray(K, float) @ np.asarray(q, float)
    weights = softmax(scores)          # forgot / sqrt(d_k)
    return scores, weights, weights @ np.asarray(V, float)
''', failing=("check_row_weights",
              "check_row_context",
              "check_row_random"),
        feedback="forget to divide the scores by sqrt(d_k)"),

    Mistake(E, "attention_row", "divide_by_d_k", '''
def attention_row(q, K, V):
    q = np.asarray(q, float)
    scores = np.asarray(K, float) @ q
    weights = softmax(scores / len(q))  # d_k, not its square root
    return scores, weights, weights @ np.asarray(V, float)
''', failing=("check_row_weights",
              "check_row_context",
              "check_row_random"),
        feedback="divide the scores by d_k instead of sqrt(d_k)"),

    Mistake(E, "attention_row", "returns_scaled_scores", '''
def attention_row(q, K, V):
    q = np.asarray(q, float)
    scores = np.asarray(K, float) @ q / np.sqrt(len(q))
    weights = softmax(scores)
    return scores, weights, weights @ np.asarray(V, float)
''', failing=("check_row_scores",
              "check_row_random"),
        feedback="return the scaled scores where the raw dot products"),

    Mistake(E, "project_qkv", "column_convention", '''
def project_qkv(X, W_Q, W_K, W_V):
    X = np.asarray(X, float)
    return X @ np.asarray(W_Q).T, X @ np.asarray(W_K).T, X @ np.asarray(W_V).T
''', failing=("check_project_the_cat", "check_project_random"),
        feedback="column convention"),

    Mistake(E, "causal_mask", "hides_diagonal", '''
def causal_mask(T):
    return np.tril(np.ones((T, T), dtype=bool), k=-1)   # a token cannot read itself
''', failing=("check_mask_three",
              "check_mask_sizes"),
        feedback="diagonal"),

    Mistake(E, "attention_matrix", "softmax_wrong_axis", '''
def attention_matrix(Q, K, V, causal=False):
    Q, K, V = (np.asarray(a, float) for a in (Q, K, V))
    scores = Q @ K.T
    scaled = scores / np.sqrt(Q.shape[-1])
    if causal:
        scaled = np.where(causal_mask(len(Q)), scaled, -np.inf)
    weights = softmax(scaled, axis=0)   # columns instead of rows
    return scores, weights, weights @ V
''', failing=("check_grid_weights",
              "check_grid_output",
              "check_grid_causal",
              "check_grid_random",
              "check_grid_rows_match"),
        feedback="wrong axis"),

    Mistake(E, "attention_matrix", "mask_after_softmax", '''
def attention_matrix(Q, K, V, causal=False):
    Q, K, V = (np.asarray(a, float) for a in (Q, K, V))
    scores = Q @ K.T
    weights = softmax(scores / np.sqrt(Q.shape[-1]), axis=-1)
    if causal:
        weights = np.where(causal_mask(len(Q)), weights, 0.0)   # rows no longer sum to 1
    return scores, weights, weights @ V
''', failing=("check_grid_causal",
              "check_grid_random"),
        feedback="without renormalizing"),
]

# The mistakes the course text names, and a phrase the visible check that catches each must
# print (tests/course/test_visible.py hands each in to the released notebook).
NAMED = {
    'no_sqrt_scaling': 'forget to divide the scores by sqrt(d_k)',
    'softmax_wrong_axis': 'softmax over the wrong axis',
    'hides_diagonal': 'hide the diagonal too',
    'mask_after_softmax': 'zero the masked weights after the softmax',
}

# Who hands in which of these in the demo class (autograder.demo.students).
DEMO = {
    'cy': ['no_sqrt_scaling'],
    'dee': ['softmax_wrong_axis'],
    'eve': ['mask_after_softmax', 'overflowing_softmax'],
}
