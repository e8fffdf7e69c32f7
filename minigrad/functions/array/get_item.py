"""get_item: NumPy indexing (slices, ints, None, Ellipsis, integer and boolean arrays).

The gradient scatters back: plain assignment for basic indexing, a scatter-add
(repeated indices summed) for advanced indexing.
"""

from __future__ import annotations

from typing import Any

import numpy

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
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
            if k.size == 0:  # an empty list indexes nothing: NumPy reads it as integers, not as float64
                k = k.astype(numpy.intp)
        elif xp is not numpy and isinstance(k, numpy.ndarray):
            k = xp.asarray(k)  # host index arrays go to the input's device (CuPy's functions refuse them)
        if k is None or k is Ellipsis or isinstance(k, slice):
            normalized.append(k)
        elif isinstance(k, (bool, numpy.bool_)):
            raise TypeError("get_item: a Python bool is not a valid index; use a boolean array")
        elif isinstance(k, (int, numpy.integer)):
            normalized.append(int(k))
        elif hasattr(k, "dtype") and hasattr(k, "shape"):
            basic = False
            if k.dtype == numpy.bool_:
                if k.ndim == 0:
                    raise TypeError("get_item: a 0-dimensional boolean index is supported only as the whole index")
                normalized.extend(xp.nonzero(k))
            elif k.dtype.kind in "iu":
                normalized.append(k)
            else:
                raise TypeError(f"get_item: index arrays must be integer or boolean, got dtype {k.dtype}")
        else:
            raise TypeError(f"get_item: unsupported index of type {type(k).__name__}")
    return tuple(normalized), basic


def _check_key(key: Any, shape: tuple[int, ...], xp: Any) -> None:
    """IndexError for a boolean mask that does not match ``shape`` (``nonzero`` would hide it), and, off
    NumPy, for out-of-bounds integer index arrays (CuPy wraps them silently; NumPy raises by itself)."""
    items = [getattr(k, "array", k) for k in (key if isinstance(key, tuple) else (key,))]  # Variables' arrays
    items = [numpy.asarray(k) if isinstance(k, list) else k for k in items]

    def is_mask(k: Any) -> bool:
        return hasattr(k, "dtype") and k.dtype == numpy.bool_

    used = sum(0 if k is None or k is Ellipsis else k.ndim if is_mask(k) else 1 for k in items)
    axis, checked = 0, []
    for k in items:
        if k is Ellipsis:
            axis += len(shape) - used
        elif is_mask(k):
            # (an empty 1-d mask is an empty index in NumPy, whatever the axis's length)
            if tuple(k.shape) != tuple(shape[axis:axis + k.ndim]) and not (k.ndim == 1 and k.size == 0):
                raise IndexError(f"boolean index of shape {tuple(k.shape)} does not match the indexed dimensions "
                                 f"{tuple(shape[axis:axis + k.ndim])} (axis {axis})")
            axis += k.ndim
        elif k is not None:
            if hasattr(k, "dtype") and axis < len(shape) and k.size and xp is not numpy:
                checked.append((k, axis, shape[axis]))
            axis += 1
    if not checked:
        return
    bad = [((k < -n) | (k >= n)).any() for k, _, n in checked]
    if bool(sum(bad[1:], bad[0])):  # one device-to-host sync for the whole key
        k, axis, n = next(c for c, b in zip(checked, bad) if bool(b))
        raise IndexError(f"index {int(k.min())}..{int(k.max())} is out of bounds for axis {axis} with size {n}")


def _zero_dim_mask(slices: Any) -> bool | None:
    """The value of a key that is one 0-dimensional boolean array (alone or in a 1-tuple), else None."""
    key = slices[0] if isinstance(slices, tuple) and len(slices) == 1 else slices
    key = getattr(key, "array", key)
    if hasattr(key, "dtype") and key.dtype == numpy.bool_ and key.ndim == 0:
        return bool(key)
    return None


def index_key(slices: Any, shape: tuple[int, ...], xp: Any) -> tuple[tuple[Any, ...], bool]:
    """``slices`` as the nodes here take it (boolean masks as integer index arrays) and whether it is a basic
    index, after the checks NumPy would not make: ``TypeError`` for what is not an index, ``IndexError`` for
    a mask of the wrong shape or (off NumPy) an out-of-range index array, for an array of ``shape``."""
    key, basic = _normalize_key(slices, xp)
    _check_key(slices, shape, xp)
    return key, basic


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
    mask = _zero_dim_mask(slices)
    if mask is not None:  # x[True] is x with a new leading axis of length 1; x[False] has it of length 0
        return GetItem((slice(0, 1 if mask else 0),), True).apply((F.expand_dims(x, 0),))[0]
    try:
        key, basic = index_key(slices, x.shape, x.xp)
        return GetItem(key, basic).apply((x,))[0]
    except IndexError as error:
        raise IndexError(f"get_item: invalid index for an input of shape {x.shape}: {error}") from None
