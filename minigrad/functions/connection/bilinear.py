"""bilinear: ``y[n, l] = sum_{j,k} e1[n, j] e2[n, k] W[j, k, l]`` (+ the linear terms and a bias).

Composed of a matmul, a product and a sum, so the gradient of every order
comes from theirs; the only intermediate is the (N, K, L) product.
"""

from __future__ import annotations

import math
from typing import Any

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.functions.checks import as_input, require_ndim
from minigrad.variable import Variable

__all__ = ["bilinear"]


def bilinear(e1: Any, e2: Any, W: Any, V1: Any = None, V2: Any = None, b: Any = None) -> Variable:
    """Bilinear function of two batches of vectors, as in Chainer.

    ``y[n, l] = sum_{j,k} e1[n, j] e2[n, k] W[j, k, l] + sum_j e1[n, j] V1[j, l]
    + sum_k e2[n, k] V2[k, l] + b[l]``; ``V1``, ``V2`` and ``b`` are all given or all omitted.

    Args:
        e1: left inputs of shape ``(N, J)`` (more axes are flattened into ``J``).
        e2: right inputs of shape ``(N, K)`` (likewise).
        W: the tensor of shape ``(J, K, L)``.
        V1: left linear weight of shape ``(J, L)``.
        V2: right linear weight of shape ``(K, L)``.
        b: bias of shape ``(L,)``.

    Returns:
        ``y`` of shape ``(N, L)``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> W = np.zeros((2, 2, 1)); W[0, 1, 0] = 1.0  # y = e1[0] * e2[1]
        >>> F.bilinear(np.array([[2.0, 5.0]]), np.array([[7.0, 3.0]]), W).array
        array([[6.]])
    """
    op = "bilinear"
    e1, e2, W = (as_input(op, value, name, float_only=True) for value, name in ((e1, "e1"), (e2, "e2"), (W, "W")))
    linear = (V1, V2, b)
    if any(v is None for v in linear) and not all(v is None for v in linear):
        given = ", ".join(name for name, v in zip(("V1", "V2", "b"), linear) if v is not None)
        raise ValueError(f"{op}: V1, V2 and b must be all given or all None, got only {given}")
    require_ndim(op, W, 3, "W")
    for value, name in ((e1, "e1"), (e2, "e2"), (W, "W")):
        if value.dtype != W.dtype:
            raise TypeError(f"{op}: {name} has dtype {value.dtype}, but W has dtype {W.dtype}")
    if e1.ndim < 2 or e2.ndim < 2 or e1.shape[0] != e2.shape[0]:
        raise ValueError(f"{op}: e1 and e2 must be batches (N, ...) of one size N, got shapes {e1.shape} and "
                         f"{e2.shape}")
    (J, K, L), n = W.shape, e1.shape[0]
    if math.prod(e1.shape[1:]) != J or math.prod(e2.shape[1:]) != K:
        raise ValueError(f"{op}: W of shape {W.shape} needs e1 of shape (N, {J}) and e2 of shape (N, {K}), got "
                         f"{e1.shape} and {e2.shape}")
    e1, e2 = F.reshape(e1, (n, J)), F.reshape(e2, (n, K))
    left = F.reshape(F.matmul(e1, F.reshape(W, (J, K * L))), (n, K, L))  # sum_j e1[n, j] W[j, k, l]
    y = F.sum(left * F.reshape(e2, (n, K, 1)), axis=1)
    if V1 is None:
        return y
    V1, V2, b = as_input(op, V1, "V1"), as_input(op, V2, "V2"), as_input(op, b, "b")
    for value, name, shape in ((V1, "V1", (J, L)), (V2, "V2", (K, L)), (b, "b", (L,))):
        if value.shape != shape:
            raise ValueError(f"{op}: {name} must have shape {shape} to match W of shape {W.shape}, got {value.shape}")
        if value.dtype != W.dtype:
            raise TypeError(f"{op}: {name} has dtype {value.dtype}, but W has dtype {W.dtype}")
    return y + F.matmul(e1, V1) + F.matmul(e2, V2) + b
