"""triplet: ``max(||a - p||**2 - ||a - n||**2 + margin, 0)`` per sample (Chainer's definition, squared distances).

Composed of minigrad ops, so every order of derivative works; the kink is
where ``||a - p||**2 - ||a - n||**2 + margin = 0``.
"""

from __future__ import annotations

from typing import Any

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.functions.checks import require_ndim, require_real
from minigrad.functions.loss._common import check_reduce, float_pair, require_batch, sum_divided
from minigrad.variable import Variable

__all__ = ["triplet"]


def triplet(anchor: Any, positive: Any, negative: Any, margin: float = 0.2, reduce: str = "mean") -> Variable:
    """Triplet loss: each anchor should be nearer its positive than its negative by ``margin``.

    For each row ``i``, ``max(d(a_i, p_i) - d(a_i, n_i) + margin, 0)`` where
    ``d`` is the *squared* Euclidean distance, as in Chainer.

    Args:
        anchor, positive, negative: float arrays of shape ``(N, K)``, one dtype, ``N >= 1``.
        margin: a positive number.
        reduce: ``"mean"`` (the sum over samples divided by ``N``, a 0-dim
            Variable) or ``"no"`` (one loss per sample, shape ``(N,)``).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> a = np.array([[0.0, 0.0], [0.0, 0.0]])
        >>> p = np.array([[1.0, 0.0], [0.5, 0.0]])
        >>> n = np.array([[0.0, 1.0], [0.0, 2.0]])
        >>> F.triplet(a, p, n, reduce="no").array  # 1 - 1 + 0.2, max(0.25 - 4 + 0.2, 0)
        array([0.2, 0. ])
    """
    op = "triplet"
    anchor, positive = float_pair(op, anchor, positive, ("anchor", "positive"))
    _, negative = float_pair(op, anchor, negative, ("anchor", "negative"))
    require_ndim(op, anchor, 2, "anchor")
    margin = require_real(op, margin, "margin", positive=True)
    check_reduce(op, reduce, ("mean", "no"))
    n = require_batch(op, anchor, "anchor")
    to_positive, to_negative = anchor - positive, anchor - negative
    loss = F.relu(F.sum(to_positive * to_positive - to_negative * to_negative, axis=1) + margin)
    return loss if reduce == "no" else sum_divided(loss, n)
