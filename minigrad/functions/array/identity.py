"""identity: passes its inputs through unchanged (joins several outputs into one node)."""

from __future__ import annotations

from typing import Any

from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["Identity", "identity"]


class Identity(FunctionNode):
    def forward(self, inputs):
        return inputs

    def backward(self, indexes, grad_outputs):
        return tuple(grad_outputs[i] for i in indexes)


def identity(*inputs: Any) -> Variable | tuple[Variable, ...]:
    """Return the inputs unchanged, as outputs of one ``Identity`` node.

    One input gives one Variable; several give a tuple.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.identity(np.array([1.0, 2.0])).array
        array([1., 2.])
    """
    if not inputs:
        raise ValueError("identity: needs at least one input")
    ys = Identity().apply(tuple(as_input("identity", x) for x in inputs))
    return ys[0] if len(ys) == 1 else ys
