"""Piecewise-linear activations: relu, leaky_relu, clipped_relu, relu6.

Each is linear on every piece, so its gradient is the output gradient times a
slope array that is constant almost everywhere (taken as 0 or 1 at the kinks);
that slope is a constant of the graph, so the second derivative is zero, as it
should be, and the gradient w.r.t. ``gy`` is again a product with the slope.
"""

from __future__ import annotations

from typing import Any

from minigrad.functions._elementwise import elementwise
from minigrad.functions.checks import as_input, constant, require_real
from minigrad.variable import Variable

__all__ = ["ReLU", "LeakyReLU", "ClippedReLU", "relu", "leaky_relu", "clipped_relu", "relu6"]


def _leaky_slope(x: Variable, slope: float) -> Variable:
    ones = x.xp.ones_like(x.array)
    ones[x.array < 0] = slope
    return constant(ones)


def _inside_clip(x: Variable, z: float) -> Variable:
    inside = (x.array > 0) & (x.array < x.dtype.type(z))
    return constant(inside.astype(x.dtype))


# name, forward f(xp, x, *params), backward gx(gy, x, y, *params): see minigrad.functions._elementwise.
# (A Python 0 beside a 0-dim array would be float64 on NumPy 1: the constants take x's dtype.)
ReLU = elementwise("ReLU", lambda xp, x: xp.maximum(x, x.dtype.type(0)),
                   lambda gy, x, y: gy * constant(y.array > 0), uses="y")  # float * bool keeps the float dtype
LeakyReLU = elementwise("LeakyReLU", lambda xp, x, slope: xp.where(x >= 0, x, x * x.dtype.type(slope)),
                        lambda gy, x, y, slope: gy * _leaky_slope(x, slope), params=("slope",))
ClippedReLU = elementwise("ClippedReLU", lambda xp, x, z: xp.clip(x, x.dtype.type(0), x.dtype.type(z)),
                          lambda gy, x, y, z: gy * _inside_clip(x, z), params=("z",))


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
