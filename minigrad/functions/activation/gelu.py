"""gelu, ``x * Phi(x)`` with ``Phi`` the standard normal CDF, in its exact erf form.

NumPy has no ``erf``, so it is computed here, in float64, from two classic
expansions (Abramowitz & Stegun 7.1.6 and 7.1.14), each used where it
converges fast:

* ``|x| < 2``: ``erf(x) = 2/sqrt(pi) * exp(-x^2) * sum_k 2^k x^(2k+1) / (1*3*...*(2k+1))``;
  every term is positive (no cancellation) and 32 terms reach full precision;
* ``|x| >= 2``: the continued fraction
  ``erfc(x) = exp(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...))))``,
  evaluated bottom-up from a fixed depth of 50, which is relatively accurate
  for ``erfc`` itself, so ``Phi`` keeps its precision deep in the left tail.

Both are checked against ``math.erf``/``math.erfc`` to 1e-13 relative over the
whole real line in the tests.
"""

from __future__ import annotations

import math
from typing import Any

import numpy

import minigrad.functions as F
from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["GELU", "NormalCDF", "gelu"]

_SWITCH = 2.0  # below: the series; at or above: the continued fraction
_SERIES_TERMS = 32
_FRACTION_DEPTH = 50
_INV_SQRT_PI = 1 / math.sqrt(math.pi)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


def _erf_and_erfc_of_nonnegative(a: Any) -> tuple[Any, Any]:
    """``(erf(a), erfc(a))`` for a float64 array ``a >= 0`` (NaN propagates)."""
    xp = get_array_module(a)
    s = xp.minimum(a, _SWITCH)
    s2 = s * s
    term = s.copy()
    series = s.copy()
    for k in range(1, _SERIES_TERMS):
        term *= s2 * (2.0 / (2 * k + 1))
        series += term
    erf_small = series * xp.exp(-s2) * (2 * _INV_SQRT_PI)

    c = xp.maximum(a, _SWITCH)
    fraction = c.copy()
    for k in range(_FRACTION_DEPTH, 0, -1):
        fraction = c + (k / 2) / fraction
    erfc_large = xp.exp(-c * c) * _INV_SQRT_PI / fraction

    small = a < _SWITCH
    return xp.where(small, erf_small, 1.0 - erfc_large), xp.where(small, 1.0 - erf_small, erfc_large)


def erf_array(x: Any) -> Any:
    """The error function of a float array (NumPy or CuPy), in ``x``'s dtype.

    Example:
        >>> import numpy as np
        >>> from minigrad.functions.activation.gelu import erf_array
        >>> erf_array(np.array([-0.5, 0.0, 3.0]))
        array([-0.52049988,  0.        ,  0.99997791])
    """
    x64 = x.astype(numpy.float64)
    erf, _ = _erf_and_erfc_of_nonnegative(abs(x64))
    return (get_array_module(x).sign(x64) * erf).astype(x.dtype, copy=False)


def erfc_array(x: Any) -> Any:
    """The complementary error function ``1 - erf(x)``, relatively accurate where it is tiny.

    Example:
        >>> import numpy as np
        >>> from minigrad.functions.activation.gelu import erfc_array
        >>> float(erfc_array(np.array([10.0]))[0])
        2.088487583762545e-45
    """
    x64 = x.astype(numpy.float64)
    _, erfc = _erf_and_erfc_of_nonnegative(abs(x64))
    return get_array_module(x).where(x64 < 0, 2.0 - erfc, erfc).astype(x.dtype, copy=False)


def _normal_cdf_array(x: Any) -> Any:
    return (erfc_array(x.astype(numpy.float64) * -math.sqrt(0.5)) * 0.5).astype(x.dtype, copy=False)


class NormalCDF(FunctionNode):
    """``Phi(x)``, the standard normal CDF; ``output`` reuses a value computed by the caller."""

    def __init__(self, output: Any = None) -> None:
        self.output = output

    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        y = _normal_cdf_array(x) if self.output is None else self.output
        self.output = None
        return y,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] * (F.exp(x * x * -0.5) * _INV_SQRT_2PI),


class GELU(FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        self.cdf = _normal_cdf_array(x)
        return x * self.cdf,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        cdf = NormalCDF(self.cdf).apply((x,))[0]
        # d/dx x * Phi(x) = Phi(x) + x * phi(x)
        return grad_outputs[0] * (cdf + x * F.exp(x * x * -0.5) * _INV_SQRT_2PI),


def gelu(x: Any) -> Variable:
    """Gaussian error linear unit, ``x * Phi(x) = x / 2 * (1 + erf(x / sqrt(2)))``.

    The exact form (not the tanh approximation); accurate to about 1e-15
    relative in float64, including the far left tail.

    Args:
        x: float Variable or array.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.gelu(np.array([-1.0, 0.0, 1.0])).array
        array([-0.15865525,  0.        ,  0.84134475])
    """
    return GELU().apply((as_input("gelu", x, float_only=True),))[0]
