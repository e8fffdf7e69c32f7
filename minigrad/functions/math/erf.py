"""The error function family: erf, erfc, erfinv, erfcinv, and the normal distribution's ndtr, ndtri, log_ndtr.

NumPy has no ``erf`` (and minigrad does not depend on SciPy), so the forward
passes are computed here once, with elementwise operations of the array
module, in float64 (float16/float32 inputs are upcast, the result cast back):

- ``|t| < 1``: ``erf(t) = 2/sqrt(pi) exp(-t^2) sum_n (2 t^2)^n t / (2n+1)!!``, a
  series of positive terms (no cancellation);
- ``t >= 1``: ``erfc(t) = exp(-t^2) erfcx(t)``, with the scaled complement
  ``erfcx(t) = 1 / (sqrt(pi) (t + (1/2) / (t + 1 / (t + (3/2) / (t + ...)))))``,
  Laplace's continued fraction evaluated bottom-up with enough levels for the
  smallest ``t`` present; ``exp(-t^2)`` splits ``t`` into a short head (whose
  square is exact) and a tail, so a large ``t`` loses no digits to ``t^2``;
- the inverses start from Winitzki's closed-form approximation and take
  Newton steps on ``erf(x) = p`` (small ``p``) or on ``log erfc(x) = log q``
  (the tail, down to the smallest subnormal ``q``).

The derivatives are the textbook ones, written with minigrad ops so that they
are differentiable again: ``erf' = 2/sqrt(pi) exp(-x^2)``, ``erfinv'(y) =
sqrt(pi)/2 exp(erfinv(y)^2)``, ``log_ndtr'(x) = exp(-x^2/2 - log_ndtr(x)) / sqrt(2 pi)``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.functions._elementwise import elementwise
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["Erf", "Erfc", "Erfcx", "Erfinv", "Erfcinv", "Ndtr", "Ndtri", "LogNdtr",
           "erf", "erfc", "erfcx", "erfinv", "erfcinv", "ndtr", "ndtri", "log_ndtr"]

_SQRT_PI = math.sqrt(math.pi)
_SQRT_2 = math.sqrt(2.0)
_SQRT_2PI = math.sqrt(2.0 * math.pi)
_SERIES_TERMS = 27  # for |t| < 1 the n-th term is below 2^n / (2n+1)!!: under 1e-17 of the sum by n = 27
# (smallest t, continued-fraction levels) with a relative error below 1e-16 from that t on
_FRACTION_LEVELS = ((5.0, 20), (3.0, 36), (2.0, 70), (1.5, 110), (1.0, 210))
_FAR = 10.0  # a stand-in argument for the elements a branch does not compute


def _exp_neg_square(xp: Any, a: Any, scale: float) -> Any:
    """``exp(-scale * a^2)`` for ``a >= 0`` (``scale`` 1 or 1/2), without the rounding error of ``a^2``.

    ``a = head + tail`` with ``head`` a multiple of 2^-20 (at most 26 bits below 40, so ``head^2`` is
    exact) and ``a^2 = head^2 + tail * (a + head)``; beyond 40 the result underflows anyway.
    """
    a = xp.minimum(a, 40.0)
    head = xp.floor(a * 1048576.0) / 1048576.0
    return xp.exp(-scale * head * head) * xp.exp(-scale * ((a - head) * (a + head)))


def _erf_series(xp: Any, t: Any) -> Any:
    """``erf(t)`` for ``|t| < 1`` from the series of positive terms."""
    twice_square = 2.0 * t * t
    term = t
    total = t
    for n in range(1, _SERIES_TERMS):
        term = term * twice_square / (2 * n + 1)
        total = total + term
    return (2.0 / _SQRT_PI) * xp.exp(-t * t) * total


def _erfcx_fraction(xp: Any, t: Any) -> Any:
    """``erfcx(t) = exp(t^2) erfc(t)`` for ``t >= 1`` (NaN passes) from Laplace's continued fraction."""
    if t.size == 0:
        return t
    smallest = float(xp.min(xp.where(xp.isnan(t), _FAR, t)))
    levels = next((n for start, n in _FRACTION_LEVELS if smallest >= start), _FRACTION_LEVELS[-1][1])
    denominator = t
    for k in range(levels, 0, -1):
        denominator = t + (0.5 * k) / denominator
    return 1.0 / (_SQRT_PI * denominator)


