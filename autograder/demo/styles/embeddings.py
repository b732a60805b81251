"""The demo students' own embedding code (see the package's docstring)."""

STYLES = {
    # cy: the math module and loops over rows
    "cy": '''
import math

def cosine_similarity(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError("two vectors of the same length, please")
    dot = sum(x * y for x, y in zip(a, b))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    if na == 0 or nb == 0:
        return 0.0
    return max(-1.0, min(1.0, dot / (na * nb)))

def cosine_similarity_matrix(A, B):
    A, B = np.asarray(A, dtype=float), np.asarray(B, dtype=float)
    if A.ndim != 2 or B.ndim != 2 or A.shape[1] != B.shape[1]:
        raise ValueError("A and B must be 2-D with rows of the same length")
    grid = np.zeros((A.shape[0], B.shape[0]))
    for i in range(A.shape[0]):
        for j in range(B.shape[0]):
            na = math.sqrt(float(A[i] @ A[i]))
            nb = math.sqrt(float(B[j] @ B[j]))
            if na > 0 and nb > 0:
                grid[i, j] = min(1.0, max(-1.0, float(A[i] @ B[j]) / (na * nb)))
    return grid

def semantic_search(query, documents, k):
    sims = cosine_similarity_matrix(np.asarray(query, dtype=float).reshape(1, -1), documents)[0]
    ranked = sorted(range(len(sims)), key=lambda i: (-sims[i], i))
    hits = []
    for i in ranked[:k]:
        hits.append((i, float(sims[i])))
    return hits
''',
    # dee: norms taken once, broadcasting, np.einsum
    "dee": '''
def cosine_similarity(a, b):
    u = np.array(a, dtype=np.float64)
    v = np.array(b, dtype=np.float64)
    if u.shape != v.shape or u.ndim != 1:
        raise ValueError(f"shapes {u.shape} and {v.shape}")
    norms = np.sqrt(np.einsum("i,i->", u, u) * np.einsum("i,i->", v, v))
    return 0.0 if norms == 0 else float(np.clip(np.einsum("i,i->", u, v) / norms, -1, 1))

def cosine_similarity_matrix(A, B):
    A = np.array(A, dtype=np.float64)
    B = np.array(B, dtype=np.float64)
    if A.ndim != 2 or B.ndim != 2 or A.shape[-1] != B.shape[-1]:
        raise ValueError(f"shapes {A.shape} and {B.shape}")
    na = np.sqrt(np.einsum("ij,ij->i", A, A))[:, None]
    nb = np.sqrt(np.einsum("ij,ij->i", B, B))[None, :]
    dots = np.einsum("id,jd->ij", A, B)
    denom = na * nb
    safe = np.where(denom > 0, denom, 1.0)
    return np.clip(np.where(denom > 0, dots / safe, 0.0), -1.0, 1.0)

def semantic_search(query, documents, k):
    row = cosine_similarity_matrix(np.atleast_2d(query), documents).ravel()
    idx = np.lexsort((np.arange(row.size), -row))
    return [(int(j), float(row[j])) for j in idx[:max(k, 0)]]
''',
    # eve: unit vectors first, then plain dot products
    "eve": '''
def cosine_similarity(a, b):
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    if not (a.ndim == b.ndim == 1 and len(a) == len(b)):
        raise ValueError("not two vectors of one size")
    la, lb = np.linalg.norm(a), np.linalg.norm(b)
    if la * lb == 0:
        return 0.0
    return float(min(1.0, max(-1.0, np.dot(a / la, b / lb))))

def cosine_similarity_matrix(A, B):
    A = np.asarray(A, float)
    B = np.asarray(B, float)
    if len(A.shape) != 2 or len(B.shape) != 2 or A.shape[1] != B.shape[1]:
        raise ValueError("need (n, d) and (m, d)")
    units = []
    for M in (A, B):
        lengths = np.linalg.norm(M, axis=1)
        U = np.zeros_like(M)
        nonzero = lengths > 0
        U[nonzero] = M[nonzero] / lengths[nonzero][:, None]
        units.append(U)
    out = units[0] @ units[1].T
    out[out > 1] = 1.0
    out[out < -1] = -1.0
    return out

def semantic_search(query, documents, k):
    scores = cosine_similarity_matrix([query], documents)[0]
    best = []
    remaining = list(range(len(scores)))
    while remaining and len(best) < k:
        top = remaining[0]
        for i in remaining:
            if scores[i] > scores[top]:
                top = i
        remaining.remove(top)
        best.append((top, float(scores[top])))
    return best
''',
}
