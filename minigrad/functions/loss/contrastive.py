"""contrastive: the siamese-pair loss ``(y d**2 + (1 - y) max(margin - d, 0)**2) / 2`` (Chainer's definition).

``d`` is the Euclidean distance between the rows of ``x0`` and ``x1``. Composed
of minigrad ops, so every order of derivative works. The loss of a dissimilar
pair has a kink at ``d = margin`` (its second derivative jumps) and a cone
tip at ``d = 0``, where no gradient exists: there the gradient is taken as 0
(the square root is never evaluated at 0, so nothing turns into NaN).
"""

from __future__ import annotations

from typing import Any

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.functions.checks import as_input, constant, require_ndim, require_real
from minigrad.functions.loss._common import check_reduce, float_pair, require_batch, sum_divided
from minigrad.variable import Variable

__all__ = ["contrastive"]


def contrastive(x0: Any, x1: Any, y: Any, margin: float = 1, reduce: str = "mean") -> Variable:
    """Contrastive loss of pairs of rows of ``x0`` and ``x1`` (N, K) with labels ``y`` (N,).

    With ``d[n] = ||x0[n] - x1[n]||_2``, the loss of pair ``n`` is
    ``(y[n] * d[n]**2 + (1 - y[n]) * max(margin - d[n], 0)**2) / 2``: similar
    pairs (``y = 1``) are pulled together, dissimilar ones (``y = 0``) pushed
    at least ``margin`` apart.

    Args:
        x0, x1: float arrays of shape ``(N, K)``, one dtype, ``N >= 1``.
        y: integer labels of shape ``(N,)``, each 0 or 1; ``y`` gets no gradient.
        margin: a positive number.
        reduce: ``"mean"`` (the sum over pairs divided by ``N``, a 0-dim
            Variable) or ``"no"`` (one loss per pair, shape ``(N,)``).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x0 = np.array([[0.0, 0.0], [0.0, 0.0]])
        >>> x1 = np.array([[3.0, 4.0], [0.3, 0.4]])
        >>> F.contrastive(x0, x1, np.array([1, 0]), reduce="no").array  # 25 / 2, (1 - 0.5)**2 / 2
        array([12.5  ,  0.125])
    """
    op = "contrastive"
    x0, x1 = float_pair(op, x0, x1)
    y = as_input(op, y, "y")
    require_ndim(op, x0, 2, "x0")
    if y.dtype.kind not in "iu":
        raise TypeError(f"{op}: y must hold integer labels (0 or 1), got dtype {y.dtype}")
    if y.shape != x0.shape[:1]:
        raise ValueError(f"{op}: y must have shape {x0.shape[:1]} for x0 of shape {x0.shape}, got {y.shape}")
    labels = y.array
    if bool(((labels != 0) & (labels != 1)).any()):
        wrong = labels[(labels != 0) & (labels != 1)][:5].tolist()
        raise ValueError(f"{op}: y must hold only 0 and 1, got {wrong} (shape {y.shape})")
    margin = require_real(op, margin, "margin", positive=True)
    check_reduce(op, reduce, ("mean", "no"))
    n = require_batch(op, x0, "x0")
    diff = x0 - x1
    dist_sq = F.sum(diff * diff, axis=1)
    apart = constant(dist_sq.array > 0)
    # sqrt only where d > 0: its gradient there is finite, and F.where sends none to the masked-out zeros
    dist = F.where(apart.array, F.sqrt(F.where(apart.array, dist_sq, 1.0)), 0.0)
    short = F.relu(margin - dist)
    similar = constant((labels == 1).astype(x0.dtype))
    loss = (similar * dist_sq + (1.0 - similar) * short * short) * 0.5
    return loss if reduce == "no" else sum_divided(loss, n)
