"""separate: the slices of an array along an axis, as separate outputs (split_axis + reshape)."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.functions.array._axis import axis_in
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["separate"]


def separate(x: Any, axis: int = 0) -> tuple[Variable, ...]:
    """Return ``x[0], x[1], ...`` along ``axis`` as a tuple, each without that axis.

    Slices whose output is never used get a zero gradient.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> a, b = F.separate(np.arange(6.0).reshape(2, 3))
        >>> b.array
        array([3., 4., 5.])
        >>> [y.shape for y in F.separate(np.zeros((2, 3)), axis=1)]
        [(2,), (2,), (2,)]
    """
    x = as_input("separate", x)
    axis = axis_in("separate", axis, x.shape)
    length = x.shape[axis]
    if length == 0:
        return ()
    pieces = F.SplitAxis(tuple(range(1, length)), axis).apply((x,))
    shape = x.shape[:axis] + x.shape[axis + 1:]
    return tuple(F.reshape(y, shape) for y in pieces)
