"""tree_lstm: one step of a tree LSTM cell over ``N`` children (Chainer's ``F.tree_lstm``: Tai et al. 2015's
N-ary and Child-Sum TreeLSTM, with Bowman et al.'s per-child forget gates).

Unlike ``lstm``'s interleaved gates, ``x`` is cut into ``3 + N`` consecutive
blocks of ``units`` channels: ``a`` (cell input), ``i``, ``o``, then the forget
gates ``f1 ... fN``. Composed of minigrad ops, so every order works.
"""

from __future__ import annotations

from typing import Any

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["tree_lstm"]


def tree_lstm(*inputs: Any) -> tuple[Variable, Variable]:
    """One TreeLSTM step: ``tree_lstm(c1, ..., cN, x)`` returns the new cell state ``c`` and the output ``h``::

        c = tanh(a) sigmoid(i) + sigmoid(f1) c1 + ... + sigmoid(fN) cN
        h = sigmoid(o) tanh(c)

    Args:
        inputs: the children's cells ``c1 ... cN`` (``N >= 1``), each ``(B, units, ...)`` of one shape, then
            ``x``, ``(B, (3 + N) * units, ...)``: the blocks ``a, i, o, f1, ..., fN``; one float dtype.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.array([[0.0, 0.0, 0.0, 100.0, -100.0]])   # a, i, o, f1 (keep c1), f2 (forget c2)
        >>> c, h = F.tree_lstm(np.array([[2.0]]), np.array([[5.0]]), x)
        >>> c.array, h.array
        (array([[2.]]), array([[0.48201379]]))
    """
    op = "tree_lstm"
    if len(inputs) < 2:
        raise TypeError(f"{op}: takes the children's cells and x (at least 2 arguments), got {len(inputs)}")
    cells = [as_input(op, c, f"c{k}", float_only=True) for k, c in enumerate(inputs[:-1], start=1)]
    x = as_input(op, inputs[-1], "x", float_only=True)
    n = len(cells)
    if any(c.dtype != x.dtype for c in cells):
        raise TypeError(f"{op}: the cells and x must have one dtype, got {[str(c.dtype) for c in cells]} and "
                        f"{x.dtype}")
    shape = cells[0].shape
    if len(shape) < 2 or any(c.shape != shape for c in cells):
        raise ValueError(f"{op}: the cells must have one shape (B, units, ...), got {[c.shape for c in cells]}")
    wanted = (shape[0], (3 + n) * shape[1]) + shape[2:]
    if x.shape != wanted:
        raise ValueError(f"{op}: x must have shape {wanted} (B, (3 + N) * units, ...) for {n} cells of shape "
                         f"{shape}, got {x.shape}")
    blocks = F.reshape(x, (shape[0], 3 + n) + shape[1:])
    a, i, o, *forget = (blocks[:, k] for k in range(3 + n))
    c = F.tanh(a) * F.sigmoid(i)
    for f, cell in zip(forget, cells):
        c = c + F.sigmoid(f) * cell
    return c, F.sigmoid(o) * F.tanh(c)
