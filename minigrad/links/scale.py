"""``Scale``: multiply by a learned (or given) scale broadcast along some axes, optionally add a bias."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad import initializers
from minigrad.link import Chain
from minigrad.links.bias import Bias
from minigrad.variable import Parameter, Variable

__all__ = ["Scale"]


class Scale(Chain):
    """``y = x * W (+ b)``, with ``W`` broadcast along ``x``'s axes ``axis, axis+1, ...``.

    Args:
        axis: the first axis of ``x`` that ``W`` lines up with.
        W_shape: the shape of the learned ``W`` (initialized to 1). Without
            it, call the link with the scale as second argument: ``scale(x, W)``.
        bias_term: also add a learned bias (a child ``Bias`` link named ``bias``).
        bias_shape: the bias's shape (needed when ``W_shape`` is not given).

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> scale = L.Scale(axis=1, W_shape=(2,), bias_term=True)
        >>> scale.W.array[...] = [2, 3]
        >>> scale(np.ones((1, 2), dtype=np.float32)).array
        array([[2., 3.]], dtype=float32)
    """

    def __init__(self, axis: int = 1, W_shape: Any = None, bias_term: bool = False, bias_shape: Any = None) -> None:
        super().__init__()
        self.axis = axis
        with self.init_scope():
            if W_shape is not None:
                shape = tuple(W_shape) if isinstance(W_shape, (tuple, list)) else W_shape
                self.W = Parameter(initializers.One(), shape)
            if bias_term:
                shape = W_shape if W_shape is not None else bias_shape
                if shape is None:
                    raise ValueError("Scale: bias_term=True needs W_shape or bias_shape to size the bias")
                self.bias = Bias(axis, shape)

    def forward(self, *xs: Any) -> Variable:
        """``scale(x)`` with the learned ``W``, or ``scale(x, W)``."""
        if len(xs) == 1 and "W" in self._params:
            x, W = xs[0], self.W
        elif len(xs) == 2:
            x, W = xs
        else:
            raise TypeError(
                f"Scale: call it as scale(x) (when created with W_shape=...) or scale(x, W); got {len(xs)} arguments"
            )
        y = F.scale(x, W, self.axis)
        return self.bias(y) if "bias" in self._children else y
