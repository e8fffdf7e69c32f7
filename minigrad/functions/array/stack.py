"""stack, hstack, vstack: join arrays along a new or existing axis (expand_dims/reshape + concat)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import minigrad.functions as F
from minigrad.functions.array._axis import axis_in
from minigrad.functions.array.concat import as_inputs, join
from minigrad.variable import Variable

__all__ = ["stack", "hstack", "vstack", "dstack"]


def stack(xs: Sequence[Any], axis: int = 0) -> Variable:
    """Join arrays of one shape along a new axis ``axis``, like ``numpy.stack``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.stack((np.zeros(3), np.ones(3)), axis=1).shape
        (3, 2)
    """
    xs = as_inputs("stack", xs)
    shape = xs[0].shape
    for i, x in enumerate(xs[1:], 1):
        if x.shape != shape:
            raise ValueError(f"stack: xs[{i}] has shape {x.shape} but xs[0] has shape {shape}; "
                             "all inputs must have the same shape")
    axis = axis_in("stack", axis, shape, new_axis=True)
    expanded = shape[:axis] + (1,) + shape[axis:]
    return F.Concat(axis).apply(tuple(F.reshape(x, expanded) for x in xs))[0]


def hstack(xs: Sequence[Any]) -> Variable:
    """Concatenate horizontally: along axis 0 for 1-D inputs, else axis 1 (``numpy.hstack``).

    0-dim inputs are treated as 1-D arrays of one element.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.hstack((np.zeros(2), np.ones(1))).array
        array([0., 0., 1.])
        >>> F.hstack((np.zeros((2, 1)), np.ones((2, 2)))).shape
        (2, 3)
    """
    xs = tuple(F.reshape(x, (1,)) if x.ndim == 0 else x for x in as_inputs("hstack", xs))
    return join("hstack", xs, 0 if xs[0].ndim == 1 else 1)


def vstack(xs: Sequence[Any]) -> Variable:
    """Concatenate vertically along axis 0; 1-D inputs of length n become rows ``(1, n)`` (``numpy.vstack``).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.vstack((np.zeros(3), np.ones(3))).array
        array([[0., 0., 0.],
               [1., 1., 1.]])
    """
    xs = tuple(F.reshape(x, (1,) * (2 - x.ndim) + x.shape) if x.ndim < 2 else x for x in as_inputs("vstack", xs))
    return join("vstack", xs, 0)


def dstack(xs: Sequence[Any]) -> Variable:
    """Concatenate along axis 2 (depth); ``(n,)`` inputs become ``(1, n, 1)`` and ``(m, n)`` ones ``(m, n, 1)``
    (``numpy.dstack``).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.dstack((np.zeros((2, 3)), np.ones((2, 3)))).shape
        (2, 3, 2)
    """
    def as_3d(x: Variable) -> Variable:
        if x.ndim >= 3:
            return x
        return F.reshape(x, (1, x.size, 1) if x.ndim < 2 else x.shape + (1,))

    return join("dstack", tuple(as_3d(x) for x in as_inputs("dstack", xs)), 2)
