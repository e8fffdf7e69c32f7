"""maxout: the maximum over each group of ``pool_size`` consecutive channels."""

from __future__ import annotations

from typing import Any

import numpy

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.functions.array._axis import axis_in
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["maxout"]


def maxout(x: Any, pool_size: int, axis: int = 1) -> Variable:
    """Split ``axis`` (length ``C``) into ``C // pool_size`` groups of ``pool_size`` and take each group's maximum.

    ``C`` must be a multiple of ``pool_size``. The gradient goes to the
    maximum of each group (to the first one, for ties), as in ``F.max``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.maxout(np.array([[1.0, 5.0, 3.0, 2.0]]), 2).array
        array([[5., 3.]])
    """
    x = as_input("maxout", x, float_only=True)
    axis = axis_in("maxout", axis, x.shape)
    if isinstance(pool_size, bool) or not isinstance(pool_size, (int, numpy.integer)) or pool_size < 1:
        raise ValueError(f"maxout: pool_size must be an int >= 1, got {pool_size!r}")
    channels = x.shape[axis]
    if channels % pool_size:
        raise ValueError(f"maxout: axis {axis} of x (shape {x.shape}) has length {channels}, "
                         f"which is not a multiple of pool_size={pool_size}")
    grouped = F.reshape(x, x.shape[:axis] + (channels // pool_size, int(pool_size)) + x.shape[axis + 1:])
    return F.max(grouped, axis=axis + 1)
