"""flip, fliplr and flipud: reverse the order along one axis (a reversed view; the gradient is flipped back)."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.functions.array._axis import axis_in
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["flip", "fliplr", "flipud"]


def _reversed(x: Variable, axis: int) -> Variable:
    return F.get_item(x, (slice(None),) * axis + (slice(None, None, -1),))


def flip(a: Any, axis: int) -> Variable:
    """Reverse the order of the elements of ``a`` along ``axis`` (``numpy.flip`` with one axis; Chainer's
    ``flip(a, axis)``).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.flip(np.array([[1.0, 2.0], [3.0, 4.0]]), 1).array
        array([[2., 1.],
               [4., 3.]])
    """
    a = as_input("flip", a, "a")
    return _reversed(a, axis_in("flip", axis, a.shape))


def fliplr(a: Any) -> Variable:
    """Reverse the order along axis 1, left to right (``numpy.fliplr``); ``a`` needs at least 2 dimensions.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.fliplr(np.array([[1.0, 2.0, 3.0]])).array
        array([[3., 2., 1.]])
    """
    a = as_input("fliplr", a, "a")
    if a.ndim < 2:
        raise ValueError(f"fliplr: a must have at least 2 dimensions, got shape {a.shape}")
    return _reversed(a, 1)


def flipud(a: Any) -> Variable:
    """Reverse the order along axis 0, up to down (``numpy.flipud``); ``a`` needs at least 1 dimension.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.flipud(np.array([1.0, 2.0, 3.0])).array
        array([3., 2., 1.])
    """
    a = as_input("flipud", a, "a")
    if a.ndim < 1:
        raise ValueError(f"flipud: a must have at least 1 dimension, got shape {a.shape}")
    return _reversed(a, 0)
