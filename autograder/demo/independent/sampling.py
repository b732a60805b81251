"""Independent styles of the sampling exercise (see the package)."""

PLAIN = {
    "apply_temperature": '''import numpy as np


def apply_temperature(logits, T):
    if T < 0:
        raise ValueError("negative temperature")
    scores = np.array(logits, dtype=np.float64)
    if T == 0:
        out = np.zeros(len(scores))
        out[np.argmax(scores)] = 1.0
        return out
    scaled = scores / T
    scaled = scaled - scaled.max()
    weights = np.exp(scaled)
    return weights / weights.sum()
''',
    "sample_next": '''def sample_next(probs, rng):
    shares = np.array(probs, dtype=np.float64)
    return int(rng.choice(np.arange(len(shares)), p=shares / shares.sum()))
''',
    "top_p_filter": '''def top_p_filter(probs, p):
    if p <= 0 or p > 1:
        raise ValueError("p must lie in (0, 1]")
    probs = np.array(probs, dtype=np.float64)
    if p >= 1:
        return probs / probs.sum()
    ranked = sorted(range(len(probs)), key=lambda i: (-probs[i], i))
    keep = []
    running = 0.0
    for i in ranked:
        keep.append(i)
        running += probs[i]
        if running >= p:
            break
    out = np.zeros(len(probs))
    for i in keep:
        out[i] = probs[i]
    return out / out.sum()
''',
    "generate": '''def generate(model, prompt, n, T, rng):
    tokens = [int(t) for t in prompt]
    for step in range(n):
        logits = model(list(tokens))
        if T == 0:
            tokens.append(int(np.argmax(logits)))
        else:
            tokens.append(sample_next(apply_temperature(logits, T), rng))
    return tokens
''',
}

CUMULATIVE = {
    "apply_temperature": '''def apply_temperature(logits, T):
    z = np.asarray(logits, float)
    if T < 0:
        raise ValueError(f"T = {T} is below zero")
    if T == 0:
        return np.eye(1, len(z), int(np.argmax(z))).ravel()
    return softmax(z / T)
''',
    "sample_next": '''def sample_next(probs, rng):
    cdf = np.cumsum(np.asarray(probs, float))
    cdf /= cdf[-1]
    return int(np.searchsorted(cdf, rng.random(), side="right"))
''',
    "top_p_filter": '''def top_p_filter(probs, p):
    probs = np.asarray(probs, float)
    if not (0 < p <= 1):
        raise ValueError("p outside (0, 1]")
    order = np.lexsort((np.arange(len(probs)), -probs))
    before = np.concatenate(([0.0], np.cumsum(probs[order])[:-1]))
    chosen = order[before < p] if p < 1 else order
    out = np.zeros_like(probs)
    out[chosen] = probs[chosen]
    return out / out.sum()
''',
    "generate": '''def generate(model, prompt, n, T, rng):
    out = list(map(int, prompt))
    while len(out) < len(prompt) + n:
        shares = apply_temperature(model(out[:]), T)
        nxt = int(shares.argmax()) if T == 0 else sample_next(shares, rng)
        out = out + [nxt]
    return out
''',
}

STYLES = {"plain": PLAIN, "cumulative": CUMULATIVE}
