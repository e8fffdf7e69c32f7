"""The losses of variational autoencoders: gaussian_kl_divergence, gaussian_nll and bernoulli_nll.

Each is a sum of elementwise terms, composed of minigrad ops (so every order
of derivative works); ``reduce="sum"`` adds them up, ``"mean"`` averages them
(as Chainer 7), ``"no"`` keeps them.
"""

from __future__ import annotations

import math
from typing import Any

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.functions.loss._common import check_reduce, float_pair
from minigrad.variable import Variable

__all__ = ["gaussian_kl_divergence", "gaussian_nll", "bernoulli_nll"]

_LOG_2PI = math.log(2.0 * math.pi)


def _reduced(op: str, loss: Variable, reduce: str) -> Variable:
    """``reduce`` was checked by the caller, before any work."""
    if reduce == "no":
        return loss
    if reduce == "mean" and loss.size == 0:
        raise ValueError(f"{op}: reduce='mean' of empty inputs (shape {loss.shape}) has no value")
    return F.sum(loss) if reduce == "sum" else F.average(loss)


def gaussian_kl_divergence(mean: Any, ln_var: Any, reduce: str = "sum") -> Variable:
    """KL divergence of ``N(mean, exp(ln_var))`` from ``N(0, 1)``, elementwise:
    ``(mean ** 2 + exp(ln_var) - ln_var - 1) / 2``.

    Args:
        mean, ln_var: float arrays of one shape: the mean and the log variance.
        reduce: ``"sum"`` or ``"mean"`` (a 0-dim Variable) or ``"no"`` (one term per element).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.gaussian_kl_divergence(np.array([0.0, 1.0]), np.array([0.0, 0.0])).array
        array(0.5)
    """
    op = "gaussian_kl_divergence"
    check_reduce(op, reduce, ("sum", "mean", "no"))
    mean, ln_var = float_pair(op, mean, ln_var, ("mean", "ln_var"))
    return _reduced(op, (mean * mean + F.exp(ln_var) - ln_var - 1.0) * 0.5, reduce)


def gaussian_nll(x: Any, mean: Any, ln_var: Any, reduce: str = "sum") -> Variable:
    """Negative log-likelihood of ``x`` under ``N(mean, exp(ln_var))``, elementwise:
    ``(log(2 pi) + ln_var) / 2 + (x - mean) ** 2 * exp(-ln_var) / 2``.

    Args:
        x, mean, ln_var: float arrays of one shape.
        reduce: ``"sum"`` or ``"mean"`` (a 0-dim Variable) or ``"no"`` (one term per element).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> float(F.gaussian_nll(np.array([0.0]), np.array([0.0]), np.array([0.0])).array)  # log(2 pi) / 2
        0.9189385332046727
    """
    op = "gaussian_nll"
    check_reduce(op, reduce, ("sum", "mean", "no"))
    x, mean = float_pair(op, x, mean, ("x", "mean"))
    _, ln_var = float_pair(op, x, ln_var, ("x", "ln_var"))
    diff = x - mean
    return _reduced(op, (ln_var + _LOG_2PI) * 0.5 + diff * diff * F.exp(-ln_var) * 0.5, reduce)


def bernoulli_nll(x: Any, y: Any, reduce: str = "sum") -> Variable:
    """Negative log-likelihood of ``x`` under Bernoulli distributions with logits ``y``, elementwise:
    ``softplus(y) - x * y`` (``x`` holds the observed values, usually 0 or 1).

    Args:
        x: float array of the data.
        y: float array of ``x``'s shape: the logits (pre-sigmoid values).
        reduce: ``"sum"`` or ``"mean"`` (a 0-dim Variable) or ``"no"`` (one term per element).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.bernoulli_nll(np.array([1.0, 0.0]), np.array([0.0, 0.0]), reduce="no").array  # log 2 each
        array([0.69314718, 0.69314718])
    """
    op = "bernoulli_nll"
    check_reduce(op, reduce, ("sum", "mean", "no"))
    x, y = float_pair(op, x, y, ("x", "y"))
    return _reduced(op, F.softplus(y) - x * y, reduce)
