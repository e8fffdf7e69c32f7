"""r2_score: the coefficient of determination per output column (not differentiable, as in Chainer)."""

from __future__ import annotations

from typing import Any

from minigrad.functions.loss._common import float_pair, widened
from minigrad.variable import Variable

__all__ = ["r2_score"]

_MULTIOUTPUT = ("uniform_average", "raw_values")


def r2_score(pred: Any, true: Any, sample_weight: Any = None, multioutput: str = "uniform_average") -> Variable:
    """``1 - SS_res / SS_tot`` along axis 0, where ``SS_res = sum((pred - true)**2)`` and
    ``SS_tot = sum((true - mean(true))**2)``; an output whose ``true`` is constant
    (``SS_tot = 0``) scores 0, as in Chainer (even when the prediction is exact).

    The result is a constant of ``pred``'s dtype that needs no gradient.

    Args:
        pred: float estimates, shape ``(N, ...)`` with ``N >= 1``.
        true: the correct values, of ``pred``'s shape and dtype.
        sample_weight: only ``None`` is supported (as in Chainer; anything else
            is a ``NotImplementedError``).
        multioutput: ``"uniform_average"`` (the mean of the scores, a 0-dim
            Variable) or ``"raw_values"`` (one score per output, shape ``pred.shape[1:]``).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> true = np.array([[1.0, 0.0], [2.0, 0.0], [3.0, 0.0]])
        >>> pred = np.array([[1.0, 1.0], [2.5, 0.0], [2.5, 0.0]])
        >>> F.r2_score(pred, true, multioutput="raw_values").array  # 1 - 0.5 / 2, constant column -> 0
        array([0.75, 0.  ])
        >>> F.r2_score(pred, true).array
        array(0.375)
    """
    op = "r2_score"
    pred, true = float_pair(op, pred, true, ("pred", "true"))
    if sample_weight is not None:
        raise NotImplementedError(f"{op}: sample_weight is not supported (only None, as in Chainer), "
                                  f"got {type(sample_weight).__name__}")
    if multioutput not in _MULTIOUTPUT:
        raise ValueError(f"{op}: multioutput must be one of {', '.join(map(repr, _MULTIOUTPUT))}, got {multioutput!r}")
    if pred.ndim == 0 or len(pred) == 0:
        raise ValueError(f"{op}: pred must hold at least one sample along axis 0, got shape {pred.shape}")
    if multioutput == "uniform_average" and pred.size == 0:
        raise ValueError(f"{op}: multioutput='uniform_average' needs at least one output, got shape {pred.shape}")
    xp = pred.xp
    p, t = widened(pred.array), widened(true.array)
    ss_res = ((p - t) ** 2).sum(axis=0)
    ss_tot = ((t - t.mean(axis=0)) ** 2).sum(axis=0)
    constant_true = ss_tot == 0
    score = xp.where(constant_true, 0.0, 1.0 - ss_res / xp.where(constant_true, 1.0, ss_tot))
    if multioutput == "uniform_average":
        score = score.mean()
    return Variable(xp.asarray(score, dtype=pred.dtype), requires_grad=False)
