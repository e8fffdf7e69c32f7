"""Exercise 1: a numerical gradient, by central differences.

Write ``numerical_grad(f, x, eps)``: ``f`` takes a float64 array shaped like ``x`` and returns a Python float;
return the array of df/dx[i] for every element i (the same shape as ``x``), each estimated from two calls,
f(x + eps e_i) and f(x - eps e_i). Leave ``x`` as you found it.

Grade it:  python -m minigrad exercise 1 this_file.py
"""

import numpy as np


def numerical_grad(f, x, eps=1e-4):
    grad = np.zeros_like(x)
    # for each index i of x (np.ndindex(x.shape) visits them all):
    #     nudge x[i] up by eps, evaluate f, nudge it down by eps, evaluate f, put x[i] back;
    #     grad[i] is the difference of the two values over 2 * eps
    raise NotImplementedError("exercise 1: write numerical_grad (central differences: (f(x + eps) - f(x - eps)) / "
                              "(2 eps), one element of x at a time)")
    return grad
