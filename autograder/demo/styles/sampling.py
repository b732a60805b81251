"""The demo students' own sampling code (see the package's docstring): the three honest styles
that ``tests/exercises/test_sampling.py`` grades at full marks, one per student."""

STYLES = {
    # cy: loops
    "cy": '''
import math

def apply_temperature(logits, T):
    if T < 0:
        raise ValueError("negative temperature")
    scores = [float(x) for x in logits]
    if T == 0:
        best = 0
        for i in range(len(scores)):
            if scores[i] > scores[best]:
                best = i
        return np.array([1.0 if i == best else 0.0 for i in range(len(scores))])
    top = max(scores)
    e = [math.exp((s - top) / T) for s in scores]
    total = 0.0
    for x in e:
        total += x
    return np.array([x / total for x in e])

def sample_next(probs, rng):
    u, running = rng.random(), 0.0
    for i, share in enumerate(probs):
        running += share
        if u < running:
            return i
    return max(i for i, share in enumerate(probs) if share > 0)

def top_p_filter(probs, p):
    if not 0 < p <= 1:
        raise ValueError("p out of range")
    order = sorted(range(len(probs)), key=lambda i: -probs[i])
    kept, total = [], 0.0
    for i in order:
        kept.append(i)
        total += probs[i]
        if total >= p and p < 1:
            break
    out = [0.0] * len(probs)
    for i in kept:
        out[i] = probs[i] / total
    return np.array(out)

def generate(model, prompt, n, T, rng):
    ids = []
    for i in prompt:
        ids.append(int(i))
    step = 0
    while step < n:
        shares = apply_temperature(model(ids), T)
        if T == 0:
            ids.append(int(np.argmax(shares)))
        else:
            ids.append(sample_next(shares, rng))
        step += 1
    return ids
''',
    # dee: einsum, searchsorted, float32 inputs cast up
    "dee": '''
def apply_temperature(logits, T):
    z = np.asarray(logits).astype(np.float64)      # float32 scores become float64 first
    if T < 0:
        raise ValueError(f"T = {T} < 0")
    if T == 0:
        return (np.arange(len(z)) == np.argmax(z)).astype(float)
    e = np.exp((z - z.max()) / T)
    return e / np.einsum("i->", e)

def sample_next(probs, rng):
    cdf = np.cumsum(np.asarray(probs).astype(np.float64))
    return int(min(np.searchsorted(cdf, rng.random() * cdf[-1], side="right"), len(cdf) - 1))

def top_p_filter(probs, p):
    probs = np.asarray(probs, dtype=float)
    if p <= 0 or p > 1:
        raise ValueError("p")
    order = np.argsort(-probs, kind="stable")
    k = len(probs) if p == 1 else int(np.searchsorted(np.cumsum(probs[order]), p)) + 1
    mask = np.zeros(len(probs))
    mask[order[:k]] = 1.0
    kept = np.einsum("i,i->i", probs, mask)
    return kept / np.dot(kept, np.ones(len(kept)))

def generate(model, prompt, n, T, rng):
    ids = list(prompt)
    for _ in range(n):
        probs = apply_temperature(model(ids), T)
        ids = ids + [int(np.argmax(probs)) if T == 0 else sample_next(probs, rng)]
    return ids
''',
    # eve: copies, powers of the shares and multinomial draws
    "eve": '''
def apply_temperature(logits, T):
    z = np.array(logits, dtype=float, copy=True)
    if T < 0:
        raise ValueError("the temperature cannot be negative")
    if T == 0:
        out = np.zeros_like(z)
        out[z.argmax()] = 1.0
        return out
    if T <= 1:
        return softmax(z / T)
    p = softmax(z) ** (1.0 / T)          # e^(z/T) up to a constant
    return p / p.sum()

def sample_next(probs, rng):
    return int(np.argmax(rng.multinomial(1, np.array(probs, copy=True))))

def top_p_filter(probs, p):
    probs = np.array(probs, dtype=float, copy=True)
    if not (0 < p <= 1):
        raise ValueError("p")
    if p == 1:
        return probs / probs.sum()
    order = np.lexsort((np.arange(len(probs)), -probs))
    before = np.cumsum(probs[order]) - probs[order]        # the total before each token
    keep = order[before < p]
    out = np.zeros_like(probs)
    out[keep] = probs[keep]
    return out / out.sum()

def generate(model, prompt, n, T, rng):
    ids = prompt.copy()
    for _ in range(n):
        shares = apply_temperature(np.array(model(list(ids))), T)
        ids.append(int(shares.argmax()) if T == 0 else sample_next(shares.copy(), rng))
    return [int(i) for i in ids]
''',
}
