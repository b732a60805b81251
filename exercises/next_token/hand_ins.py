"""Realistic mistakes in the next_token exercise: the ones the course text names, and a few more."""
from autograder.authoring import Mistake

E = "next_token"

MISTAKES = [
    Mistake(E, "sgd_update", "sign_flipped", '''
def sgd_update(W, grad, lr):
    return np.asarray(W, dtype=float) + lr * np.asarray(grad, dtype=float)   # uphill
''', failing=("check_sgd_one_weight",
              "check_sgd_random"),
        feedback="add the gradient instead of subtracting it"),

    Mistake(E, "sgd_update", "mutates_input", '''
def sgd_update(W, grad, lr):
    W -= lr * grad          # changes the caller's array
    return W
''', failing=("check_sgd_no_mutation",),
        feedback="update W in place"),

    Mistake(E, "grad_logits", "y_minus_p", '''
def grad_logits(logits, target):
    y = np.zeros(len(logits))
    y[target] = 1.0
    return y - softmax(logits)
''', failing=("check_grad_logits_sat",
              "check_grad_logits_random"),
        feedback="compute y - p instead of p - y"),

    Mistake(E, "grad_unembedding", "h_factor_dropped", '''
def grad_unembedding(h, logits, target):
    return grad_logits(logits, target)      # the chain rule's h_j is missing
''', failing=("check_grad_unembedding_sat",
              "check_grad_unembedding_random"),
        feedback="drop the h factor"),

    Mistake(E, "grad_unembedding", "only_target_row", '''
def grad_unembedding(h, logits, target):
    h = np.asarray(h, dtype=float)
    G = np.zeros((len(logits), len(h)))
    G[target] = (softmax(logits)[target] - 1.0) * h   # the other rows get a gradient too
    return G
''', failing=("check_grad_unembedding_sat",
              "check_grad_unembedding_random"),
        feedback="fill only the target word's row"),

    Mistake(E, "grad_unembedding", "one_entry_for_whole_matrix", '''
def grad_unembedding(h, logits, target):
    return float((softmax(logits)[target] - 1.0) * h[0])   # just dL/dW_U[target, 0]
''', failing=("check_grad_unembedding_sat",
              "check_grad_unembedding_random"),
        feedback="return one entry of dL/dW_U where the whole (V, d) matrix is asked"),

    Mistake(E, "numerical_gradient", "perturbs_whole_matrix", '''
def numerical_gradient(loss_fn, W, index, eps=1e-5):
    W = np.asarray(W, dtype=float)
    return (loss_fn(W + eps) - loss_fn(W - eps)) / (2 * eps)   # every entry moves
''', failing=("check_numerical_sat",
              "check_numerical_random",
              "check_numerical_cubic"),
        feedback="perturb the whole matrix"),

    Mistake(E, "numerical_gradient", "forgets_to_restore", '''
def numerical_gradient(loss_fn, W, index, eps=1e-5):
    W[index] += eps
    above = loss_fn(W)
    W[index] -= 2 * eps
    below = loss_fn(W)          # W[index] is left eps below where it started
    return (above - below) / (2 * eps)
''', failing=("check_numerical_no_mutation",),
        feedback="put the entry back after measuring"),

    Mistake(E, "numerical_gradient", "one_sided_difference", '''
def numerical_gradient(loss_fn, W, index, eps=1e-5):
    nudged = np.array(W, dtype=float)
    nudged[index] += eps
    return (loss_fn(nudged) - loss_fn(np.array(W, dtype=float))) / eps
''', failing=("check_numerical_cubic",),
        feedback="one-sided difference"),

    Mistake(E, "cross_entropy", "log_of_softmax_underflows", '''
def cross_entropy(logits, target):
    return float(-np.log(softmax(logits)[target]))   # log(0) when p underflows
''', failing=("check_loss_extreme",
              "check_loss_random"),
        feedback="underflows to log(0)"),

    Mistake(E, "cross_entropy", "unshifted_exponentials", '''
def cross_entropy(logits, target):
    e = np.exp(np.asarray(logits, dtype=float))      # exp(1000) = inf
    return float(-np.log(e[target] / e.sum()))
''', failing=("check_loss_extreme",
              "check_loss_random"),
        feedback="without first subtracting the largest one"),

    Mistake(E, "forward", "no_relu", '''
def forward(context, W1, b1, W_U):
    h = np.asarray(context, dtype=float) @ W1 + b1      # ReLU forgotten
    return h, np.asarray(W_U, dtype=float) @ h
''', failing=("check_forward_random",),
        feedback="forget the ReLU"),

    Mistake(E, "forward", "column_convention", '''
def forward(context, W1, b1, W_U):
    h = np.maximum(np.asarray(W1, dtype=float) @ context + b1, 0.0)
    return h, np.asarray(W_U, dtype=float) @ h
''', failing=("check_forward_h", "check_forward_logits",
              "check_forward_random"),
        feedback="column convention"),
]

# The mistakes the course text names, and a phrase the visible check that catches each must
# print (tests/course/test_visible.py hands each in to the released notebook).
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
