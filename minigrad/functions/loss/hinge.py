"""hinge: the one-vs-rest hinge loss of class scores, ``max(0, 1 - delta * x) ** p`` (Chainer's definition).

``delta`` is +1 at each sample's true class and -1 at the other classes, so a
true-class score wants to reach +1 and every other score -1; ``p`` is 1 for
``norm="L1"`` and 2 for ``norm="L2"``. Composed of minigrad ops (relu, mul),
so every order of derivative works; the kinks are at ``x = delta``.
"""

from __future__ import annotations

from typing import Any

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.functions.checks import as_input, constant, require_labels, require_ndim
from minigrad.functions.loss._common import check_reduce, require_batch, sum_divided
from minigrad.variable import Variable

__all__ = ["hinge"]


def hinge(x: Any, t: Any, norm: str = "L1", reduce: str = "mean") -> Variable:
    """Hinge loss of scores ``x`` (N, K) for integer labels ``t`` (N,) in ``[0, K)``.

    With ``delta[n, k] = 1`` where ``k == t[n]`` and ``-1`` elsewhere, each
    element is ``max(0, 1 - delta * x) ** p`` (``p = 1`` for ``"L1"``, 2 for ``"L2"``).

    Args:
        x: float scores of shape ``(N, K)``.
        t: integer labels of shape ``(N,)``, each in ``[0, K)`` (no ignore label).
        norm: ``"L1"`` or ``"L2"``.
        reduce: ``"mean"`` (the sum of all ``N * K`` elements divided by ``N``,
            as in Chainer; a 0-dim Variable) or ``"no"`` (the ``(N, K)`` elements).
            An empty batch is a ``ValueError`` with ``"mean"``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.array([[0.5, -2.0], [0.0, 1.0]])
        >>> F.hinge(x, np.array([0, 1]), reduce="no").array
        array([[0.5, 0. ],
               [1. , 0. ]])
        >>> F.hinge(x, np.array([0, 1])).array  # (0.5 + 1) / 2
        array(0.75)
    """
    op = "hinge"
    x = as_input(op, x, float_only=True)
    t = as_input(op, t, "t")
    require_ndim(op, x, 2)
    if t.dtype.kind not in "iu":
        raise TypeError(f"{op}: t must hold integer class labels, got dtype {t.dtype}")
    if t.shape != x.shape[:1]:
        raise ValueError(f"{op}: t must have shape {x.shape[:1]} for x of shape {x.shape}, got {t.shape}")
    if norm not in ("L1", "L2"):
        raise ValueError(f"{op}: norm must be 'L1' or 'L2', got {norm!r}")
    check_reduce(op, reduce, ("mean", "no"))
    require_labels(op, t, x.shape[1], None)
    if reduce == "mean":
        require_batch(op, x)
    xp = x.xp
    delta = xp.full(x.shape, -1, dtype=x.dtype)
    delta[xp.arange(len(t.array)), t.array] = 1
    loss = F.relu(1.0 - constant(delta) * x)
    if norm == "L2":
        loss = loss * loss
    return loss if reduce == "no" else sum_divided(loss, len(x))
