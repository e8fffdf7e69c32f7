"""``force_array``: a NumPy scalar (what NumPy returns for a 0-d result) as a 0-d array, as Chainer's utils has it."""

from __future__ import annotations

from typing import Any

import numpy

__all__ = ["force_array"]


def force_array(x: Any, dtype: Any = None) -> Any:
    """``x`` as an array: a scalar becomes a 0-d NumPy array; with ``dtype``, cast (without copying when it matches).

    Example:
        >>> import numpy as np
        >>> from minigrad.utils import force_array
        >>> force_array(np.float32(2) * np.float32(3))
        array(6., dtype=float32)
        >>> force_array(np.ones(2), np.float32)
        array([1., 1.], dtype=float32)
    """
    if numpy.isscalar(x):
        return numpy.array(x, dtype)
    return x if dtype is None else x.astype(dtype, copy=False)
