"""The demo students' own next-token code (see the package's docstring). eve's is cy's, disguised:
the planted near-copy of the demo (``students.COPY``)."""

STYLES = {
    # cy: every intermediate named, loops where the maths has a sum
    "cy": '''
import math

def forward(context, W1, b1, W_U):
    x = np.asarray(context, dtype=float)
    first = np.asarray(W1, dtype=float)
    bias = np.asarray(b1, dtype=float)
    unembed = np.asarray(W_U, dtype=float)
    pre = x.dot(first) + bias
    hidden = np.where(pre > 0, pre, 0.0)
    logits = np.array([row.dot(hidden) for row in unembed])
    return hidden, logits

def cross_entropy(logits, target):
    scores = [float(s) for s in logits]
    biggest = max(scores)
    total = 0.0
    for s in scores:
        total += math.exp(s - biggest)
    log_normaliser = biggest + math.log(total)
    return log_normaliser - scores[target]

def grad_logits(logits, target):
    scores = np.asarray(logits, dtype=float)
    shifted = np.exp(scores - scores.max())
    probs = shifted / shifted.sum()
    one_hot = np.zeros_like(probs)
    one_hot[target] = 1.0
    return probs - one_hot

def grad_unembedding(h, logits, target):
    delta = grad_logits(logits, target)
    hidden = np.asarray(h, dtype=float)
    G = np.zeros((len(delta), len(hidden)))
    for i in range(len(delta)):
        G[i, :] = delta[i] * hidden
    return G

def sgd_update(W, grad, lr):
    step = lr * np.asarray(grad, dtype=float)
    return np.asarray(W, dtype=float) - step

def numerical_gradient(loss_fn, W, index, eps=1e-5):
    plus = np.array(W, dtype=float, copy=True)
    minus = np.array(W, dtype=float, copy=True)
    plus[index] = plus[index] + eps
    minus[index] = minus[index] - eps
    loss_plus = loss_fn(plus)
    loss_minus = loss_fn(minus)
    return float((loss_plus - loss_minus) / (2 * eps))
''',
    # dee: compact numpy, the log-softmax written once
    "dee": '''
def forward(context, W1, b1, W_U):
    h = np.maximum(0, np.asarray(context, float) @ np.asarray(W1, float) + b1)
    return h, np.einsum("vd,d->v", np.asarray(W_U, float), h)

def cross_entropy(logits, target):
    z = np.asarray(logits, float)
    log_probs = z - z.max() - np.log(np.exp(z - z.max()).sum())
    return float(-log_probs[target])

def grad_logits(logits, target):
    z = np.asarray(logits, float)
    p = np.exp(z - z.max())
    p /= p.sum()
    p[target] -= 1
    return p

def grad_unembedding(h, logits, target):
    return grad_logits(logits, target)[:, None] * np.asarray(h, float)[None, :]

def sgd_update(W, grad, lr):
    new = np.array(W, float)
    new -= lr * np.asarray(grad, float)
    return new

def numerical_gradient(loss_fn, W, index, eps=1e-5):
    def loss_at(delta):
        moved = np.array(W, float)
        moved[index] += delta
        return loss_fn(moved)
    return float((loss_at(eps) - loss_at(-eps)) / eps / 2)
''',
    # eve: cy's code with the names changed, comments added, statements and cells moved around
    "eve": '''
def numerical_gradient(loss_fn, W, index, eps=1e-5):
    # central difference
    down = np.array(W, dtype=float, copy=True)
    up = np.array(W, dtype=float, copy=True)
    up[index] = up[index] + eps
    down[index] = down[index] - eps
    f_up = loss_fn(up)
    f_down = loss_fn(down)
    return float((f_up - f_down) / (2 * eps))

def grad_logits(logits, target):
    z = np.asarray(logits, dtype=float)
    ez = np.exp(z - z.max())
    p = ez / ez.sum()
    y = np.zeros_like(p)
    y[target] = 1.0
    return p - y   # p - y

import math

def forward(context, W1, b1, W_U):
    W_U_arr = np.asarray(W_U, dtype=float)
    b = np.asarray(b1, dtype=float)
    W = np.asarray(W1, dtype=float)
    inp = np.asarray(context, dtype=float)
    z = inp.dot(W) + b
    h = np.where(z > 0, z, 0.0)   # relu
    out = np.array([r.dot(h) for r in W_U_arr])
    return h, out

def cross_entropy(logits, target):
    vals = [float(v) for v in logits]
    m = max(vals)
    s = 0.0
    for v in vals:
        s += math.exp(v - m)
    lse = m + math.log(s)
    return lse - vals[target]

def grad_unembedding(h, logits, target):
    d = grad_logits(logits, target)
    hv = np.asarray(h, dtype=float)
    grad = np.zeros((len(d), len(hv)))
    for r in range(len(d)):
        grad[r, :] = d[r] * hv
    return grad

def sgd_update(W, grad, lr):
    return np.asarray(W, dtype=float) - lr * np.asarray(grad, dtype=float)
''',
}
