"""``force_array`` (a NumPy scalar, what NumPy returns for a 0-d result, as a 0-d array) and ``size_of_shape``, as
Chainer's utils has them."""

from __future__ import annotations

from typing import Any

import numpy

__all__ = ["force_array", "size_of_shape"]


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


def size_of_shape(shape: Any) -> int:
    """The number of elements of an array of ``shape`` (1 for ``()``), as Chainer's ``utils.size_of_shape``.

    Example:
        >>> from minigrad.utils import size_of_shape
        >>> size_of_shape((2, 3, 4)), size_of_shape(())
        (24, 1)
    """
    size = 1
    for n in shape:
        size *= int(n)
    return size
