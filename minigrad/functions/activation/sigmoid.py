"""Sigmoid-shaped activations: sigmoid, hard_sigmoid, and swish (``x * sigmoid(beta * x)``)."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.functions._elementwise import elementwise
from minigrad.functions.checks import as_input, constant
from minigrad.variable import Variable

__all__ = ["Sigmoid", "HardSigmoid", "sigmoid", "hard_sigmoid", "swish"]


def _sigmoid(xp: Any, x: Any) -> Any:
    half = x.dtype.type(0.5)
    # 1 / (1 + exp(-x)) written through tanh: no overflow for any x, in any dtype.
    return xp.tanh(x * half) * half + half


def _hard_sigmoid(xp: Any, x: Any) -> Any:
    dtype = x.dtype.type
    return xp.clip(x * dtype(0.2) + dtype(0.5), dtype(0), dtype(1))


def _hard_sigmoid_slope(x: Variable) -> Variable:
    inside = abs(x.array) < x.dtype.type(2.5)
    return constant(inside.astype(x.dtype) * x.dtype.type(0.2))


# name, forward f(xp, x), backward gx(gy, x, y): see minigrad.functions._elementwise.
Sigmoid = elementwise("Sigmoid", _sigmoid, lambda gy, x, y: gy * (y - y * y), uses="y")
HardSigmoid = elementwise("HardSigmoid", _hard_sigmoid, lambda gy, x, y: gy * _hard_sigmoid_slope(x))


def sigmoid(x: Any) -> Variable:
    """Logistic sigmoid, ``1 / (1 + exp(-x))`` elementwise.

    Args:
        x: float Variable or array.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.sigmoid(np.array([0.0, 2.0])).array
        array([0.5       , 0.88079708])
    """
    return Sigmoid().apply((as_input("sigmoid", x, float_only=True),))[0]


def hard_sigmoid(x: Any) -> Variable:
    """Piecewise-linear sigmoid, ``clip(0.2 * x + 0.5, 0, 1)`` (kinks at ``x = +-2.5``).

    Args:
        x: float Variable or array.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.hard_sigmoid(np.array([-3.0, 0.0, 1.0])).array
        array([0. , 0.5, 0.7])
    """
    return HardSigmoid().apply((as_input("hard_sigmoid", x, float_only=True),))[0]


def swish(x: Any, beta: Any) -> Variable:
    """Swish, ``x * sigmoid(beta * x)``, with a learnable ``beta`` per channel.

    ``beta`` is aligned with ``x``'s axes starting at axis 1 (the channel
    axis), like a Chainer parameter: its shape must be
    ``x.shape[1:1 + beta.ndim]``; it is broadcast over the batch axis and any
    trailing axes, and its gradient is summed back over them.

    Args:
        x: float Variable or array of shape ``(N, C, ...)``.
        beta: float Variable or array of shape ``x.shape[1:1 + beta.ndim]``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.swish(np.array([[1.0, -1.0]]), np.array([1.0, 0.0])).array
        array([[ 0.73105858, -0.5       ]])
    """
    x = as_input("swish", x, float_only=True)
    beta = as_input("swish", beta, "beta", float_only=True)
    if x.ndim < 1 + beta.ndim or x.shape[1:1 + beta.ndim] != beta.shape:
        raise ValueError(
            f"swish: beta must have shape x.shape[1:1 + beta.ndim]; got beta of shape {beta.shape} "
            f"for x of shape {x.shape}"
        )
    if beta.dtype != x.dtype:
        raise TypeError(f"swish: beta must have x's dtype {x.dtype}, got {beta.dtype}")
    extended = (1,) + beta.shape + (1,) * (x.ndim - 1 - beta.ndim)
    return x * sigmoid(F.reshape(beta, extended) * x)
