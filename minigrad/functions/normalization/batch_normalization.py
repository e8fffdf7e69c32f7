"""Batch normalization: with batch statistics (training) and with fixed statistics (inference).

``batch_normalization`` has a fused forward and a fused first-order backward
(``BatchNormalizationGrad``, one pass each, as a hand-written NumPy version
would be); the backward of that gradient node is written with minigrad ops, so
the op is differentiable to any order. With x̂ = (x - μ)/σ, σ = sqrt(var + eps),
means taken over the reduced axes, and P(v) = v - mean(v) - x̂·mean(x̂·v):

    gβ = Σ gy,   gγ = Σ gy·x̂,   gx = γ/σ · P(gy)

``batch_renormalization`` (Chainer's) is in ``batch_renormalization.py``, built on this module's helpers.

Mixed dtypes, as in Chainer: ``gamma`` and the other per-channel arguments
share one float dtype, which may differ from ``x``'s (float16 ``x`` with
float32 ``gamma`` under ``mixed16``). The op then computes in the promoted
dtype (float32 there) and returns ``x``'s dtype; each gradient comes back in
its own input's dtype (through ``Cast`` nodes, see ``checks.in_dtype``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import (
    as_input,
    in_dtype,
    normalize_axes,
    promoted_dtype,
    require_real,
)
from minigrad.variable import Variable

__all__ = [
    "BatchNormalization", "BatchNormalizationGrad", "batch_normalization", "fixed_batch_normalization",
]


def _kept_shape(shape: tuple[int, ...], axis: tuple[int, ...]) -> tuple[int, ...]:
    """``shape`` with the reduced axes set to 1: the shape gamma broadcasts from."""
    return tuple(1 if i in axis else n for i, n in enumerate(shape))


class BatchNormalization(FunctionNode):
    def __init__(self, axis: tuple[int, ...], eps: float) -> None:
        self.axis = axis
        self.eps = eps

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, gamma, beta = inputs
        xp = get_array_module(x)
        kept = _kept_shape(x.shape, self.axis)
        self.mean = x.mean(axis=self.axis, keepdims=True)
        x_centered = x - self.mean
        self.var = xp.square(x_centered).mean(axis=self.axis, keepdims=True)
        self.inv_std = 1 / xp.sqrt(self.var + x.dtype.type(self.eps))
        self.x_hat = x_centered * self.inv_std
        return gamma.reshape(kept) * self.x_hat + beta.reshape(kept),

    def backward(self, indexes, grad_outputs):
        x, gamma = self.get_retained_inputs()
        grads = BatchNormalizationGrad(self.axis, self.eps, self.x_hat, self.inv_std).apply(
            (x, gamma, grad_outputs[0]))
        return tuple(grads[i] for i in indexes)  # (gx, ggamma, gbeta) line up with (x, gamma, beta)


class BatchNormalizationGrad(FunctionNode):
    """(x, gamma, gy) -> (gx, ggamma, gbeta); reuses x̂ and 1/σ from the forward pass."""

    def __init__(self, axis: tuple[int, ...], eps: float, x_hat: Any, inv_std: Any) -> None:
        self.axis = axis
        self.eps = eps
        self.x_hat = x_hat
        self.inv_std = inv_std

    def forward(self, inputs):
        self.retain_inputs((0, 1, 2))
        x, gamma, gy = inputs
        kept = _kept_shape(x.shape, self.axis)
        m = x.size // gamma.size
        gbeta = gy.sum(axis=self.axis)
        ggamma = (gy * self.x_hat).sum(axis=self.axis)
        gx = (gamma.reshape(kept) * self.inv_std) * (
            gy - (gbeta / m).reshape(kept) - self.x_hat * (ggamma / m).reshape(kept))
        return gx, ggamma, gbeta

    def backward(self, indexes, grad_outputs):
        # Written with minigrad ops from (x, gamma, gy), so higher orders work too:
        # d<ggx,gx>/dgy = γ/σ·P(ggx) (P is symmetric); d/dγ = Σ ggx·P(gy)/σ; the x-derivative
        # collects the dependence of σ, x̂ and mean(x̂·gy) on x.
        x, gamma, gy = self.get_retained_inputs()
        ggx, gggamma, ggbeta = grad_outputs
        kept = _kept_shape(x.shape, self.axis)
        scale = 1.0 / (x.size // gamma.size)

        def mean(v: Variable) -> Variable:
            return F.sum(v, axis=self.axis, keepdims=True) * scale

        x_centered = x - mean(x)
        inv_std = (mean(x_centered * x_centered) + self.eps) ** -0.5
        x_hat = x_centered * inv_std
        gamma_inv_std = F.reshape(gamma, kept) * inv_std

        def project(v: Variable) -> Variable:
            return v - mean(v) - x_hat * mean(x_hat * v)

        gy_hat = project(gy)
        results = {}
        if 0 in indexes:
            gx = 0
            if ggx is not None:
                gx = -(gamma_inv_std * inv_std) * (mean(ggx * gy_hat) * x_hat + mean(x_hat * gy) * project(ggx))
                gx = gx - gamma_inv_std * mean(ggx * x_hat) * gy_hat * inv_std
            if gggamma is not None:
                gx = gx + F.reshape(gggamma, kept) * gy_hat * inv_std
            results[0] = gx if isinstance(gx, Variable) else None
        if 1 in indexes:
            results[1] = None if ggx is None else F.sum(ggx * gy_hat * inv_std, axis=self.axis)
        if 2 in indexes:
            ggy = 0
            if ggx is not None:
                ggy = gamma_inv_std * project(ggx)
            if gggamma is not None:
                ggy = ggy + F.reshape(gggamma, kept) * x_hat
            if ggbeta is not None:  # broadcast: with ggx and gggamma None, nothing else gives ggy gy's shape
                ggy = ggy + F.broadcast_to(F.reshape(ggbeta, kept), gy.shape)
            results[2] = ggy if isinstance(ggy, Variable) else None
        return tuple(results[i] for i in indexes)


def _prepare(op: str, x: Any, named: Sequence[tuple[Any, str]], axis: Any) -> tuple[Variable, list, tuple]:
    """Check x and the per-channel arguments; return them as Variables and the reduced axes."""
    x = as_input(op, x, "x", float_only=True)
    values = [as_input(op, value, name, float_only=True) for value, name in named]
    gamma = values[0]
    if axis is None:
        if gamma.ndim >= x.ndim:
            raise ValueError(f"{op}: gamma of shape {gamma.shape} needs fewer dimensions than x of shape {x.shape}")
        axes = (0,) + tuple(range(gamma.ndim + 1, x.ndim))
    else:
        axes = normalize_axes(op, axis, x.ndim)
    expected = tuple(n for i, n in enumerate(x.shape) if i not in axes)
    for value, (_, name) in zip(values, named):
        if value.shape != expected:
            raise ValueError(
                f"{op}: {name} must have shape {expected} (x of shape {x.shape} without the normalized "
                f"axes {axes}), got {value.shape}")
        if value.dtype != gamma.dtype:  # x may differ (Chainer's mixed precision), these may not
            raise TypeError(f"{op}: {name} has dtype {value.dtype}, but gamma has dtype {gamma.dtype} (x may have "
                            "another float dtype; gamma, beta and the statistics share one)")
    return x, values, axes


def _compute_dtype(x: Variable, values: Sequence[Variable]) -> tuple[Any, Variable, list[Variable]]:
    """The dtype the op computes in (x's and gamma's promoted), with x and the others cast to it."""
    dtype = promoted_dtype(x, values[0])
    return dtype, in_dtype(x, dtype), [in_dtype(v, dtype) for v in values]


def batch_normalization(x: Any, gamma: Any, beta: Any, eps: float = 2e-5, running_mean: Any = None,
                        running_var: Any = None, decay: float = 0.9, axis: Any = None) -> Variable:
    """Batch normalization with the statistics of the batch: ``gamma * (x - mean) / sqrt(var + eps) + beta``.

    Args:
        x: input, e.g. ``(N, C)`` or ``(N, C, H, W)``.
        gamma: scale, with the shape of ``x`` without the normalized axes.
        beta: shift, same shape as ``gamma``.
        eps: added to the variance.
        running_mean: optional array updated **in place** to
            ``decay * running_mean + (1 - decay) * mean``.
        running_var: optional array updated in place the same way with the
            unbiased variance.
        decay: decay rate of the running statistics.
        axis: the axes to normalize over; by default ``0`` and every axis after
            those of ``gamma`` (``(0, 2, 3)`` for images and a 1-D ``gamma``).
            If they hold no elements (an empty batch), it is a ``ValueError``:
            there are no statistics to take.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.array([[1.0, 10.0], [3.0, 30.0]])
        >>> running_mean = np.zeros(2)
        >>> F.batch_normalization(x, np.ones(2), np.zeros(2), eps=0.0, running_mean=running_mean).array
        array([[-1., -1.],
               [ 1.,  1.]])
        >>> running_mean
        array([0.2, 2. ])
    """
    op = "batch_normalization"
    x, (gamma, beta), axes = _prepare(op, x, ((gamma, "gamma"), (beta, "beta")), axis)
    m = _batch_size(op, x, gamma, axes, running_mean, running_var)
    node = BatchNormalization(axes, require_real("batch_normalization", eps, "eps", nonnegative=True))
    decay = _require_decay(op, decay)
    _, x_computed, (gamma, beta) = _compute_dtype(x, (gamma, beta))
    y = node.apply((x_computed, gamma, beta))[0]
    _update_running(running_mean, running_var, node.mean, node.var, m, decay)
    return in_dtype(y, x.dtype)


def _batch_size(op: str, x: Variable, gamma: Variable, axes: tuple[int, ...], running_mean: Any,
                running_var: Any) -> int:
    """The samples per statistic, after checking that there are some and the running statistics' arrays."""
    for stat, name in ((running_mean, "running_mean"), (running_var, "running_var")):
        if stat is None:
            continue
        if isinstance(stat, Variable) or not hasattr(stat, "shape"):
            raise TypeError(f"{op}: {name} must be an array (it is updated in place), got {type(stat).__name__}")
        if stat.shape != gamma.shape:
            raise ValueError(f"{op}: {name} must have shape {gamma.shape} like gamma, got {stat.shape}")
    m = math.prod(x.shape[a] for a in axes)
    if m == 0:  # the mean of none is NaN, which would also poison running_mean and running_var
        raise ValueError(f"{op}: no samples to take batch statistics over (x of shape {x.shape}, axes {axes}); "
                         "use fixed_batch_normalization for an empty batch")
    return m


