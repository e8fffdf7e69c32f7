"""tanh: the hyperbolic tangent, with a one-node gradient.

``tanh`` sits on the hot path of small models, so its gradient
``gy * (1 - y * y)`` is one ``TanhGrad`` node rather than three arithmetic
nodes; ``TanhGrad``'s own backward is ordinary Variable arithmetic.
"""

from __future__ import annotations

from typing import Any

from minigrad.function_node import FunctionNode
from minigrad.functions._elementwise import elementwise
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["Tanh", "TanhGrad", "tanh"]


class TanhGrad(FunctionNode):
    """``gx = gy * (1 - y * y)`` from the output ``y`` of Tanh and its gradient ``gy``."""

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        y, gy = inputs
        one = y.dtype.type(1)  # a Python 1 would make 0-dim float16/32 float64 on NumPy 1.x (scalar casting)
        return gy * (one - y * y),

    def backward(self, indexes, grad_outputs):
        y, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        return tuple(ggx * gy * y * -2.0 if i == 0 else ggx * (1.0 - y * y) for i in indexes)


Tanh = elementwise("Tanh", "tanh", lambda gy, x, y: TanhGrad().apply((y, gy))[0], uses="y")


def tanh(x: Any) -> Variable:
    """Elementwise hyperbolic tangent.

    Args:
        x: float Variable or array.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.tanh(np.array([0.0, 1.0])).array
        array([0.        , 0.76159416])
    """
    return Tanh().apply((as_input("tanh", x, float_only=True),))[0]
