"""get_item: NumPy indexing (slices, ints, None, Ellipsis, integer and boolean arrays).

The gradient scatters back: plain assignment for basic indexing, a scatter-add
(repeated indices summed) for advanced indexing.
"""

from __future__ import annotations

from typing import Any

import numpy

from minigrad import backend
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["GetItem", "GetItemGrad", "get_item"]


def _normalize_key(key: Any, xp: Any) -> tuple[tuple[Any, ...], bool]:
    """Return (key as a tuple with boolean masks turned into integer arrays, is_basic)."""
    if not isinstance(key, tuple):
        key = (key,)
    normalized: list[Any] = []
    basic = True
    for k in key:
        if isinstance(k, Variable):
            k = k.array
        if isinstance(k, list):
            k = xp.asarray(k)
        if k is None or k is Ellipsis or isinstance(k, slice):
            normalized.append(k)
        elif isinstance(k, (bool, numpy.bool_)):
            raise TypeError("get_item: a Python bool is not a valid index; use a boolean array")
        elif isinstance(k, (int, numpy.integer)):
            normalized.append(int(k))
        elif hasattr(k, "dtype") and hasattr(k, "shape"):
            basic = False
            if k.dtype == numpy.bool_:
                normalized.extend(xp.nonzero(k))
            elif k.dtype.kind in "iu":
                normalized.append(k)
            else:
                raise TypeError(f"get_item: index arrays must be integer or boolean, got dtype {k.dtype}")
        else:
            raise TypeError(f"get_item: unsupported index of type {type(k).__name__}")
    return tuple(normalized), basic


class GetItem(FunctionNode):
    def __init__(self, key: tuple[Any, ...], basic: bool) -> None:
        self.key = key
        self.basic = basic

    def forward(self, inputs):
        x, = inputs
        self.in_shape, self.in_dtype = x.shape, x.dtype
        return x[self.key],

    def backward(self, indexes, grad_outputs):
        return GetItemGrad(self.key, self.basic, self.in_shape).apply(grad_outputs)


class GetItemGrad(FunctionNode):
    """Scatter ``gy`` into zeros of the input's shape (the backward of GetItem)."""

    def __init__(self, key: tuple[Any, ...], basic: bool, shape: tuple[int, ...]) -> None:
        self.key = key
        self.basic = basic
        self.shape = shape

    def forward(self, inputs):
        gy, = inputs
        xp = backend.get_array_module(gy)
        gx = xp.zeros(self.shape, dtype=gy.dtype)
        if self.basic:
            gx[self.key] = gy
        else:
            backend.scatter_add(gx, self.key, gy)
        return gx,

    def backward(self, indexes, grad_outputs):
        return GetItem(self.key, self.basic).apply(grad_outputs)


def get_item(x: Any, slices: Any) -> Variable:
    """``x[slices]`` with NumPy semantics; repeated indices accumulate in the gradient.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.get_item(np.arange(6.0).reshape(2, 3), (slice(None), [0, 0])).array
        array([[0., 0.],
               [3., 3.]])
    """
    x = as_input("get_item", x)
    key, basic = _normalize_key(slices, x.xp)
    try:
        return GetItem(key, basic).apply((x,))[0]
    except IndexError as error:
        raise IndexError(f"get_item: invalid index for an input of shape {x.shape}: {error}") from None
