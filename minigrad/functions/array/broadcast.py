"""broadcast_to, broadcast, and the one helper that broadcasts the operands of every elementwise op.

Elementwise ops never reduce broadcast gradients themselves: their operands are
broadcast here, through ``BroadcastTo`` nodes, whose backward (``sum_to``) is
the single place a gradient is summed back to an input's shape.
"""

from __future__ import annotations

from typing import Any

import numpy

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.backend import get_array_module
from minigrad.configuration import config
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input, normalize_shape
from minigrad.variable import Variable

__all__ = ["BroadcastTo", "broadcast_to", "broadcast"]


class BroadcastTo(FunctionNode):
    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape

    def forward(self, inputs):
        x, = inputs
        self.in_shape = x.shape
        return get_array_module(x).broadcast_to(x, self.shape),

    def backward(self, indexes, grad_outputs):
        return F.sum_to(grad_outputs[0], self.in_shape),


def broadcast_to(x: Any, shape: Any) -> Variable:
    """Broadcast ``x`` to ``shape`` like ``numpy.broadcast_to``; the gradient is summed back.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.broadcast_to(np.array([1.0, 2.0]), (2, 2)).array
        array([[1., 2.],
               [1., 2.]])
    """
    x = as_input("broadcast_to", x)
    shape = normalize_shape("broadcast_to", shape)
    if x.shape == shape:
        return x
    try:
        common = numpy.broadcast_shapes(x.shape, shape)
    except ValueError:
        common = None
    if common != shape:
        raise ValueError(f"broadcast_to: cannot broadcast an input of shape {x.shape} to shape {shape}")
    return BroadcastTo(shape).apply((x,))[0]


def broadcast(*args: Any) -> Variable | tuple[Variable, ...]:
    """Broadcast the inputs to their common shape, like ``numpy.broadcast_arrays`` (Chainer's ``F.broadcast``).

    Returns a tuple of Variables, or the one Variable when given one input.
    Each gradient is summed back to its input's shape.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> a, b = F.broadcast(np.array([1.0, 2.0]), np.array([[10.0], [20.0]]))
        >>> a.shape, b.array
        ((2, 2), array([[10., 10.],
               [20., 20.]]))
    """
    if not args:
        raise TypeError("broadcast: needs at least one input")
    xs = [as_input("broadcast", x, f"args[{i}]") for i, x in enumerate(args)]
    try:
        shape = numpy.broadcast_shapes(*(x.shape for x in xs))
    except ValueError:
        shapes = ", ".join(str(x.shape) for x in xs)
        raise ValueError(f"broadcast: inputs could not be broadcast together: shapes {shapes}") from None
    outputs = tuple(broadcast_to(x, shape) for x in xs)
    return outputs[0] if len(outputs) == 1 else outputs


def broadcast_operands(op: str, operands: tuple[Variable, ...]) -> tuple[Variable, ...]:
    """Give every operand that needs a gradient the common shape and dtype.

    Operands that need no gradient are left to NumPy's own broadcasting in the
    forward pass (they cost nothing). Unbroadcastable shapes are a ValueError
    naming ``op`` and every shape.
    """
    first = operands[0].array
    shape, dtype = first.shape, first.dtype
    same_shape = same_dtype = True
    for x in operands[1:]:
        data = x.array
        if data.shape != shape:
            same_shape = False
        if data.dtype != dtype:
            same_dtype = False
    if same_shape and same_dtype:
        return operands
    if not same_shape:
        try:
            shape = numpy.broadcast_shapes(*(x.array.shape for x in operands))
        except ValueError:
            shapes = ", ".join(str(x.shape) for x in operands)
            raise ValueError(f"{op}: operands could not be broadcast together: shapes {shapes}") from None
    if not same_dtype:
        dtype = numpy.result_type(*(x.array.dtype for x in operands))
    recording = config.enable_backprop
    result = []
    for x in operands:
        if recording and x.requires_grad:
            if x.array.dtype != dtype:
                x = F.cast(x, dtype)
            if x.array.shape != shape:
                x = BroadcastTo(shape).apply((x,))[0]
        result.append(x)
    return tuple(result)
