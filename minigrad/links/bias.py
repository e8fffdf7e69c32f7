"""``Bias``: add a learned (or given) bias broadcast along some axes."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad import initializers
from minigrad.link import Link
from minigrad.variable import Parameter, Variable

__all__ = ["Bias"]


class Bias(Link):
    """``y = x + b``, with ``b`` broadcast along ``x``'s axes ``axis, axis+1, ...``.

    Args:
        axis: the first axis of ``x`` that ``b`` lines up with.
        shape: the shape of the learned ``b`` (initialized to 0). Without it,
            call the link with the bias as second argument: ``bias(x, b)``.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> bias = L.Bias(axis=1, shape=(3,))
        >>> bias.b.array[...] = [1, 2, 3]
        >>> bias(np.zeros((2, 3, 1), dtype=np.float32)).array[0, :, 0]
        array([1., 2., 3.], dtype=float32)
    """

    def __init__(self, axis: int = 1, shape: Any = None) -> None:
        super().__init__()
        self.axis = axis
        if shape is not None:
            with self.init_scope():
                self.b = Parameter(initializers.Zero(), tuple(shape) if isinstance(shape, (tuple, list)) else shape)

    def forward(self, *xs: Any) -> Variable:
        """``bias(x)`` with the learned ``b``, or ``bias(x, b)``."""
        if len(xs) == 1 and "b" in self._params:
            x, b = xs[0], self.b
        elif len(xs) == 2:
            x, b = xs
        else:
            raise TypeError(
                f"Bias: call it as bias(x) (when created with shape=...) or bias(x, b); got {len(xs)} arguments"
            )
        return F.bias(x, b, self.axis)
