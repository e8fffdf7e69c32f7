"""reshape: same elements, new shape; the gradient is reshaped back."""

from __future__ import annotations

from typing import Any

import numpy

from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input, normalize_shape
from minigrad.variable import Variable

__all__ = ["Reshape", "reshape"]


class Reshape(FunctionNode):
    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape

    def forward(self, inputs):
        x, = inputs
        self.in_shape = x.shape
        return x.reshape(self.shape),

    def backward(self, indexes, grad_outputs):
        return reshape(grad_outputs[0], self.in_shape),


def reshape(x: Any, shape: Any) -> Variable:
    """Give ``x`` a new shape (one entry may be -1), like ``numpy.reshape``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.reshape(np.arange(6.0), (2, 3)).shape
        (2, 3)
    """
    x = as_input("reshape", x)
    shape = normalize_shape("reshape", shape, negative_ok=True)  # one -1 is resolved below
    resolved = _resolve_shape(x.shape, x.size, shape)
    if resolved is None:
        raise ValueError(f"reshape: cannot reshape an input of shape {x.shape} (size {x.size}) into shape {shape}")
    if resolved == x.shape:
        return x
    return Reshape(resolved).apply((x,))[0]


def _resolve_shape(in_shape: tuple[int, ...], size: int, shape: tuple[int, ...]) -> tuple[int, ...] | None:
    """``shape`` with its -1 filled in, or ``None`` when it cannot hold ``size`` elements."""
    unknown = [i for i, n in enumerate(shape) if n == -1]
    if len(unknown) > 1 or any(n < -1 for n in shape):
        return None
    known = int(numpy.prod([n for n in shape if n != -1], dtype=numpy.int64))
    if unknown:
        if known == 0 or size % known:
            return None
        shape = shape[: unknown[0]] + (size // known,) + shape[unknown[0] + 1 :]
        known = size
    return shape if known == size else None