def _erf_parts(xp: Any, x: Any, halve: bool = False) -> tuple[Any, Any, Any, Any]:
    """For ``t = x`` (or ``x / sqrt(2)`` with ``halve``): the mask ``|t| < 1``, ``erf(t)`` there, and for
    ``|t| >= 1`` both ``erfcx(|t|)`` and ``erfc(|t|)`` (whose ``exp(-t^2)`` is taken from ``x`` itself)."""
    t = x / _SQRT_2 if halve else x
    a = xp.abs(t)
    near = a < 1.0
    series = _erf_series(xp, xp.where(near, t, 0.0))
    scaled = _erfcx_fraction(xp, xp.where(near, _FAR, a))
    tail = _exp_neg_square(xp, xp.where(near, _FAR, xp.abs(x)), 0.5 if halve else 1.0) * scaled
    return near, series, scaled, tail


def _erf(xp: Any, x: Any) -> Any:
    near, series, _, tail = _erf_parts(xp, x)
    return xp.where(near, series, xp.sign(x) * (1.0 - tail))


def _erfc(xp: Any, x: Any, halve: bool = False) -> Any:
    """``erfc(x)``, or ``erfc(x / sqrt(2))`` with ``halve``."""
    near, series, _, tail = _erf_parts(xp, x, halve)
    return xp.where(near, 1.0 - series, xp.where(x > 0, tail, 2.0 - tail))


def _log_erfc_nonnegative(xp: Any, x: Any) -> tuple[Any, Any]:
    """``log erfc(x)`` and ``erfcx(x)`` for ``x >= 0``."""
    near, series, scaled, _ = _erf_parts(xp, x)
    near_erfc = 1.0 - series
    log_erfc = xp.where(near, xp.log(near_erfc), xp.log(scaled) - x * x)
    return log_erfc, xp.where(near, near_erfc * xp.exp(x * x), scaled)


def _initial_guess(w: Any, xp: Any) -> Any:
    """Winitzki's approximation of ``erfinv`` with ``w = log(1 - p^2)`` (relative error about 1e-3)."""
    a = 0.147
    b = 2.0 / (math.pi * a) + 0.5 * w
    return xp.sqrt(xp.sqrt(b * b - w / a) - b)


def _solve_erf(xp: Any, p: Any) -> Any:
    """``x >= 0`` with ``erf(x) = p`` for ``p`` in [0, 0.5]: Newton steps on ``erf``."""
    x = _initial_guess(xp.log1p(-p * p), xp)
    for _ in range(4):
        x = x - (_erf(xp, x) - p) * (0.5 * _SQRT_PI) * xp.exp(x * x)
    return x


def _solve_erfc(xp: Any, q: Any) -> Any:
    """``x >= 0.47`` with ``erfc(x) = q`` for ``q`` in [0, 0.5] (inf at 0, NaN below): Newton steps on
    ``log erfc``, whose slope ``-2 / (sqrt(pi) erfcx(x))`` never underflows."""
    positive = q > 0
    safe_q = xp.where(positive, q, 0.5)
    log_q = xp.log(safe_q)
    x = _initial_guess(log_q + xp.log(2.0 - safe_q), xp)
    for _ in range(5):
        log_erfc, scaled = _log_erfc_nonnegative(xp, x)
        x = x + (log_erfc - log_q) * scaled * (0.5 * _SQRT_PI)
    return xp.where(positive, x, xp.where(q == 0, xp.inf, xp.nan))


def _erfinv(xp: Any, y: Any) -> Any:
    a = xp.abs(y)
    near = a <= 0.5
    inner = _solve_erf(xp, xp.where(near, a, 0.0))
    outer = _solve_erfc(xp, xp.where(near, 0.5, 1.0 - a))  # 1 - a is exact here; NaN beyond 1
    return xp.sign(y) * xp.where(near, inner, outer)


