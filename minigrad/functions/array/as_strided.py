"""as_strided: a strided look at ``x``'s elements (Chainer's ``F.as_strided``, strides in elements).

Element ``(j_0, j_1, ...)`` of the result is element
``storage_offset + sum_k j_k strides[k]`` of ``x`` flattened in C order: for a
C-contiguous ``x``, the cell of its memory that Chainer's view reads. The index
of every output element is worked out on the host (no device read) and the
result is the gather ``x.ravel()[source]``, a copy with a view's values.

Chainer reads the whole buffer ``x`` lives in. Two things would make that read
depend on how the array happens to be laid out rather than on ``x``'s values,
and are refused: a non-C-contiguous ``x`` (a transposed, strided or broadcast
view, whose memory order is not its element order) and a cell outside ``x``'s
own elements (another array's value, which no gradient would reach).

The gradient adds ``gy`` into the elements read (``get_item``'s scatter-add):
overlapping windows accumulate, and every order works.
"""

from __future__ import annotations

import math
from typing import Any

import numpy

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.functions.checks import as_input, normalize_shape, require_size
from minigrad.variable import Variable

__all__ = ["as_strided"]


def _source_indexes(shape: tuple[int, ...], strides: tuple[int, ...], offset: int) -> numpy.ndarray:
    """The flat index into ``x`` of each output element, in C order."""
    indexes = numpy.full(shape, offset, dtype=numpy.int64)
    for axis, (size, stride) in enumerate(zip(shape, strides)):
        steps = numpy.arange(size, dtype=numpy.int64) * stride
        indexes = indexes + steps.reshape((size,) + (1,) * (len(shape) - axis - 1))
    return indexes.reshape(-1)


def _strides(strides: Any, shape: tuple[int, ...]) -> tuple[int, ...]:
    if isinstance(strides, (int, numpy.integer)) or not hasattr(strides, "__len__") or len(strides) != len(shape):
        raise ValueError(f"as_strided: strides must give one step per axis of shape {shape}, got {strides!r}")
    if any(isinstance(s, (bool, numpy.bool_)) or not isinstance(s, (int, numpy.integer)) for s in strides):
        raise TypeError(f"as_strided: strides must be ints (steps in elements), got {strides!r}")
    return tuple(int(s) for s in strides)


def as_strided(x: Any, shape: Any, strides: Any, storage_offset: int | None = None) -> Variable:
    """A strided view of ``x``'s elements with the given ``shape``, ``strides`` and ``storage_offset``, counted
    in elements, not bytes (Chainer's ``F.as_strided``; ``numpy.lib.stride_tricks.as_strided`` counts bytes).

    Args:
        x: a C-contiguous array or Variable of any dtype; its elements in C order are the memory viewed.
        shape: the output's shape.
        strides: one step per axis of ``shape``, in elements; negative and zero steps are allowed.
        storage_offset: the element of ``x`` the output starts at (``None``: 0, its first).

    Output element ``j`` is ``x.ravel()[storage_offset + sum_k j[k] * strides[k]]``; every element read must
    be one of ``x``'s, and ``x`` must be C-contiguous (Chainer reads the whole buffer of a non-contiguous or
    sliced ``x``, where the values depend on the layout; a ``ValueError`` says so here). The result is a new
    array, not a view, so writing to it does not change ``x``. Overlapping reads add up in the gradient.

    Example:
        >>> import numpy as np, minigrad as mg, minigrad.functions as F
        >>> x = mg.Variable(np.arange(4.0))
        >>> y = F.as_strided(x, (3, 2), (1, 1), 0)   # sliding windows of two
        >>> y.array
        array([[0., 1.],
               [1., 2.],
               [2., 3.]])
        >>> F.sum(y).backward()
        >>> x.grad
        array([1., 2., 2., 1.])
    """
    x = as_input("as_strided", x)
    shape = normalize_shape("as_strided", shape)
    strides = _strides(strides, shape)
    offset = 0 if storage_offset is None else require_size("as_strided", storage_offset, "storage_offset")
    if not x.array.flags.c_contiguous:
        raise ValueError(f"as_strided: x (shape {x.shape}, strides {x.array.strides} in bytes) is not C-contiguous, "
                         f"so its memory order is not its element order; Chainer would read the buffer in memory "
                         f"order. Pass a C-contiguous x (e.g. x * 1 makes one)")
    flat = F.reshape(x, (x.size,))
    if math.prod(shape) == 0:  # reads nothing
        return F.reshape(flat[0:0], shape)
    reach = [(n - 1) * s for n, s in zip(shape, strides)]  # Python ints: no overflow before the bounds check
    lowest = offset + sum(r for r in reach if r < 0)
    highest = offset + sum(r for r in reach if r > 0)
    if lowest < 0 or highest >= x.size:
        raise ValueError(f"as_strided: the view (shape {shape}, strides {strides}, storage_offset {offset}) reads "
                         f"elements {lowest}..{highest}, but x of shape {x.shape} has elements 0..{x.size - 1}")
    source = x.xp.asarray(_source_indexes(shape, strides, offset))
    return F.reshape(F.GetItem((source,), False).apply((flat,))[0], shape)
