"""moveaxis: move axes to new positions (a transpose, so the gradient is transposed back)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from minigrad.functions.array._axis import axes_in
from minigrad.functions.array.transpose import transpose
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["moveaxis"]


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
    return transpose(x, tuple(order))
