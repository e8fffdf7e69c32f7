"""flatten: all elements in one axis (a reshape, so the gradient is reshaped back)."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["flatten"]


def flatten(x: Any) -> Variable:
    """Return the elements of ``x`` as a 1-D array (C order), like ``numpy.ravel``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.flatten(np.arange(6.0).reshape(2, 3)).array
        array([0., 1., 2., 3., 4., 5.])
    """
    x = as_input("flatten", x)
    return F.reshape(x, (x.size,))
