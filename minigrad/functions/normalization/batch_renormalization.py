"""Batch renormalization (Chainer's ``batch_renormalization`` and the deprecated ``fixed_batch_renormalization``).

Composed of minigrad ops: the batch statistics are differentiated as in batch
normalization, the corrections ``r`` and ``d`` are constants of the graph.
Arguments and mixed dtypes are handled by ``batch_normalization.py``'s helpers.
"""

from __future__ import annotations

import warnings
from typing import Any

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.functions.checks import as_input, constant, in_dtype, require_flag, require_real
from minigrad.functions.normalization.batch_normalization import (
    _batch_size,
    _compute_dtype,
    _kept_shape,
    _prepare,
    _require_decay,
    _update_running,
)
from minigrad.variable import Variable

__all__ = ["batch_renormalization", "fixed_batch_renormalization"]


def batch_renormalization(x: Any, gamma: Any, beta: Any, rmax: float, dmax: float, eps: float = 2e-5,
                          running_mean: Any = None, running_var: Any = None, decay: float = 0.9,
                          update_statistics: bool = False) -> Variable:
    """Batch renormalization (Chainer's): batch normalization corrected towards the running statistics.

    ``y = gamma * ((x - mean) / std * r + d) + beta`` with the batch's ``mean`` and
    ``std = sqrt(var + eps)``, and the corrections ``r = clip(std / sigma, 1/rmax, rmax)``,
    ``d = clip((mean - running_mean) / sigma, -dmax, dmax)``, ``sigma = sqrt(running_var + eps)``.
    ``r`` and ``d`` are constants of the graph (no gradient flows through them,
    as in the paper and in Chainer); the batch statistics are differentiated as
    in batch normalization.

    Args:
        x, gamma, beta: as in :func:`batch_normalization` (the default axes).
        rmax: the bound of ``r``, at least 1 (1: ``r = 1``).
        dmax: the bound of ``d``, at least 0 (0: ``d = 0``; with ``rmax=1`` this is batch normalization).
        eps: added to the variances.
        running_mean, running_var: arrays of ``gamma``'s shape; ``None`` stands for zeros.
        decay: decay rate of the running statistics.
        update_statistics: update ``running_mean`` and ``running_var`` in place,
            as Chainer does: ``decay * running + (1 - decay) * statistic``, the
            statistic of the variance being the batch's unbiased ``var`` (without ``eps``).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.array([[1.0, 10.0], [3.0, 30.0]])
        >>> mean, var = np.array([2.0, 20.0]), np.array([1.0, 100.0])  # as the batch: r = 1, d = 0
        >>> F.batch_renormalization(x, np.ones(2), np.zeros(2), 3.0, 5.0, eps=0.0, running_mean=mean,
        ...                         running_var=var).array
        array([[-1., -1.],
               [ 1.,  1.]])
    """
    op = "batch_renormalization"
    x, (gamma, beta), axes = _prepare(op, x, ((gamma, "gamma"), (beta, "beta")), None)
    rmax, dmax = require_real(op, rmax, "rmax"), require_real(op, dmax, "dmax")
    if rmax < 1 or dmax < 0:
        raise ValueError(f"{op}: rmax must be at least 1 and dmax at least 0, got rmax={rmax}, dmax={dmax}")
    eps, decay = require_real(op, eps, "eps", nonnegative=True), _require_decay(op, decay)
    update_statistics = require_flag(op, update_statistics, "update_statistics")
    m = _batch_size(op, x, gamma, axes, running_mean, running_var)
    xp, kept, x_dtype = x.xp, _kept_shape(x.shape, axes), x.dtype
    dtype, x, (gamma, beta) = _compute_dtype(x, (gamma, beta))
    mean = F.mean(x, axes, keepdims=True)
    centered = x - mean
    var = F.mean(centered * centered, axes, keepdims=True)
    std = F.sqrt(var + float(eps))
    zeros = xp.zeros(gamma.shape, dtype=dtype)
    sigma = xp.sqrt((zeros if running_var is None else running_var).reshape(kept) + eps)
    r = xp.clip(std.array / sigma, 1.0 / rmax, rmax).astype(dtype, copy=False)
    d = (mean.array - (zeros if running_mean is None else running_mean).reshape(kept)) / sigma
    d = xp.clip(d, -dmax, dmax).astype(dtype, copy=False)
    y = (centered / std * constant(r) + constant(d)) * F.reshape(gamma, kept) + F.reshape(beta, kept)
    if update_statistics:
        _update_running(running_mean, running_var, mean.array, var.array, m, decay)
    return in_dtype(y, x_dtype)


def fixed_batch_renormalization(x: Any, gamma: Any, beta: Any, mean: Any, var: Any, eps: float = 2e-5) -> Variable:
    """Batch renormalization at inference: :func:`fixed_batch_normalization` (deprecated in Chainer, and here:
    a ``DeprecationWarning`` says so, as Chainer's does).

    Example:
        >>> import warnings, numpy as np, minigrad.functions as F
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore", DeprecationWarning)
        ...     F.fixed_batch_renormalization(np.array([[1.0], [3.0]]), np.ones(1), np.zeros(1), np.array([2.0]),
        ...                                   np.array([1.0]), eps=0.0).array
        array([[-1.],
               [ 1.]])
    """
    x = as_input("fixed_batch_renormalization", x, "x", float_only=True)  # (an error names the op called)
    y = F.fixed_batch_normalization(x, gamma, beta, mean, var, eps)  # (bad arguments raise before the warning)
    warnings.warn("fixed_batch_renormalization is deprecated (as in Chainer); use fixed_batch_normalization",
                  DeprecationWarning, stacklevel=2)
    return y
