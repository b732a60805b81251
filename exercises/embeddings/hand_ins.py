"""Realistic mistakes in the embeddings exercise: the ones the course text names, and a few more."""
from autograder.authoring import Mistake

E = "embeddings"

WORKED = "check_cos_worked"
ZERO = "check_cos_zero"
LENGTHS = "check_cos_lengths"
RANDOM = "check_cos_random"
GRID_WORKED = "check_grid_worked"
GRID_ZERO = "check_grid_zero_rows"
GRID_RANDOM = "check_grid_random"
SEARCH_WORKED = "check_search_worked"
SEARCH_TIES = "check_search_ties"
SEARCH_BIG_K = "check_search_big_k"
SEARCH_RANDOM = "check_search_random"

MISTAKES = [
    Mistake(E, "cosine_similarity", "dot_product_only", '''
def cosine_similarity(a, b):
    return float(np.dot(np.asarray(a, float), np.asarray(b, float)))   # never divided by the lengths
''', failing=(WORKED, RANDOM),
        feedback="return the dot product without dividing by the norms"),

    Mistake(E, "cosine_similarity", "nan_for_zero_vector", '''
def cosine_similarity(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))     # 0/0 for a zero vector
''', failing=(ZERO,),
        feedback="0/0 is nan"),

    Mistake(E, "cosine_similarity", "one_norm_only", '''
def cosine_similarity(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    a_hat = a / np.linalg.norm(a)                                      # b keeps its length
    return float(a_hat @ b)
''', failing=(WORKED, ZERO, RANDOM),
        feedback="divide by only one of the two norms"),

    Mistake(E, "cosine_similarity", "missing_parentheses", '''
def cosine_similarity(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return float(a @ b / np.linalg.norm(a) * np.linalg.norm(b))       # (a.b / |a|) * |b|
''', failing=(WORKED, ZERO, RANDOM),
        feedback="without parentheses"),

    Mistake(E, "cosine_similarity", "zip_ignores_lengths", '''
def cosine_similarity(a, b):
    dot = sum(x * y for x, y in zip(a, b))                             # zip stops at the shorter one
    norm_a = sum(x * x for x in a) ** 0.5
    norm_b = sum(y * y for y in b) ** 0.5
    if norm_a == 0 or norm_b == 0:
        return 0.0
    return dot / (norm_a * norm_b)
''', failing=(LENGTHS,),
        feedback="should raise ValueError"),

    Mistake(E, "cosine_similarity_matrix", "grid_dot_products", '''
def cosine_similarity_matrix(A, B):
    return np.asarray(A, float) @ np.asarray(B, float).T
''', failing=(GRID_WORKED, GRID_ZERO, GRID_RANDOM),
        # semantic_search scores with this grid, so it ranks by dot product too, but keeps its
        # points: the reference does the same with this grid (charged once, here)
        feedback="return the dot product without dividing by the norms"),

    Mistake(E, "cosine_similarity_matrix", "grid_nan_for_zero_rows", '''
def cosine_similarity_matrix(A, B):
    A, B = np.asarray(A, float), np.asarray(B, float)
    lengths = np.outer(np.linalg.norm(A, axis=1), np.linalg.norm(B, axis=1))
    return (A @ B.T) / lengths
''', failing=(GRID_ZERO,),
        feedback="0/0 is nan"),

    Mistake(E, "cosine_similarity_matrix", "grid_transposed", '''
def cosine_similarity_matrix(A, B):
    A, B = np.asarray(A, float), np.asarray(B, float)
    def unit(M):
        n = np.linalg.norm(M, axis=1, keepdims=True)
        return np.divide(M, n, out=np.zeros_like(M), where=n > 0)
    return unit(B) @ unit(A).T                                          # (m, n) instead of (n, m)
''', failing=(GRID_WORKED, GRID_ZERO, GRID_RANDOM),
        # semantic_search reads row 0 of a (n, 1) grid: one score, so one result, as the
        # reference does with this grid: charged to cosine_similarity_matrix only
        feedback="transpose of the right answer"),

    Mistake(E, "semantic_search", "lowest_first", '''
def semantic_search(query, documents, k):
    scores = cosine_similarity_matrix(np.asarray(query, float)[None, :], documents)[0]
    order = np.argsort(scores, kind="stable")[:k]                        # ascending: the worst first
    return [(int(i), float(scores[i])) for i in order]
''', failing=(SEARCH_WORKED, SEARCH_TIES, SEARCH_BIG_K, SEARCH_RANDOM),
        feedback="lowest first"),

    Mistake(E, "semantic_search", "ties_to_higher_index", '''
def semantic_search(query, documents, k):
    scores = cosine_similarity_matrix(np.asarray(query, float)[None, :], documents)[0]
    order = np.argsort(scores, kind="stable")[::-1][:k]                  # reversing flips ties too
    return [(int(i), float(scores[i])) for i in order]
''', failing=(SEARCH_TIES, SEARCH_RANDOM),
        feedback="break ties towards the higher index"),

    Mistake(E, "semantic_search", "ranks_by_dot_product", '''
def semantic_search(query, documents, k):
    scores = np.asarray(documents, float) @ np.asarray(query, float)     # long documents win
    order = np.argsort(-scores, kind="stable")[:k]
    return [(int(i), float(scores[i])) for i in order]
''', failing=(SEARCH_WORKED, SEARCH_TIES, SEARCH_BIG_K, SEARCH_RANDOM),
        feedback="rank by the dot product instead of the cosine"),

    Mistake(E, "semantic_search", "k_past_the_end", '''
def semantic_search(query, documents, k):
    scores = cosine_similarity_matrix(np.asarray(query, float)[None, :], documents)[0]
    order = np.argsort(-scores, kind="stable")
    return [(int(order[r]), float(scores[order[r]])) for r in range(k)]  # IndexError when k > n
''', failing=(SEARCH_BIG_K, SEARCH_RANDOM),
        feedback="IndexError"),

    Mistake(E, "semantic_search", "score_index_swapped", '''
def semantic_search(query, documents, k):
    scores = cosine_similarity_matrix(np.asarray(query, float)[None, :], documents)[0]
    order = np.argsort(-scores, kind="stable")[:k]
    return [(float(scores[i]), int(i)) for i in order]                  # (score, index)
''', failing=(SEARCH_WORKED, SEARCH_TIES, SEARCH_BIG_K, SEARCH_RANDOM),
        feedback="(index, score) pairs, in that order"),
]

# The mistakes the course text names, and a phrase the visible check that catches each must
# print (tests/course/test_visible.py hands each in to the released notebook).
NAMED = {
    'dot_product_only': 'return the dot product without dividing by the norms',
    'ranks_by_dot_product': 'rank by the dot product instead of the cosine',
    'ties_to_higher_index': 'break ties towards the higher index',
}

# Who hands in which of these in the demo class (autograder.demo.students).
DEMO = {
    'cy': ['dot_product_only'],
    'dee': ['nan_for_zero_vector'],
    'eve': [],
}
