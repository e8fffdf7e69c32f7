"""repeat: repeat each element along an axis (broadcast_to or get_item underneath).

A single count is a broadcast (gradient: sum_to); per-element counts are a
gather with an integer index (gradient: scatter-add), so no new node is needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

import minigrad.functions as F
from minigrad.functions.array._axis import axis_in
from minigrad.functions.checks import as_input, require_result_size, require_size
from minigrad.variable import Variable

__all__ = ["repeat"]


def repeat(x: Any, repeats: int | Sequence[int], axis: int | None = None) -> Variable:
    """Repeat each element of ``x`` along ``axis`` (of the flattened ``x`` when ``None``), like ``numpy.repeat``.

    Args:
        x: the input array.
        repeats: one count for every element, or one count per element along ``axis`` (a bool counts 0
            or 1, as in NumPy).
        axis: the axis to repeat along; ``None`` flattens ``x`` first.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.repeat(np.array([1.0, 2.0]), 2).array
        array([1., 1., 2., 2.])
        >>> F.repeat(np.array([[1.0, 2.0]]), (1, 3), axis=1).array
        array([[1., 2., 2., 2.]])
    """
    x = as_input("repeat", x)
    if axis is None:
        x = F.reshape(x, (x.size,))
        axis = 0
    else:
        axis = axis_in("repeat", axis, x.shape)
    length = x.shape[axis]
    if isinstance(repeats, (int, numpy.integer, numpy.bool_)):  # a bool counts 0 or 1, as in NumPy and Chainer
        repeats = (int(repeats),)
    if hasattr(repeats, "tolist") and getattr(repeats, "ndim", None) == 1:
        repeats = repeats.tolist()
    if not isinstance(repeats, Sequence) or any(not isinstance(r, (int, numpy.integer, numpy.bool_)) for r in repeats):
        raise TypeError(f"repeat: repeats must be an int or a sequence of ints, got {repeats!r}")
    repeats = [int(r) for r in repeats]
    if any(r < 0 for r in repeats):
        raise ValueError(f"repeat: repeats={tuple(repeats)} has a negative count")
    repeats = [require_size("repeat", r, "repeats") for r in repeats]
    total = length * repeats[0] if len(repeats) == 1 else sum(repeats)
    require_result_size("repeat", x.shape[:axis] + (total,) + x.shape[axis + 1:], "repeats")
    if len(repeats) == 1:
        count = int(repeats[0])
        shape = x.shape
        spread = shape[: axis + 1] + (1,) + shape[axis + 1:]
        y = F.broadcast_to(F.reshape(x, spread), shape[: axis + 1] + (count,) + shape[axis + 1:])
        return F.reshape(y, shape[:axis] + (length * count,) + shape[axis + 1:])
    if len(repeats) != length:
        raise ValueError(f"repeat: {len(repeats)} repeats for axis {axis} of length {length} "
                         f"(input shape {x.shape}); give one count or one per element")
    index = x.xp.asarray(numpy.repeat(numpy.arange(length), repeats))
    return F.get_item(x, (slice(None),) * axis + (index,))
