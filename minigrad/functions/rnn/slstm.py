"""slstm: one step of an S-LSTM cell, which merges two children's cells (Chainer's ``F.slstm``, after Zhu et al.
2015's S-LSTM).

Each of ``x1`` and ``x2`` holds four values per unit, interleaved as in ``lstm``:
unit ``u``'s cell input, input gate, forget gate and output gate are
``x[:, 4u]`` to ``x[:, 4u + 3]``. Composed of minigrad ops, so every order works.
"""

from __future__ import annotations

from typing import Any

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["slstm"]


def _gates(x: Variable, units: int) -> tuple[Variable, ...]:
    gates = F.reshape(x, (x.shape[0], units, 4) + x.shape[2:])
    return tuple(gates[:, :, k] for k in range(4))


def slstm(c_prev1: Any, c_prev2: Any, x1: Any, x2: Any) -> tuple[Variable, Variable]:
    """One S-LSTM step from two previous cells: returns the new cell state ``c`` and the output ``h``.

    With gates ``a1, i1, f1, o1`` from ``x1`` and ``a2, i2, f2, o2`` from ``x2``::

        c = tanh(a1) sigmoid(i1) + tanh(a2) sigmoid(i2) + sigmoid(f1) c_prev1 + sigmoid(f2) c_prev2
        h = sigmoid(o1 + o2) tanh(c)

    Args:
        c_prev1, c_prev2: the two cells, ``(B, units, ...)``, one shape and one float dtype.
        x1, x2: the gate inputs of each, ``(B, 4 * units, ...)``, of the cells' dtype.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> c, h = F.slstm(np.ones((1, 1)), np.ones((1, 1)), np.zeros((1, 4)), np.zeros((1, 4)))
        >>> c.array, h.array  # the two cells, each half forgotten: 0.5 + 0.5
        (array([[1.]]), array([[0.38079708]]))
    """
    op = "slstm"
    c1, c2, x1, x2 = (as_input(op, v, name, float_only=True) for v, name in (
        (c_prev1, "c_prev1"), (c_prev2, "c_prev2"), (x1, "x1"), (x2, "x2")))
    if len({c1.dtype, c2.dtype, x1.dtype, x2.dtype}) != 1:
        raise TypeError(f"{op}: c_prev1, c_prev2, x1 and x2 must have one dtype, got {c1.dtype}, {c2.dtype}, "
                        f"{x1.dtype} and {x2.dtype}")
    if c1.ndim < 2 or c2.shape != c1.shape:
        raise ValueError(f"{op}: c_prev1 and c_prev2 must have one shape (B, units, ...), got {c1.shape} and "
                         f"{c2.shape}")
    wanted = (c1.shape[0], 4 * c1.shape[1]) + c1.shape[2:]
    for x, name in ((x1, "x1"), (x2, "x2")):
        if x.shape != wanted:
            raise ValueError(f"{op}: {name} must have shape {wanted} (B, 4 * units, ...) for cells of shape "
                             f"{c1.shape}, got {x.shape}")
    a1, i1, f1, o1 = _gates(x1, c1.shape[1])
    a2, i2, f2, o2 = _gates(x2, c1.shape[1])
    c = F.tanh(a1) * F.sigmoid(i1) + F.tanh(a2) * F.sigmoid(i2) + F.sigmoid(f1) * c1 + F.sigmoid(f2) * c2
    return c, F.sigmoid(o1 + o2) * F.tanh(c)
