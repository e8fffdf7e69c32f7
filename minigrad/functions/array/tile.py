"""tile: repeat the whole array along each axis (reshape + broadcast_to + reshape).

Written with existing ops, so the gradient (broadcast_to's sum_to) needs no node of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

import minigrad.functions as F
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["tile"]


def tile(x: Any, reps: int | Sequence[int]) -> Variable:
    """Repeat ``x`` ``reps[i]`` times along axis ``i``, like ``numpy.tile``.

    When ``reps`` is shorter than ``x.ndim`` it is padded with leading 1s; when
    longer, ``x`` gets leading axes of length 1.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.tile(np.array([1.0, 2.0]), 2).array
        array([1., 2., 1., 2.])
        >>> F.tile(np.array([1.0, 2.0]), (2, 1)).array
        array([[1., 2.],
               [1., 2.]])
    """
    x = as_input("tile", x)
    if hasattr(reps, "tolist") and getattr(reps, "dtype", numpy.dtype(float)).kind in "iu":  # NumPy ints/arrays
        reps = reps.tolist()
    if isinstance(reps, (int, numpy.integer)) and not isinstance(reps, bool):
        reps = (reps,)
    if not isinstance(reps, Sequence) or any(
            isinstance(r, bool) or not isinstance(r, (int, numpy.integer)) for r in reps):
        raise TypeError(f"tile: reps must be an int or a sequence of ints, got {reps!r}")
    if any(r < 0 for r in reps):
        raise ValueError(f"tile: reps={tuple(reps)} has a negative count (input shape {x.shape})")
    ndim = max(x.ndim, len(reps))
    shape = (1,) * (ndim - x.ndim) + x.shape
    reps = (1,) * (ndim - len(reps)) + tuple(int(r) for r in reps)
    # Interleave a repetition axis before every axis: (1, s0, 1, s1, ...) -> (r0, s0, r1, s1, ...).
    spread = tuple(n for s in shape for n in (1, s))
    tiled = tuple(n for r, s in zip(reps, shape) for n in (r, s))
    y = F.broadcast_to(F.reshape(x, spread), tiled)
    return F.reshape(y, tuple(r * s for r, s in zip(reps, shape)))
