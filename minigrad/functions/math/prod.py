"""prod: the product of elements over axes, with an exact gradient when some elements are zero.

The gradient of ``x_1 * ... * x_n`` with respect to ``x_i`` is the product of
the *other* elements. Computing it as ``y / x_i`` fails at zeros, so backward
builds those "products of the others" by a pairwise tree of multiplications:
no division, O(n) work, and the tree is made of minigrad ops, so every higher
derivative is exact as well.
"""

from __future__ import annotations

import math
from typing import Any

import numpy

import minigrad.functions as F
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input, constant, normalize_axes, require_flag
from minigrad.functions.math.sum import broadcast_back
from minigrad.variable import Variable

__all__ = ["Prod", "prod"]


class Prod(FunctionNode):
    def __init__(self, axes: tuple[int, ...], keepdims: bool) -> None:
        self.axes = axes
        self.keepdims = keepdims

    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        return x.prod(axis=self.axes, keepdims=self.keepdims),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy = broadcast_back(grad_outputs[0], self.axes, self.keepdims, x.shape)
        return gy * _products_of_others(x, self.axes),


def _products_of_others(x: Variable, axes: tuple[int, ...]) -> Variable:
    """For every element, the product of the other elements of its group (the reduced ``axes``)."""
    kept = [i for i in range(x.ndim) if i not in axes]
    order = kept + list(axes)
    grouped = F.transpose(x, order) if order != sorted(order) else x
    flat = F.reshape(grouped, grouped.shape[:len(kept)] + (math.prod(x.shape[a] for a in axes),))
    others = F.reshape(_exclusive_products(flat), grouped.shape)
    return F.transpose(others, tuple(int(i) for i in numpy.argsort(order))) if order != sorted(order) else others


def _exclusive_products(v: Variable) -> Variable:
    """``out[..., i] = prod(v[..., j] for j != i)`` by a pairwise tree (v has shape (..., n))."""
    *lead, n = v.shape
    if n <= 1:
        return constant(v.xp.ones(v.shape, dtype=v.dtype))  # the empty product
    if n % 2:
        v = _append_one(v)
    pairs = F.reshape(v, (*lead, v.shape[-1] // 2, 2))
    parents = F.get_item(pairs, (Ellipsis, 0)) * F.get_item(pairs, (Ellipsis, 1))
    # the others of a pair's left element: the others of the pair, times its right element (and vice versa)
    swapped = F.get_item(pairs, (Ellipsis, slice(None, None, -1)))
    others = F.reshape(F.get_item(_exclusive_products(parents), (Ellipsis, None)) * swapped, v.shape)
    return F.get_item(others, (Ellipsis, slice(0, n))) if others.shape[-1] != n else others


def _append_one(v: Variable) -> Variable:
    """``v`` with a 1 appended along the last axis (a neutral partner for an odd element out)."""
    *lead, n = v.shape
    padded = F.GetItemGrad((Ellipsis, slice(0, n)), True, (*lead, n + 1)).apply((v,))[0]  # zero-padded
    one = v.xp.zeros(padded.shape, dtype=v.dtype)
    one[..., n] = 1
    return padded + constant(one)


def prod(x: Any, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Variable:
    """Product of elements over ``axis`` (all axes when ``None``), like ``numpy.prod``.

    The gradient is exact when ``x`` has zeros (it is the product of the other
    elements, never ``y / x``).

    Example:
        >>> import numpy as np, minigrad as mg, minigrad.functions as F
        >>> x = mg.Variable(np.array([2.0, 0.0, 3.0]))
        >>> y = F.prod(x); y.backward(); y.array, x.grad
        (array(0.), array([0., 6., 0.]))
    """
    x = as_input("prod", x)
    axes = normalize_axes("prod", axis, x.ndim)
    return Prod(axes, require_flag("prod", keepdims, "keepdims")).apply((x,))[0]
