"""Independent styles of the next_token exercise (see the package)."""

PLAIN = {
    "forward": '''import math

import numpy as np


def forward(context, W1, b1, W_U):
    pre = np.dot(np.array(context, dtype=np.float64), np.array(W1, dtype=np.float64))
    pre = pre + np.array(b1, dtype=np.float64)
    hidden = np.where(pre > 0, pre, 0.0)
    scores = np.dot(np.array(W_U, dtype=np.float64), hidden)
    return hidden, scores
''',
    "cross_entropy": '''def cross_entropy(logits, target):
    values = [float(v) for v in logits]
    m = max(values)
    total = sum(math.exp(v - m) for v in values)
    return m + math.log(total) - values[target]
''',
    "grad_logits": '''def grad_logits(logits, target):
    probs = softmax(np.array(logits, dtype=np.float64))
    one_hot = np.zeros_like(probs)
    one_hot[target] = 1.0
    return probs - one_hot
''',
    "grad_unembedding": '''def grad_unembedding(h, logits, target):
    g = grad_logits(logits, target)
    hv = np.array(h, dtype=np.float64)
    out = np.zeros((len(g), len(hv)))
    for i in range(len(g)):
        out[i] = g[i] * hv
    return out
''',
    "sgd_update": '''def sgd_update(W, grad, lr):
    new_W = np.array(W, dtype=np.float64, copy=True)
    new_W -= lr * np.array(grad, dtype=np.float64)
    return new_W
''',
    "numerical_gradient": '''def numerical_gradient(loss_fn, W, index, eps=1e-5):
    plus = np.array(W, dtype=np.float64)
    minus = np.array(W, dtype=np.float64)
    plus[index] = plus[index] + eps
    minus[index] = minus[index] - eps
    return float((loss_fn(plus) - loss_fn(minus)) / (2 * eps))
''',
}

EINSUM = {
    "forward": '''def forward(context, W1, b1, W_U):
    x = np.asarray(context, float)
    h = np.clip(np.einsum("d,dk->k", x, np.asarray(W1, float)) + np.asarray(b1, float), 0.0, None)
    return h, np.einsum("vk,k->v", np.asarray(W_U, float), h)
''',
    "cross_entropy": '''def cross_entropy(logits, target):
    z = np.asarray(logits, float)
    shifted = z - z.max()
    log_probs = shifted - np.log(np.exp(shifted).sum())
    return float(-log_probs[target])
''',
    "grad_logits": '''def grad_logits(logits, target):
    z = np.asarray(logits, float)
    e = np.exp(z - z.max())
    p = e / e.sum()
    p[target] = p[target] - 1.0
    return p
''',
    "grad_unembedding": '''def grad_unembedding(h, logits, target):
    return np.einsum("v,d->vd", grad_logits(logits, target), np.asarray(h, float))
''',
    "sgd_update": '''def sgd_update(W, grad, lr):
    return np.subtract(np.asarray(W, float), np.multiply(lr, np.asarray(grad, float)))
''',
    "numerical_gradient": '''def numerical_gradient(loss_fn, W, index, eps=1e-5):
    base = np.asarray(W, float)
    step = np.zeros_like(base)
    step[index] = eps
    return float((loss_fn(base + step) - loss_fn(base - step)) / (2 * eps))
''',
}

STYLES = {"plain": PLAIN, "einsum": EINSUM}
