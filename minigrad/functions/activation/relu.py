"""Piecewise-linear activations: relu, leaky_relu, clipped_relu, relu6.

Each is linear on every piece, so its gradient is the output gradient times a
slope array that is constant almost everywhere (taken as 0 or 1 at the kinks);
that slope is a constant of the graph, so the second derivative is zero, as it
should be, and the gradient w.r.t. ``gy`` is again a product with the slope.
"""

from __future__ import annotations

from typing import Any

from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input, constant, require_real
from minigrad.variable import Variable

__all__ = ["ReLU", "LeakyReLU", "ClippedReLU", "relu", "leaky_relu", "clipped_relu", "relu6"]


class ReLU(FunctionNode):
    def forward(self, inputs):
        self.retain_outputs((0,))
        x, = inputs
        return get_array_module(x).maximum(x, x.dtype.type(0)),  # a Python 0: float64 for 0-dim on NumPy 1

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return grad_outputs[0] * constant(y.array > 0),  # a boolean mask: float * bool keeps the float dtype


class LeakyReLU(FunctionNode):
    def __init__(self, slope: float) -> None:
        self.slope = slope

    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        return get_array_module(x).where(x >= 0, x, x * x.dtype.type(self.slope)),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        slope = x.xp.ones_like(x.array)
        slope[x.array < 0] = self.slope
        return grad_outputs[0] * constant(slope),


class ClippedReLU(FunctionNode):
    def __init__(self, z: float) -> None:
        self.z = z

    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        return get_array_module(x).clip(x, x.dtype.type(0), x.dtype.type(self.z)),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        inside = (x.array > 0) & (x.array < x.dtype.type(self.z))
        return grad_outputs[0] * constant(inside.astype(x.dtype)),


def relu(x: Any) -> Variable:
    """Rectified linear unit, ``max(x, 0)`` elementwise (gradient 0 at ``x == 0``).

    Args:
        x: float Variable or array.

    Returns:
        A Variable of ``x``'s shape and dtype.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.relu(np.array([-1.0, 0.5])).array
        array([0. , 0.5])
    """
    return ReLU().apply((as_input("relu", x, float_only=True),))[0]


def leaky_relu(x: Any, slope: float = 0.2) -> Variable:
    """Leaky ReLU: ``x`` where ``x >= 0``, ``slope * x`` elsewhere.

    Args:
        x: float Variable or array.
        slope: the slope for negative inputs.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.leaky_relu(np.array([-1.0, 2.0])).array
        array([-0.2,  2. ])
    """
    slope = require_real("leaky_relu", slope, "slope")
    return LeakyReLU(slope).apply((as_input("leaky_relu", x, float_only=True),))[0]


def clipped_relu(x: Any, z: float = 20.0) -> Variable:
    """Clipped ReLU, ``min(max(x, 0), z)`` elementwise (gradient 0 at the kinks 0 and ``z``).

    Args:
        x: float Variable or array.
        z: the positive clipping value.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.clipped_relu(np.array([-1.0, 0.5, 3.0]), z=2.0).array
        array([0. , 0.5, 2. ])
    """
    z = require_real("clipped_relu", z, "z", positive=True)
    return ClippedReLU(z).apply((as_input("clipped_relu", x, float_only=True),))[0]


def relu6(x: Any) -> Variable:
    """ReLU6, ``min(max(x, 0), 6)`` elementwise: ``clipped_relu(x, 6)``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.relu6(np.array([-1.0, 3.0, 7.0])).array
        array([0., 3., 6.])
    """
    return ClippedReLU(6.0).apply((as_input("relu6", x, float_only=True),))[0]
