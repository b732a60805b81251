# %% [markdown]
# # Choosing the next word: greedy decoding, temperature and top-p sampling
#
# One way to read a text is to average the vectors of its tokens into one vector. It loses
# the order of the words, which is why attention exists, but it is a start.
#
# **What you implement** (fill every cell that says `raise NotImplementedError()`):
#
# | function | what it returns |
# |---|---|
# | `mean_vector(X)` | the average of the rows of `X` |
#
# Conventions: vectors are **rows**; arrays are numpy `float64`.
#
# **Visible checks.** Under the function a locked cell runs it on a worked example and prints
# PASS, or what was expected and what came back. After you submit, hidden checks with cases
# randomized for each student grade the notebook.

# %% module=true
import numpy as np

# %% checker=true

# %% [markdown]
# ## 1. The mean of the token vectors
#
# `X` holds one token vector per row, shape (T, d). Return their average, shape (d,).

# %% solution="mean_vector"
def mean_vector(X):
    """The average of the token vectors.

    Args:
        X: token vectors, one per row, shape (T, d), float.
    Returns:
        ndarray of shape (d,), float64: the mean of the rows.
    """
    ### BEGIN SOLUTION
    return np.asarray(X, dtype=float).mean(axis=0)
    ### END SOLUTION


# %% visible="mean_vector"

# %% tests="mean_vector"

# %% summary=true
