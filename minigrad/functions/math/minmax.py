"""Comparisons: maximum and minimum (elementwise), clip, and the reductions max, min, argmax, argmin.

The gradient always flows to exactly one input element: the larger (smaller)
operand of ``maximum`` (``minimum``), ties to the first; the first maximal
(minimal) element of each group of ``max`` (``min``). These ops are piecewise
linear, so their backward is ``gy`` times a constant 0/1 mask, which is
differentiable again (with a zero second derivative).
"""

from __future__ import annotations

import math
from typing import Any

import numpy

from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input, constant, normalize_axes, normalize_axis, require_flag
from minigrad.functions.math._shared import apply_binary, apply_nondifferentiable
from minigrad.functions.math.sum import broadcast_back
from minigrad.variable import Variable

__all__ = ["Maximum", "Minimum", "Clip", "Max", "Min", "ArgMax", "ArgMin",
           "maximum", "minimum", "clip", "max", "min", "argmax", "argmin"]


def _mask(condition: Any, like: Variable) -> Variable:
    """A 0/1 constant (no gradient flows through it) in ``like``'s dtype."""
    return constant(get_array_module(condition).asarray(condition, dtype=like.dtype))


class Maximum(FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0, 1))
        return get_array_module(*inputs).maximum(*inputs),

    def backward(self, indexes, grad_outputs):
        x0, x1 = self.get_retained_inputs()
        first = x0.array >= x1.array
        gy, = grad_outputs
        return tuple(gy * _mask(first if i == 0 else ~first, gy) for i in indexes)


class Minimum(FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0, 1))
        return get_array_module(*inputs).minimum(*inputs),

    def backward(self, indexes, grad_outputs):
        x0, x1 = self.get_retained_inputs()
        first = x0.array <= x1.array
        gy, = grad_outputs
        return tuple(gy * _mask(first if i == 0 else ~first, gy) for i in indexes)


class Clip(FunctionNode):
    def __init__(self, x_min: Any, x_max: Any) -> None:
        self.x_min = x_min  # scalars of the input's dtype (-inf / inf for no bound)
        self.x_max = x_max

    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        return get_array_module(x).clip(x, self.x_min, self.x_max),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        inside = (x.array >= self.x_min) & (x.array <= self.x_max)
        return grad_outputs[0] * _mask(inside, x),


class _Extreme(FunctionNode):
    """max or min over ``axes``; the gradient goes to the first extreme element of each group."""

    reduce: str  # the array module's reduction and its index-finding partner
    find: str

    def __init__(self, axes: tuple[int, ...], keepdims: bool) -> None:
        self.axes = axes
        self.keepdims = keepdims

    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        return getattr(get_array_module(x), self.reduce)(x, axis=self.axes, keepdims=self.keepdims),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy = broadcast_back(grad_outputs[0], self.axes, self.keepdims, x.shape)
        return gy * _mask(_first_extreme(x.array, self.axes, self.find), gy),


class Max(_Extreme):
    reduce, find = "max", "argmax"


class Min(_Extreme):
    reduce, find = "min", "argmin"


def _first_extreme(x: Any, axes: tuple[int, ...], find: str) -> Any:
    """Boolean array of ``x``'s shape, True at the first argmax/argmin of each group over ``axes``."""
    xp = get_array_module(x)
    kept = [i for i in range(x.ndim) if i not in axes]
    order = kept + list(axes)
    grouped = x.transpose(order)
    flat = grouped.reshape(grouped.shape[:len(kept)] + (math.prod(x.shape[a] for a in axes),))  # not -1: 0-size
    index = getattr(xp, find)(flat, axis=-1)
    hits = xp.arange(flat.shape[-1]) == xp.expand_dims(index, -1)
    return hits.reshape(grouped.shape).transpose(tuple(int(i) for i in numpy.argsort(order)))


class ArgMax(FunctionNode):
    def __init__(self, axis: int | None) -> None:
        self.axis = axis

    def forward(self, inputs):
        return get_array_module(inputs[0]).argmax(inputs[0], axis=self.axis).astype(numpy.int32),


class ArgMin(FunctionNode):
    def __init__(self, axis: int | None) -> None:
        self.axis = axis

    def forward(self, inputs):
        return get_array_module(inputs[0]).argmin(inputs[0], axis=self.axis).astype(numpy.int32),


