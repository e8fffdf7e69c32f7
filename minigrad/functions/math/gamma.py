"""The log-gamma function and its derivatives: lgamma, digamma (``psi``) and polygamma (``psi^(n)``).

Computed once through the array module in float64 (float16/32 inputs are
upcast and rounded back), without SciPy:

- ``lgamma``: Taylor series of ``lgamma(1 + z)`` and ``lgamma(2 + z)`` in the
  zeta values for ``x`` in (0, 3.5) (they keep full relative precision at the
  zeros ``x = 1, 2``); above, Stirling's series after shifting ``x`` past 10;
  ``x <= 0`` by the reflection ``lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x)``;
- ``digamma``: the recurrence ``psi(x) = psi(x + 10) - sum 1/(x + i)`` up to
  the asymptotic series, reflection ``psi(x) = psi(1 - x) - pi / tan(pi x)`` below 0;
- ``polygamma(n, x)``: the same recurrence and asymptotic series for
  ``psi^(n)``, shifted past ``20 + n`` (so the series converges to float64).

``lgamma' = digamma``, ``digamma' = polygamma(1, .)`` and ``polygamma(n, .)' =
polygamma(n + 1, .)``: each gradient is the next op, so every order works.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.functions._elementwise import elementwise
from minigrad.functions.checks import as_input, require_integer
from minigrad.variable import Variable

__all__ = ["LGamma", "DiGamma", "PolyGamma", "lgamma", "digamma", "polygamma"]

_EULER_GAMMA = 0.5772156649015329


def _bernoulli(count: int) -> list[float]:
    """B_2, B_4, ..., B_{2 count} (Akiyama-Tanigawa, in exact fractions)."""
    size = 2 * count + 1
    row = [Fraction(0)] * (size + 1)
    numbers = []
    for m in range(size + 1):
        row[m] = Fraction(1, m + 1)
        for j in range(m, 0, -1):
            row[j - 1] = j * (row[j - 1] - row[j])
        numbers.append(row[0])
    return [float(numbers[2 * k]) for k in range(1, count + 1)]


_B = _bernoulli(10)  # B_2 .. B_20


def _zeta_minus_one(s: int) -> float:
    """``zeta(s) - 1`` for an integer ``s >= 2``: nine terms, then Euler-Maclaurin from 10 on."""
    n = 10
    total = math.fsum(j ** -s for j in range(2, n)) + n ** (1 - s) / (s - 1) + 0.5 * n ** -s
    rising = float(s)
    for m, b in enumerate(_B[:8], start=1):
        total += b / math.factorial(2 * m) * rising * n ** (-s - 2 * m + 1)
        rising *= (s + 2 * m - 1) * (s + 2 * m)
    return total


_ZETA_MINUS_ONE = [0.0, 0.0] + [_zeta_minus_one(s) for s in range(2, 60)]
# lgamma(1 + z) = -gamma z + sum_k (-1)^k zeta(k) / k z^k; lgamma(2 + z) the same with zeta(k) - 1 (|z| <= 1/2)
_AROUND_ONE = [0.0, -_EULER_GAMMA] + [(-1) ** k * (1.0 + _ZETA_MINUS_ONE[k]) / k for k in range(2, 60)]
_AROUND_TWO = [0.0, 1.0 - _EULER_GAMMA] + [(-1) ** k * _ZETA_MINUS_ONE[k] / k for k in range(2, 36)]


def _horner(z: Any, coefficients: list[float]) -> Any:
    total = 0.0 * z
    for c in reversed(coefficients):
        total = total * z + c
    return total


def _stirling(xp: Any, y: Any) -> Any:
    """``lgamma(y)`` for ``y >= 10``."""
    inverse = 1.0 / y
    square = inverse * inverse
    series = _horner(square, [b / (2 * k * (2 * k - 1)) for k, b in enumerate(_B[:8], start=1)]) * inverse
    return (y - 0.5) * xp.log(y) - y + 0.5 * math.log(2.0 * math.pi) + series


def _lgamma_positive(xp: Any, x: Any) -> Any:
    """``lgamma(x)`` for ``x > 0`` (NaN and inf pass)."""
    small = x < 0.5
    around_one = _horner(xp.where(small, x, x - 1.0), _AROUND_ONE) - xp.where(small, xp.log(x), 0.0)
    below_three = xp.where(x < 2.5, x, x - 1.0)  # lgamma(x) = lgamma(x - 1) + log(x - 1) on [2.5, 3.5)
    around_two = _horner(below_three - 2.0, _AROUND_TWO) + xp.where(x < 2.5, 0.0, xp.log(x - 1.0))
    shifted = x < 10.0
    y = xp.where(shifted, x + 8.0, x)
    product = xp.ones_like(x)
    for i in range(8):
        product = product * xp.where(shifted, x + i, 1.0)
    large = _stirling(xp, xp.where(x < 3.5, 10.0, y)) - xp.log(product)
    result = xp.where(x < 1.5, around_one, xp.where(x < 3.5, around_two, large))
    return xp.where(x == xp.inf, xp.inf, result)


def _lgamma(xp: Any, x: Any) -> Any:
    reflected = x <= 0
    offset = x - xp.round(x)  # sin(pi x) from the exact offset to the nearest integer, no pi * x rounding
    positive = _lgamma_positive(xp, xp.where(reflected, 1.0 - x, x))
    negative = xp.log(math.pi / xp.abs(xp.sin(math.pi * offset))) - positive  # inf at the poles
    return xp.where(reflected, xp.where(x == -xp.inf, xp.inf, negative), positive)


def _digamma_positive(xp: Any, x: Any) -> Any:
    shifted = x < 10.0
    y = xp.where(shifted, x + 10.0, x)
    correction = xp.zeros_like(x)
    for i in range(10):
        correction = correction + 1.0 / xp.where(shifted, x + i, xp.inf)
    inverse_square = 1.0 / (y * y)
    series = _horner(inverse_square, [b / (2 * k) for k, b in enumerate(_B[:8], start=1)]) * inverse_square
    return xp.log(y) - 0.5 / y - series - correction


def _digamma(xp: Any, x: Any) -> Any:
    reflected = x <= 0
    offset = x - xp.round(x)
    positive = _digamma_positive(xp, xp.where(reflected, 1.0 - x, x))
    negative = positive - math.pi / xp.tan(math.pi * offset)
    return xp.where(reflected, xp.where(offset == 0, xp.nan, negative), positive)


MAX_POLYGAMMA_ORDER = 150  # the largest n whose series coefficients (up to (n + 19)!) fit a float64; past it, NaN
MAX_POLYGAMMA_SHIFT = 10_000  # the most negative x accepted for n >= 1: one array step per unit (see polygamma)


def _polygamma_order(xp: Any, n: int, x: Any) -> Any:
    """``psi^(n)(x)`` for an order ``n >= 1`` and any real ``x`` (shifted past ``20 + n``)."""
    start = 20 + n
    finite = x[xp.isfinite(x)]
    lowest = float(finite.min()) if finite.size else 0.0
    steps = start + max(0, math.ceil(-lowest))  # negative x: more steps of the recurrence
    shifted = x < start
    y = xp.where(shifted, x + steps, x)
    correction = xp.zeros_like(x)
    for i in range(steps):
        correction = correction + xp.where(shifted, x + i, xp.inf) ** -(n + 1.0)
    inverse = 1.0 / y
    # (n-1)!/y^n + n!/(2 y^(n+1)) + sum_k B_2k (2k+n-1)! / ((2k)! y^(2k+n))
    coefficients = [b * math.factorial(2 * k + n - 1) / math.factorial(2 * k) for k, b in enumerate(_B, start=1)]
    series = (math.factorial(n - 1) + 0.5 * math.factorial(n) * inverse
              + _horner(inverse * inverse, coefficients) * inverse * inverse) * inverse ** n
    sign = 1.0 if n % 2 else -1.0
    result = sign * (series + math.factorial(n) * correction)
    pole = (x <= 0) & (x == xp.floor(x))
    result = xp.where(pole, xp.inf if n % 2 else xp.nan, result)  # odd n: +inf from both sides
    return xp.where(x == xp.inf, 0.0, xp.where(x == -xp.inf, xp.nan, result))


def _in_float64(kernel):
    def forward(xp: Any, x: Any) -> Any:
        with numpy.errstate(all="ignore"):  # inf/NaN in masked-out branches; CuPy never warns
            return kernel(xp, x.astype(numpy.float64)).astype(x.dtype, copy=False)
    return forward


class PolyGamma(FunctionNode):
    """``psi^(n)(x)`` with an integer array ``n`` (no gradient) broadcast to ``x``'s shape."""

    def __init__(self, n: Any) -> None:
        self.n = n

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        xp = get_array_module(x)
        x64 = x.astype(numpy.float64)
        result = xp.zeros_like(x64)
        with numpy.errstate(all="ignore"):
            for order in sorted({int(v) for v in xp.unique(self.n).tolist()}):
                values = _digamma(xp, x64) if order == 0 else _polygamma_order(xp, order, x64)
                result = xp.where(self.n == order, values, result)
        return result.astype(x.dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] * PolyGamma(self.n + 1).apply((x,))[0],


