"""The one finite-difference engine: derivative, error estimate and kink test along a line.

``f`` is sampled at ``t = 0`` and at offsets around it (in the same units,
``step`` apart in the nominal stencil). From the values:

* the derivative at 0 is that of the quartic through ``t = -2h..2h``
  (Richardson's extrapolation of two central differences, error O(h^4));
* the error estimate is the disagreement of the two central differences
  (``|D(h) - D(2h)|``, O(h^2) for a smooth f);
* the kink indicator is the largest 4th difference over every five
  consecutive points, over the step (O(h^3) for a smooth f, of the order of the
  slope jump at a kink, of the jump over ``h`` at a step).

No kink hides from both: within reach of the five points, the error that a
kink causes in the derivative is at most about the larger of the estimate
and the indicator (a pure kink ``|t - d|`` for every ``d``: at most 0.92
times), which is what lets ``check_backward`` trust a tolerance built from them.

Example:
    >>> import numpy as np
    >>> t = (-2e-3, -1e-3, 1e-3, 2e-3)
    >>> d = difference(t, [np.exp(s) for s in t], 1.0, 1e-3)
    >>> round(d.derivative, 10), d.kink < 1e-8
    (1.0, True)
    >>> difference(t, [abs(s) for s in t], 0.0, 1e-3).kink > 0.1
    True
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy

# nominal stencils, in units of the step (0, the centre, is always known)
PROBE = (-2.0, -1.0, 1.0, 2.0)  # check_backward's probes: 4 evaluations
PROBE_WITH_KINKS = (-2.0, -1.0, 1.0, 2.0, 3.0)  # detect_nondifferentiable: two 4th differences
SYMMETRIC_WITH_KINKS = (-3.0, -2.0, -1.0, 1.0, 2.0, 3.0)  # numerical_grad's detection: three


class Difference(NamedTuple):
    """What one stencil says about ``f`` along its line."""

    derivative: float
    estimate: float  # |central difference at h - at 2h|
    kink: float  # largest |4th difference| / h over the windows of five points
    slope: float  # largest one-sided slope |f(t) - f(0)| / |t|
    finite: bool  # every value was finite


@functools.lru_cache(maxsize=256)
def polynomial_weights(offsets: tuple[float, ...], order: int) -> tuple[float, ...]:
    """Weights ``w`` with ``w @ f(offsets)`` = the coefficient of ``t**order`` of the interpolating polynomial.

    ``order=1`` gives the derivative at 0 (exact for polynomials of degree
    ``len(offsets) - 1``); ``order=4`` the 4th divided difference.

    Example:
        >>> [round(w, 6) for w in polynomial_weights((-1.0, 0.0, 1.0), 1)]
        [-0.5, 0.0, 0.5]
    """
    t = numpy.asarray(offsets, dtype=numpy.float64)
    vander = numpy.vander(t, len(t), increasing=True).T  # rows: powers 0..n-1
    rhs = numpy.zeros(len(t))
    rhs[order] = 1.0
    return tuple(float(w) for w in numpy.linalg.solve(vander, rhs))


def difference(offsets: Sequence[float], values: Sequence[float], center: float, step: float) -> Difference:
    """The derivative at 0, its error estimate and the kink indicator from samples of ``f``.

    Args:
        offsets: the sampled ``t`` (not 0), sorted or not; must include the
            nominal ``-2h, -h, h, 2h`` (``h = step``, possibly as rounded).
        values: ``f`` at ``offsets``.
        center: ``f(0)``.
        step: the nominal step ``h``.
    """
    order = sorted(range(len(offsets)), key=lambda k: offsets[k])
    t = tuple([0.0] + [float(offsets[k]) for k in order])
    f = [float(center)] + [float(values[k]) for k in order]
    if not all(math.isfinite(v) for v in f):
        return Difference(math.nan, math.inf, math.inf, math.inf, False)
    ts = sorted(t)
    fs = [f[t.index(s)] for s in ts]
    # the five points -2h..2h: the nearest two on each side of 0
    zero = ts.index(0.0)
    inner = ts[zero - 2:zero + 3]
    finner = fs[zero - 2:zero + 3]
    derivative = _apply(polynomial_weights(tuple(inner), 1), finner)
    near = (finner[3] - finner[1]) / (inner[3] - inner[1])
    wide = (finner[4] - finner[0]) / (inner[4] - inner[0])
    kink = 0.0
    for start in range(len(ts) - 4):
        window = tuple(ts[start:start + 5])
        # 24 h^4 times the 4th divided difference is the 4th difference of an evenly spaced window
        fourth = 24.0 * _apply(polynomial_weights(window, 4), fs[start:start + 5]) * step ** 3
        kink = max(kink, abs(fourth))
    slope = max(abs((v - center) / s) for s, v in zip(ts, fs) if s != 0.0)
    return Difference(derivative, abs(near - wide), kink, slope, True)


def _apply(weights: Sequence[float], values: Sequence[float]) -> float:
    return math.fsum(w * v for w, v in zip(weights, values))