def maximum(x1: Any, x2: Any) -> Variable:
    """Elementwise maximum with NumPy broadcasting; the gradient goes to the larger input (ties: ``x1``).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.maximum(np.array([1.0, 5.0]), np.array([3.0, 2.0])).array
        array([3., 5.])
    """
    return apply_binary(Maximum, "maximum", x1, x2)


def minimum(x1: Any, x2: Any) -> Variable:
    """Elementwise minimum with NumPy broadcasting; the gradient goes to the smaller input (ties: ``x1``).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.minimum(np.array([1.0, 5.0]), 2.0).array
        array([1., 2.])
    """
    return apply_binary(Minimum, "minimum", x1, x2)


def _bound(value: Any, argname: str, dtype: numpy.dtype, default: float) -> Any:
    if value is None:
        return dtype.type(default)
    if isinstance(value, bool) or not isinstance(value, (int, float, numpy.integer, numpy.floating)):
        raise TypeError(f"clip: {argname} must be a real number or None, got {type(value).__name__}")
    if math.isnan(value):
        raise ValueError(f"clip: {argname} must not be NaN")
    return dtype.type(value)


def clip(x: Any, x_min: float | None, x_max: float | None) -> Variable:
    """Clip ``x`` elementwise to ``[x_min, x_max]`` (``None``: no bound on that side).

    The gradient is 1 inside the interval (bounds included) and 0 outside.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.clip(np.array([-2.0, 0.5, 2.0]), -1.0, 1.0).array
        array([-1. ,  0.5,  1. ])
    """
    x = as_input("clip", x, float_only=True)
    if x_min is None and x_max is None:
        raise ValueError("clip: x_min and x_max cannot both be None")
    low = _bound(x_min, "x_min", x.dtype, -numpy.inf)
    high = _bound(x_max, "x_max", x.dtype, numpy.inf)
    if low > high:
        raise ValueError(f"clip: x_min ({x_min}) must not be greater than x_max ({x_max})")
    return Clip(low, high).apply((x,))[0]


def _reduce_extreme(node_class: type[_Extreme], op: str, x: Any, axis: Any, keepdims: bool) -> Variable:
    x = as_input(op, x)
    axes = normalize_axes(op, axis, x.ndim)
    if x.size == 0 and (not axes or any(x.shape[a] == 0 for a in axes)):  # nothing to take the max of
        raise ValueError(f"{op}: cannot reduce over an empty axis (input shape {x.shape}, axis={axis})")
    return node_class(axes, require_flag(op, keepdims, "keepdims")).apply((x,))[0]


def max(x: Any, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Variable:
    """Maximum over ``axis`` (all axes when ``None``); the gradient goes to the first maximal element.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.max(np.array([[1.0, 4.0], [3.0, 2.0]]), axis=1).array
        array([4., 3.])
    """
    return _reduce_extreme(Max, "max", x, axis, keepdims)


def min(x: Any, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Variable:
    """Minimum over ``axis`` (all axes when ``None``); the gradient goes to the first minimal element.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.min(np.array([[1.0, 4.0], [3.0, 2.0]]), axis=0, keepdims=True).array
        array([[1., 2.]])
    """
    return _reduce_extreme(Min, "min", x, axis, keepdims)


def _arg_extreme(node_class: type[FunctionNode], op: str, x: Any, axis: Any) -> Variable:
    x = as_input(op, x)
    if axis is not None:
        axis = normalize_axis(op, axis, x.ndim)
    if (x.size if axis is None else x.shape[axis]) == 0:
        raise ValueError(f"{op}: cannot search an empty input (shape {x.shape}, axis={axis})")
    return apply_nondifferentiable(node_class(axis), x)


def argmax(x: Any, axis: int | None = None) -> Variable:
    """Index of the first maximum along ``axis`` (of the flattened input when ``None``), as int32.

    Not differentiable: the output requires no gradient.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.argmax(np.array([[1.0, 4.0], [3.0, 2.0]]), axis=1).array
        array([1, 0], dtype=int32)
    """
    return _arg_extreme(ArgMax, "argmax", x, axis)


def argmin(x: Any, axis: int | None = None) -> Variable:
    """Index of the first minimum along ``axis`` (of the flattened input when ``None``), as int32.

    Not differentiable: the output requires no gradient.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.argmin(np.array([[1.0, 4.0], [3.0, 2.0]]), axis=1).array
        array([0, 1], dtype=int32)
    """
    return _arg_extreme(ArgMin, "argmin", x, axis)