def _erfcinv(xp: Any, z: Any) -> Any:
    low = z <= 0.5
    high = z >= 1.5
    middle = 1.0 - z  # exact for z in [0.5, 2], and so is 2 - z
    inner = _solve_erf(xp, xp.where(low | high, 0.0, xp.abs(middle)))
    outer = _solve_erfc(xp, xp.where(low, z, xp.where(high, 2.0 - z, 0.5)))
    return xp.where(low, outer, xp.where(high, -outer, xp.sign(middle) * inner))


def _erfcx(xp: Any, t: Any) -> Any:
    """``exp(t^2) erfc(t)``: the fraction for ``t >= 1``, ``2 exp(t^2) - erfcx(-t)`` for ``t <= -1``."""
    near, series, scaled, _ = _erf_parts(xp, t)
    far = xp.where(t > 0, scaled, 2.0 * xp.exp(t * t) - scaled)
    return xp.where(near, xp.exp(t * t) * (1.0 - series), far)


def _log_ndtr(xp: Any, x: Any) -> Any:
    # ndtr(x) = erfc(t) / 2 with t = -x / sqrt(2): the log of erfcx in the left tail (no underflow),
    # log1p(-ndtr(-x)) in the right half (no rounding of 1 - tiny)
    near, series, scaled, tail = _erf_parts(xp, -x, halve=True)
    left = xp.where(near, 1.0 - series, 0.5) * 0.5
    right_small = xp.where(near, 1.0 + series, tail) * 0.5  # ndtr(-x) for x > 0
    left_tail = xp.log(0.5 * scaled) - 0.5 * x * x
    return xp.where(x > 0, xp.log1p(-right_small), xp.where(near, xp.log(left), left_tail))


def _in_float64(kernel):
    """A forward ``f(xp, x)`` computing ``kernel`` in float64 and returning ``x``'s dtype."""
    def forward(xp: Any, x: Any) -> Any:
        with numpy.errstate(all="ignore"):  # inf/NaN in masked-out branches; CuPy never warns
            return kernel(xp, x.astype(numpy.float64)).astype(x.dtype, copy=False)
    return forward


Erf = elementwise("Erf", _in_float64(_erf), lambda gy, x, y: gy * ((2.0 / _SQRT_PI) * F.exp(-x * x)))
Erfc = elementwise("Erfc", _in_float64(_erfc), lambda gy, x, y: gy * ((-2.0 / _SQRT_PI) * F.exp(-x * x)))
Erfinv = elementwise("Erfinv", _in_float64(_erfinv), lambda gy, x, y: gy * ((0.5 * _SQRT_PI) * F.exp(y * y)),
                     uses="y")
Erfcinv = elementwise("Erfcinv", _in_float64(_erfcinv), lambda gy, x, y: gy * ((-0.5 * _SQRT_PI) * F.exp(y * y)),
                      uses="y")
Ndtr = elementwise("Ndtr", _in_float64(lambda xp, x: 0.5 * _erfc(xp, -x, halve=True)),
                   lambda gy, x, y: gy * ((1.0 / _SQRT_2PI) * F.exp(-0.5 * x * x)))
Ndtri = elementwise("Ndtri", _in_float64(lambda xp, p: _SQRT_2 * (0.0 - _erfcinv(xp, 2.0 * p))),
                    lambda gy, x, y: gy * (_SQRT_2PI * F.exp(0.5 * y * y)), uses="y")
# erfcx'(t) = 2 t erfcx(t) - 2 / sqrt(pi); also the node behind log_ndtr's gradient
Erfcx = elementwise("Erfcx", _in_float64(_erfcx), lambda gy, t, y: gy * (2.0 * t * y - 2.0 / _SQRT_PI), uses="xy")
# log_ndtr'(x) = pdf / cdf = sqrt(2/pi) / erfcx(-x / sqrt(2)): no exp(-x^2/2) / ndtr(x) = 0 / 0 in the left tail,
# and no cancellation of -x^2/2 against log_ndtr(x) in float16/32
LogNdtr = elementwise("LogNdtr", _in_float64(_log_ndtr),
                      lambda gy, x, y: gy * (math.sqrt(2.0 / math.pi) / Erfcx().apply((x * (-1.0 / _SQRT_2),))[0]))


