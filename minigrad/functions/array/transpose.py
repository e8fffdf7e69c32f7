"""transpose: permute axes; the gradient is permuted back by the inverse permutation."""

from __future__ import annotations

from typing import Any

import numpy

from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input, normalize_axis
from minigrad.variable import Variable

__all__ = ["Transpose", "transpose"]


class Transpose(FunctionNode):
    def __init__(self, axes: tuple[int, ...]) -> None:
        self.axes = axes

    def forward(self, inputs):
        return inputs[0].transpose(self.axes),

    def backward(self, indexes, grad_outputs):
        inverse = tuple(numpy.argsort(self.axes).tolist())
        return transpose(grad_outputs[0], inverse),


def transpose(x: Any, axes: Any = None) -> Variable:
    """Permute the axes of ``x`` (reverse them when ``axes`` is ``None``), like ``numpy.transpose``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.transpose(np.zeros((2, 3, 4)), (1, 0, 2)).shape
        (3, 2, 4)
    """
    x = as_input("transpose", x)
    if axes is None:
        axes = tuple(range(x.ndim))[::-1]
    else:
        if not isinstance(axes, (tuple, list)):
            raise TypeError(f"transpose: axes must be None or a tuple of ints, got {type(axes).__name__}")
        axes = tuple(normalize_axis("transpose", a, x.ndim, "axes") for a in axes)
        if sorted(axes) != list(range(x.ndim)):
            raise ValueError(f"transpose: axes {axes} is not a permutation of the {x.ndim} axes of shape {x.shape}")
    if axes == tuple(range(x.ndim)):
        return x
    return Transpose(axes).apply((x,))[0]