def _require_decay(op: str, decay: Any) -> float:
    """The running statistics' decay rate, a real number in [0, 1] (NaN or 1.5 would spoil them silently)."""
    decay = require_real(op, decay, "decay")
    if not 0.0 <= decay <= 1.0:
        raise ValueError(f"{op}: decay must be in [0, 1], got {decay}")
    return decay


def _update_running(running_mean: Any, running_var: Any, mean: Any, var: Any, m: int, decay: float) -> None:
    """``running = decay * running + (1 - decay) * batch statistic`` in place (the variance made unbiased)."""
    if running_mean is not None:
        running_mean *= decay
        running_mean += (1 - decay) * mean.reshape(running_mean.shape)
    if running_var is not None:
        running_var *= decay
        running_var += (1 - decay) * (m / max(m - 1, 1)) * var.reshape(running_var.shape)


def fixed_batch_normalization(x: Any, gamma: Any, beta: Any, mean: Any, var: Any, eps: float = 2e-5,
                              axis: Any = None) -> Variable:
    """Batch normalization with given statistics (inference): ``gamma * (x - mean) / sqrt(var + eps) + beta``.

    Differentiable with respect to all five inputs. ``axis`` is as in
    :func:`batch_normalization`.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.array([[1.0, 10.0], [3.0, 30.0]])
        >>> F.fixed_batch_normalization(x, np.ones(2), np.zeros(2), np.array([2.0, 20.0]),
        ...                             np.array([1.0, 100.0]), eps=0.0).array
        array([[-1., -1.],
               [ 1.,  1.]])
    """
    op = "fixed_batch_normalization"
    named = ((gamma, "gamma"), (beta, "beta"), (mean, "mean"), (var, "var"))
    x, values, axes = _prepare(op, x, named, axis)
    eps = require_real("fixed_batch_normalization", eps, "eps", nonnegative=True)
    _, x_computed, (gamma, beta, mean, var) = _compute_dtype(x, values)
    kept = _kept_shape(x.shape, axes)
    scale = gamma * (var + eps) ** -0.5
    return in_dtype((x_computed - F.reshape(mean, kept)) * F.reshape(scale, kept) + F.reshape(beta, kept), x.dtype)