def erf(x: Any) -> Variable:
    """Elementwise error function ``erf(x) = 2/sqrt(pi) * integral_0^x exp(-t^2) dt``.

    Accurate to float64 rounding (relative error about 1e-15) on the whole real line;
    ``erf(+-inf) = +-1``. Float16/32 inputs are computed in float64 and rounded back.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.erf(np.array([0.0, 0.5, np.inf])).array
        array([0.        , 0.52049988, 1.        ])
    """
    return Erf().apply((as_input("erf", x, float_only=True),))[0]


def erfc(x: Any) -> Variable:
    """Elementwise complementary error function ``erfc(x) = 1 - erf(x)``, accurate where it is tiny.

    Keeps full relative precision in the right tail down to the smallest subnormal (``x`` about 27).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.erfc(np.array([0.0, 10.0])).array
        array([1.00000000e+00, 2.08848758e-45])
    """
    return Erfc().apply((as_input("erfc", x, float_only=True),))[0]


def erfcx(x: Any) -> Variable:
    """Elementwise scaled complementary error function ``erfcx(x) = exp(x^2) erfc(x)`` (Chainer's ``F.erfcx``).

    Computed without forming ``exp(x^2)`` where that overflows: finite for every
    ``x`` above about -26.6 (and about ``1 / (x sqrt(pi))`` for large ``x``).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.erfcx(np.array([0.0, 1.0, 1e4])).array
        array([1.00000000e+00, 4.27583576e-01, 5.64189581e-05])
    """
    return Erfcx().apply((as_input("erfcx", x, float_only=True),))[0]


def erfinv(x: Any) -> Variable:
    """Elementwise inverse error function: ``y`` with ``erf(y) = x``, for ``x`` in [-1, 1].

    ``erfinv(+-1) = +-inf``; outside [-1, 1] the result is NaN. The gradient is
    ``sqrt(pi)/2 * exp(erfinv(x)^2)`` (infinite at +-1).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.erfinv(np.array([0.0, 0.5, 1.0])).array
        array([0.        , 0.47693628,        inf])
    """
    return Erfinv().apply((as_input("erfinv", x, float_only=True),))[0]


def erfcinv(x: Any) -> Variable:
    """Elementwise inverse complementary error function: ``y`` with ``erfc(y) = x``, for ``x`` in [0, 2].

    ``erfcinv(0) = inf``, ``erfcinv(2) = -inf``; outside [0, 2] the result is NaN.
    Accurate for ``x`` down to the smallest subnormal.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.erfcinv(np.array([1.0, 1e-300])).array
        array([ 0.        , 26.209469...])
    """
    return Erfcinv().apply((as_input("erfcinv", x, float_only=True),))[0]


def ndtr(x: Any) -> Variable:
    """Elementwise standard normal cumulative distribution function ``(1 + erf(x / sqrt(2))) / 2``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.ndtr(np.array([0.0, 1.0])).array
        array([0.5       , 0.84134475])
    """
    return Ndtr().apply((as_input("ndtr", x, float_only=True),))[0]


def ndtri(x: Any) -> Variable:
    """Elementwise inverse of ``ndtr``: the standard normal quantile of a probability ``x`` in [0, 1].

    ``ndtri(0) = -inf``, ``ndtri(1) = inf``; outside [0, 1] the result is NaN.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.ndtri(np.array([0.5, 0.975])).array
        array([0.        , 1.95996398])
    """
    return Ndtri().apply((as_input("ndtri", x, float_only=True),))[0]


def log_ndtr(x: Any) -> Variable:
    """Elementwise ``log(ndtr(x))``, finite far into the left tail where ``ndtr`` underflows.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.log_ndtr(np.array([0.0, -40.0])).array
        array([-6.93147181e-01, -8.04608442e+02])
    """
    return LogNdtr().apply((as_input("log_ndtr", x, float_only=True),))[0]
