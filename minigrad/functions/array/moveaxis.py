"""moveaxis and rollaxis: move axes to new positions (a transpose, so the gradient is transposed back)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

import minigrad.functions as F
from minigrad.functions.array._axis import axes_in, axis_in
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["moveaxis", "rollaxis"]


def moveaxis(x: Any, source: int | Sequence[int], destination: int | Sequence[int]) -> Variable:
    """Move axes ``source`` to positions ``destination``; the others keep their order (``numpy.moveaxis``).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.moveaxis(np.zeros((2, 3, 4)), 0, -1).shape
        (3, 4, 2)
        >>> F.moveaxis(np.zeros((2, 3, 4)), (0, 1), (2, 0)).shape
        (3, 4, 2)
    """
    x = as_input("moveaxis", x)
    source = axes_in("moveaxis", source, x.shape, "source")
    destination = axes_in("moveaxis", destination, x.shape, "destination")
    if len(source) != len(destination):
        raise ValueError(f"moveaxis: source {source} and destination {destination} must name as many axes")
    order = [a for a in range(x.ndim) if a not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return F.transpose(x, tuple(order))


def rollaxis(x: Any, axis: int, start: int = 0) -> Variable:
    """Move axis ``axis`` so that it comes before the axis now at ``start`` (``numpy.rollaxis``).

    ``start`` may be ``x.ndim`` (move the axis last).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.rollaxis(np.zeros((2, 3, 4)), 2).shape
        (4, 2, 3)
        >>> F.rollaxis(np.zeros((2, 3, 4)), 0, 3).shape
        (3, 4, 2)
    """
    x = as_input("rollaxis", x)
    axis = axis_in("rollaxis", axis, x.shape)
    if isinstance(start, bool) or not isinstance(start, (int, numpy.integer)):
        raise TypeError(f"rollaxis: start must be an int, got {type(start).__name__}")
    if not -x.ndim <= start <= x.ndim:  # x.ndim itself: move the axis last
        raise ValueError(f"rollaxis: start={start} is out of range for an input of shape {x.shape} "
                         f"(valid: {-x.ndim} to {x.ndim})")
    start = int(start) + x.ndim if start < 0 else int(start)
    order = [a for a in range(x.ndim) if a != axis]
    order.insert(start - (start > axis), axis)
    return F.transpose(x, tuple(order))
