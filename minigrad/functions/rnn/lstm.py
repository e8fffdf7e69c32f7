"""lstm: one step of a long short-term memory cell, from the previous cell state and the gate inputs.

Composed of minigrad ops (so every derivative order works). The gate inputs
``x`` hold four values per unit, interleaved as Chainer lays them out: unit
``u``'s cell input, input gate, forget gate and output gate are ``x[:, 4u]``,
``x[:, 4u + 1]``, ``x[:, 4u + 2]`` and ``x[:, 4u + 3]``.
"""

from __future__ import annotations

from typing import Any

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["lstm"]


def lstm(c_prev: Any, x: Any) -> tuple[Variable, Variable]:
    """One LSTM step: returns the new cell state ``c`` and the output ``h``.

    With gates ``a, i, f, o`` taken from ``x`` (see the module docstring)::

        c = tanh(a) * sigmoid(i) + sigmoid(f) * c_prev
        h = sigmoid(o) * tanh(c)

    Args:
        c_prev: the previous cell state, ``(B, units, ...)``. It may have more
            rows than ``x`` (a batch that shrinks over time, as in Chainer):
            the rows past ``len(x)`` are carried into ``c`` unchanged and get
            no output.
        x: the gate inputs, ``(b, 4 * units, ...)`` with ``b <= B``, of
            ``c_prev``'s dtype.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> c, h = F.lstm(np.zeros((1, 1)), np.array([[0.0, 0.0, 0.0, 0.0]]))
        >>> c.array, h.array  # tanh(0) = 0 into the cell
        (array([[0.]]), array([[0.]]))
    """
    c_prev = as_input("lstm", c_prev, "c_prev", float_only=True)
    x = as_input("lstm", x, "x", float_only=True)
    if x.dtype != c_prev.dtype:
        raise TypeError(f"lstm: c_prev and x must have the same dtype, got {c_prev.dtype} and {x.dtype}")
    if x.ndim < 2 or x.shape[1] % 4:
        raise ValueError(f"lstm: x must have shape (batch, 4 * units, ...), got {x.shape}")
    units = x.shape[1] // 4
    batch = x.shape[0]
    if c_prev.shape[1:] != (units,) + x.shape[2:] or c_prev.shape[0] < batch:
        raise ValueError(f"lstm: c_prev must have shape (B, {units}, ...) with B >= {batch} for x of shape "
                         f"{x.shape}, got {c_prev.shape}")
    gates = F.reshape(x, (batch, units, 4) + x.shape[2:])
    a, i, f, o = (gates[:, :, k] for k in range(4))
    c_carried = c_prev if c_prev.shape[0] == batch else c_prev[:batch]
    c = F.tanh(a) * F.sigmoid(i) + F.sigmoid(f) * c_carried
    h = F.sigmoid(o) * F.tanh(c)
    if c_prev.shape[0] > batch:
        c = F.concat((c, c_prev[batch:]), axis=0)
    return c, h
