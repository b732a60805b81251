"""Realistic mistakes in the next_token exercise: the ones the course text names, and a few more."""
from autograder.authoring import Mistake

E = "next_token"

MISTAKES = [
    Mistake(E, "sgd_update", "sign_flipped", '''
def sgd_update(W, grad, lr):
    return np.asarray(W, dtype=float) + lr * np.asarray(grad, dtype=float)   # uphill
''', failing=("sgd_update: one step on W_U[sat, 0] alone with lr 0.5",
              "sgd_update: random shapes and learning rates"),
        feedback="add the gradient instead of subtracting it"),

    Mistake(E, "sgd_update", "mutates_input", '''
def sgd_update(W, grad, lr):
    W -= lr * grad          # changes the caller's array
    return W
''', failing=("sgd_update: returns a new array and leaves W unchanged",),
        feedback="update W in place"),

    Mistake(E, "grad_logits", "y_minus_p", '''
def grad_logits(logits, target):
    y = np.zeros(len(logits))
    y[target] = 1.0
    return y - softmax(logits)
''', failing=('grad_logits: p - y for the target "sat"',
              "grad_logits: random vocabularies and targets, large logits"),
        feedback="compute y - p instead of p - y"),

    Mistake(E, "grad_unembedding", "h_factor_dropped", '''
def grad_unembedding(h, logits, target):
    return grad_logits(logits, target)      # the chain rule's h_j is missing
''', failing=('grad_unembedding: the whole (5, 2) gradient for "the cat", target "sat"',
              "grad_unembedding: random sizes and targets"),
        feedback="drop the h factor"),

    Mistake(E, "grad_unembedding", "only_target_row", '''
def grad_unembedding(h, logits, target):
    h = np.asarray(h, dtype=float)
    G = np.zeros((len(logits), len(h)))
    G[target] = (softmax(logits)[target] - 1.0) * h   # the other rows get a gradient too
    return G
''', failing=('grad_unembedding: the whole (5, 2) gradient for "the cat", target "sat"',
              "grad_unembedding: random sizes and targets"),
        feedback="fill only the target word's row"),

    Mistake(E, "grad_unembedding", "one_entry_for_whole_matrix", '''
def grad_unembedding(h, logits, target):
    return float((softmax(logits)[target] - 1.0) * h[0])   # just dL/dW_U[target, 0]
''', failing=('grad_unembedding: the whole (5, 2) gradient for "the cat", target "sat"',
              "grad_unembedding: random sizes and targets"),
        feedback="return one entry of dL/dW_U where the whole (V, d) matrix is asked"),

    Mistake(E, "numerical_gradient", "perturbs_whole_matrix", '''
def numerical_gradient(loss_fn, W, index, eps=1e-5):
    W = np.asarray(W, dtype=float)
    return (loss_fn(W + eps) - loss_fn(W - eps)) / (2 * eps)   # every entry moves
''', failing=('numerical_gradient: W_U[sat, 0] of "the cat": -0.702883',
              "numerical_gradient: random unembeddings and entries, against dL/dW_U",
              "numerical_gradient: uses eps, and the central difference"),
        feedback="perturb the whole matrix"),

    Mistake(E, "numerical_gradient", "forgets_to_restore", '''
def numerical_gradient(loss_fn, W, index, eps=1e-5):
    W[index] += eps
    above = loss_fn(W)
    W[index] -= 2 * eps
    below = loss_fn(W)          # W[index] is left eps below where it started
    return (above - below) / (2 * eps)
''', failing=("numerical_gradient: leaves W as it was",),
        feedback="put the entry back after measuring"),

    Mistake(E, "numerical_gradient", "one_sided_difference", '''
def numerical_gradient(loss_fn, W, index, eps=1e-5):
    nudged = np.array(W, dtype=float)
    nudged[index] += eps
    return (loss_fn(nudged) - loss_fn(np.array(W, dtype=float))) / eps
''', failing=("numerical_gradient: uses eps, and the central difference",),
        feedback="one-sided difference"),

    Mistake(E, "cross_entropy", "log_of_softmax_underflows", '''
def cross_entropy(logits, target):
    return float(-np.log(softmax(logits)[target]))   # log(0) when p underflows
''', failing=("cross_entropy: logits (1000, 0) with target 1 give 1000, not inf",
              "cross_entropy: random vocabularies and targets, huge and tiny probabilities"),
        feedback="underflows to log(0)"),

    Mistake(E, "cross_entropy", "unshifted_exponentials", '''
def cross_entropy(logits, target):
    e = np.exp(np.asarray(logits, dtype=float))      # exp(1000) = inf
    return float(-np.log(e[target] / e.sum()))
''', failing=("cross_entropy: logits (1000, 0) with target 1 give 1000, not inf",
              "cross_entropy: random vocabularies and targets, huge and tiny probabilities"),
        feedback="without first subtracting the largest one"),

    Mistake(E, "forward", "no_relu", '''
def forward(context, W1, b1, W_U):
    h = np.asarray(context, dtype=float) @ W1 + b1      # ReLU forgotten
    return h, np.asarray(W_U, dtype=float) @ h
''', failing=("forward: random sizes, with negative pre-activations",),
        feedback="forget the ReLU"),

    Mistake(E, "forward", "column_convention", '''
def forward(context, W1, b1, W_U):
    h = np.maximum(np.asarray(W1, dtype=float) @ context + b1, 0.0)
    return h, np.asarray(W_U, dtype=float) @ h
''', failing=('forward: h for the context vector of "cat"', 'forward: the five logits for "the cat"',
              "forward: random sizes, with negative pre-activations"),
        feedback="column convention"),
]

# The mistakes the course text names, and a phrase the visible check that catches each must
# print (tests/test_visible.py hands each in to the released notebook).
NAMED = {
    'y_minus_p': 'compute y - p instead of p - y',
    'sign_flipped': 'add the gradient instead of subtracting it',
}

# Who hands in which of these in the demo class (autograder.demo.students).
DEMO = {
    'cy': ['sign_flipped'],
    'dee': ['y_minus_p'],
    'eve': ['mutates_input'],
}
