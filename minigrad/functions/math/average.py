"""average (optionally weighted) and mean: sums divided by counts, composed of sum, mul and div."""

from __future__ import annotations

from typing import Any

import numpy

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.functions.checks import as_input, normalize_axes, require_nonempty
from minigrad.variable import Variable

__all__ = ["average", "mean"]


def average(x: Any, axis: int | tuple[int, ...] | None = None, weights: Any = None,
            keepdims: bool = False) -> Variable:
    """Weighted average over ``axis`` (all axes when ``None``), like ``numpy.average``.

    Args:
        x: the values (floating point).
        axis: an int, a tuple of ints, or ``None``.
        weights: ``None`` (all weights one), an array of ``x``'s shape, or, when
            ``axis`` is an int, a 1-D array of length ``x.shape[axis]``. Weights
            may be Variables; they receive a gradient too.
        keepdims: keep the reduced axes with length one.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.average(np.array([[1.0, 3.0], [5.0, 7.0]]), axis=1, weights=np.array([3.0, 1.0])).array
        array([1.5, 5.5])
    """
    x, axes = _checked("average", x, axis)
    if weights is None:
        return _mean("average", x, axes, keepdims)
    require_nonempty("average", x, axes)  # an empty axis is the error to report, not the weights' sum of zero
    w = as_input("average", weights, "weights", float_only=True)
    if x.dtype == w.dtype == numpy.float16:  # as _mean: x * w and its sum in float32, which do not overflow
        return F.cast(average(F.cast(x, numpy.float32), axis, F.cast(w, numpy.float32), keepdims), numpy.float16)
    if w.shape == x.shape:
        total = F.sum(w, axes, keepdims)
    elif w.ndim == 1 and len(axes) == 1 and not isinstance(axis, tuple) and w.shape[0] == x.shape[axes[0]]:
        w = F.reshape(w, tuple(x.shape[a] if a == axes[0] else 1 for a in range(x.ndim)))
        total = F.sum(w)  # every group has the same weights
    else:
        raise ValueError(
            f"average: weights of shape {w.shape} do not fit x of shape {x.shape} with axis={axis}; "
            "give x's shape, or a 1-D array of length x.shape[axis] when axis is an int"
        )
    if bool((total.array == 0).any()):
        raise ValueError("average: weights sum to zero over an averaged group")
    return F.sum(x * w, axes, keepdims) / total


def mean(x: Any, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Variable:
    """Arithmetic mean over ``axis`` (all axes when ``None``), like ``numpy.mean``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.mean(np.array([[1.0, 3.0], [5.0, 7.0]]), axis=0).array
        array([3., 5.])
    """
    x, axes = _checked("mean", x, axis)
    return _mean("mean", x, axes, keepdims)


def _checked(op: str, x: Any, axis: Any) -> tuple[Variable, tuple[int, ...]]:
    x = as_input(op, x, float_only=True)
    return x, normalize_axes(op, axis, x.ndim)


def _mean(op: str, x: Variable, axes: tuple[int, ...], keepdims: bool) -> Variable:
    n = float(require_nonempty(op, x, axes))
    if x.dtype == numpy.float16:  # as numpy.mean: summed in float32, so that a long float16 sum does not overflow
        return F.cast(F.sum(F.cast(x, numpy.float32), axes, keepdims) / n, numpy.float16)
    return F.sum(x, axes, keepdims) / n
