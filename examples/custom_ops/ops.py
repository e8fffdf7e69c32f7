"""Two ops written the way minigrad's own are: a FunctionNode and a lower-case wrapper."""

from __future__ import annotations

from minigrad import FunctionNode, Variable
from minigrad import functions as F
from minigrad.backend import get_array_module
from minigrad.functions.checks import as_input


class Softsign(FunctionNode):
    """y = x / (1 + |x|); dy/dx = 1 / (1 + |x|)^2."""

    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        return x / (1 + get_array_module(x).abs(x)),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        return gy / (1 + abs(x)) ** 2,


def softsign(x: Variable) -> Variable:
    """Softsign, ``x / (1 + |x|)``, elementwise.

    Example:
        >>> import numpy as np
        >>> from custom_ops import softsign
        >>> softsign(np.array([-1.0, 0.0, 3.0])).array
        array([-0.5 ,  0.  ,  0.75])
    """
    return Softsign().apply((as_input("softsign", x, float_only=True),))[0]  # a bad x: an error naming softsign


class SinCos(FunctionNode):
    """(sin x, cos x) in one node; either output's gradient may be missing (None)."""

    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        xp = get_array_module(x)
        return xp.sin(x), xp.cos(x)

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        g_sin, g_cos = grad_outputs
        gx = None
        if g_sin is not None:
            gx = g_sin * F.cos(x)
        if g_cos is not None:
            term = -g_cos * F.sin(x)
            gx = term if gx is None else gx + term
        return gx,


def sincos(x: Variable) -> tuple[Variable, Variable]:
    """``(sin(x), cos(x))``, sharing one node.

    Example:
        >>> import numpy as np
        >>> from custom_ops import sincos
        >>> s, c = sincos(np.array([0.0]))
        >>> float(s.array[0]), float(c.array[0])
        (0.0, 1.0)
    """
    return SinCos().apply((as_input("sincos", x, float_only=True),))