def _times_trigamma(gy: Variable, x: Variable, y: Any) -> Variable:
    return gy * PolyGamma(get_array_module(x.array).ones(x.shape, dtype=numpy.int64)).apply((x,))[0]


LGamma = elementwise("LGamma", _in_float64(_lgamma), lambda gy, x, y: gy * DiGamma().apply((x,))[0])
DiGamma = elementwise("DiGamma", _in_float64(_digamma), _times_trigamma)


def lgamma(x: Any) -> Variable:
    """Elementwise ``log |Gamma(x)|``, the log of the absolute value of the gamma function.

    Accurate to about 1e-15 relative for ``x > 0`` (including at the zeros 1 and 2)
    and away from the zeros below 0; ``inf`` at the poles ``0, -1, -2, ...``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.lgamma(np.array([0.5, 1.0, 10.0, -0.5])).array
        array([ 0.57236494,  0.        , 12.80182748,  1.26551212])
    """
    return LGamma().apply((as_input("lgamma", x, float_only=True),))[0]


def digamma(x: Any) -> Variable:
    """Elementwise digamma function ``psi(x) = d/dx lgamma(x)``; NaN at the poles ``0, -1, -2, ...``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.digamma(np.array([1.0, 0.5])).array
        array([-0.57721566, -1.96351003])
    """
    return DiGamma().apply((as_input("digamma", x, float_only=True),))[0]


