"""Independent styles of the embeddings exercise (see the package)."""

LOOPS = {
    "cosine_similarity": '''import math

import numpy as np


def cosine_similarity(a, b):
    a = np.array(a, dtype=np.float64)
    b = np.array(b, dtype=np.float64)
    if a.ndim != 1 or b.ndim != 1 or len(a) != len(b):
        raise ValueError("two 1-D vectors of the same length are needed")
    dot = 0.0
    na = 0.0
    nb = 0.0
    for x, y in zip(a, b):
        dot += x * y
        na += x * x
        nb += y * y
    if na == 0 or nb == 0:
        return 0.0
    value = dot / (math.sqrt(na) * math.sqrt(nb))
    return max(-1.0, min(1.0, float(value)))
''',
    "cosine_similarity_matrix": '''def cosine_similarity_matrix(A, B):
    A = np.array(A, dtype=np.float64)
    B = np.array(B, dtype=np.float64)
    if A.ndim != 2 or B.ndim != 2 or A.shape[1] != B.shape[1]:
        raise ValueError("need (n, d) and (m, d) arrays")
    result = np.zeros((A.shape[0], B.shape[0]))
    for i in range(A.shape[0]):
        for j in range(B.shape[0]):
            result[i, j] = cosine_similarity(A[i], B[j])
    return result
''',
    "semantic_search": '''def semantic_search(query, documents, k):
    docs = np.array(documents, dtype=np.float64)
    scored = []
    for index in range(len(docs)):
        scored.append((index, cosine_similarity(query, docs[index])))
    scored.sort(key=lambda item: (-item[1], item[0]))
    return scored[:k]
''',
}

EINSUM = {
    "cosine_similarity": '''def cosine_similarity(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"shapes {a.shape} and {b.shape} are not one length")
    denom = np.sqrt(np.dot(a, a) * np.dot(b, b))
    return 0.0 if denom == 0 else float(np.clip(np.dot(a, b) / denom, -1, 1))
''',
    "cosine_similarity_matrix": '''def cosine_similarity_matrix(A, B):
    A, B = np.asarray(A, float), np.asarray(B, float)
    if A.ndim != 2 or B.ndim != 2 or A.shape[-1] != B.shape[-1]:
        raise ValueError("rows of different lengths")
    na = np.sqrt(np.einsum("ij,ij->i", A, A))
    nb = np.sqrt(np.einsum("ij,ij->i", B, B))
    safe_a = np.where(na == 0, 1.0, na)
    safe_b = np.where(nb == 0, 1.0, nb)
    sims = np.einsum("id,jd->ij", A, B) / np.outer(safe_a, safe_b)
    return np.clip(sims, -1.0, 1.0)
''',
    "semantic_search": '''def semantic_search(query, documents, k):
    sims = cosine_similarity_matrix(np.atleast_2d(query), documents).ravel()
    ranked = sorted(range(len(sims)), key=lambda i: (-sims[i], i))
    return [(i, float(sims[i])) for i in ranked[:k]]
''',
}

STYLES = {"loops": LOOPS, "einsum": EINSUM}
