"""group_normalization: layer normalization of each group of channels, then a per-channel scale and shift."""

from __future__ import annotations

import math
from typing import Any

import numpy

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.functions.checks import as_input, constant, in_dtype, promoted_dtype, require_real
from minigrad.variable import Variable

__all__ = ["group_normalization"]


def group_normalization(x: Any, groups: int, gamma: Any, beta: Any, eps: float = 1e-5) -> Variable:
    """Group normalization (Wu and He, 2018), as in Chainer.

    The ``C`` channels of each sample are split into ``groups`` groups of
    ``C / groups`` consecutive channels; each group is normalised over its
    channels and spatial positions, ``(x - mean) / sqrt(var + eps)``, then
    channel ``c`` is scaled by ``gamma[c]`` and shifted by ``beta[c]``. With
    ``groups = 1`` it is layer normalization over ``C, H, W``; with
    ``groups = C``, instance normalization. Composed of ``layer_normalization``,
    reshapes and broadcasts, so it is differentiable to any order.

    Args:
        x: float array ``(N, C, ...)``.
        groups: a positive int that divides ``C``.
        gamma, beta: the scale and the shift, ``(C,)``, of one float dtype,
            which may differ from ``x``'s (as in Chainer: float16 ``x`` with
            float32 parameters under ``mixed16``; computed in the promoted
            dtype, the result in ``x``'s, each gradient in its input's dtype).
        eps: added to the variance.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.array([[[1.0, 3.0], [10.0, 30.0]]])  # (1, 2, 2): two channels of two positions
        >>> F.group_normalization(x, 2, np.ones(2), np.zeros(2), eps=0.0).array
        array([[[-1.,  1.],
                [-1.,  1.]]])
    """
    op = "group_normalization"
    x, gamma, beta = (as_input(op, v, name, float_only=True)
                      for v, name in ((x, "x"), (gamma, "gamma"), (beta, "beta")))
    if beta.dtype != gamma.dtype:
        raise TypeError(f"{op}: beta has dtype {beta.dtype}, but gamma has dtype {gamma.dtype} (x may have another "
                        "float dtype; gamma and beta share one)")
    if x.ndim < 2:
        raise ValueError(f"{op}: x must be (N, C, ...) with at least two axes, got shape {x.shape}")
    channels = x.shape[1]
    if isinstance(groups, (bool, numpy.bool_)) or not isinstance(groups, (int, numpy.integer)) or groups < 1:
        raise TypeError(f"{op}: groups must be a positive int, got {groups!r}")
    if channels % groups:
        raise ValueError(f"{op}: groups={groups} does not divide the {channels} channels of x {x.shape}")
    eps = require_real(op, eps, "eps", nonnegative=True)
    for value, name in ((gamma, "gamma"), (beta, "beta")):
        if value.shape != (channels,):
            raise ValueError(f"{op}: {name} must have shape ({channels},) (the channels of x {x.shape}), "
                             f"got {value.shape}")
    x_dtype, dtype = x.dtype, promoted_dtype(x, gamma)
    x, gamma, beta = in_dtype(x, dtype), in_dtype(gamma, dtype), in_dtype(beta, dtype)
    n, group_size = x.shape[0], channels // groups * math.prod(x.shape[2:])
    per_channel = (1, channels) + (1,) * (x.ndim - 2)
    if n == 0 or group_size == 0:  # nothing to normalise: the shift alone, of x's shape
        return in_dtype(x * 0 + F.reshape(beta, per_channel), x_dtype)
    ones = constant(x.xp.ones(group_size, dtype=dtype))
    zeros = constant(x.xp.zeros(group_size, dtype=dtype))
    normalized = F.reshape(F.layer_normalization(F.reshape(x, (n * groups, group_size)), ones, zeros, eps), x.shape)
    return in_dtype(normalized * F.reshape(gamma, per_channel) + F.reshape(beta, per_channel), x_dtype)