def polygamma(n: Any, x: Any) -> Variable:
    """Elementwise polygamma function ``psi^(n)(x)``, the ``n``-th derivative of ``digamma``.

    Args:
        n: the orders, non-negative integers: an integer array (or Variable, whose
            value is used; it gets no gradient) broadcastable with ``x``, or an int.
        x: the points (float).

    At the poles ``0, -1, -2, ...`` the value is ``inf`` for odd ``n`` and NaN for even ``n``.
    Bounded work: ``n`` above ``MAX_POLYGAMMA_ORDER`` (150, where the series overflows
    float64) and, for ``n >= 1``, ``x`` below ``-MAX_POLYGAMMA_SHIFT`` (-10,000)
    are refused with a ``ValueError``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.polygamma(np.array([1, 2]), np.array([1.0, 1.0])).array
        array([ 1.64493407, -2.40411381])
    """
    x = as_input("polygamma", x, float_only=True)
    xp = get_array_module(x.array)
    if isinstance(n, int) and not isinstance(n, bool):
        n = xp.asarray(n, dtype=numpy.int64)
    orders = as_input("polygamma", n, "n")
    require_integer("polygamma", orders, "n")
    n = orders.array
    if get_array_module(n) is not xp:
        raise TypeError(f"polygamma: n is a {type(n).__module__}.ndarray but x a {type(x.array).__module__}.ndarray; "
                        "put both on the same device")
    if n.size and int(n.min()) < 0:
        raise ValueError(f"polygamma: n must be non-negative, got a minimum of {int(n.min())}")
    highest = int(n.max()) if n.size else 0
    if highest > MAX_POLYGAMMA_ORDER:
        raise ValueError(f"polygamma: n must be at most {MAX_POLYGAMMA_ORDER} (the series overflows float64 beyond), "
                         f"got a maximum of {highest}")
    lowest = float(xp.where(xp.isfinite(x.array), x.array, xp.inf).min()) if highest and x.size else 0.0
    if lowest < -MAX_POLYGAMMA_SHIFT:
        raise ValueError(f"polygamma: x must be >= {-MAX_POLYGAMMA_SHIFT} for n >= 1 (the recurrence that "
                         f"shifts x takes one step per unit below 0), got a minimum of {lowest}")
    try:
        shape = numpy.broadcast_shapes(n.shape, x.shape)
    except ValueError:
        raise ValueError(f"polygamma: n of shape {n.shape} does not broadcast with x of shape {x.shape}") from None
    if x.shape != shape:
        x = F.broadcast_to(x, shape)
    return PolyGamma(xp.broadcast_to(n, shape).astype(numpy.int64)).apply((x,))[0]
