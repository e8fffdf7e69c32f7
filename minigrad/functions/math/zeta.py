"""zeta: the Hurwitz zeta function ``zeta(x, q) = sum_k (q + k)^-x`` (Chainer's ``F.zeta``, SciPy's
``scipy.special.zeta``), differentiable in ``q``.

Computed in float64 without SciPy: the first ten terms summed, the rest by the
Euler-Maclaurin formula at ``w = q + 10``, ten Bernoulli terms. Each pair of terms
shrinks by about ``(x / (2 pi w))^2``; where ``x`` is so large that the series
stops shrinking, the part it approximates, ``(q / w)^x`` of the total, is below
float64's precision anyway. A negative ``q`` (integer ``x`` only, as in SciPy)
is first shifted past 0 by more terms.

``d zeta(x, q) / dq = -x zeta(x + 1, q)``: the gradient is the same node at
``x + 1``, so every order works; ``x`` gets no gradient (as in Chainer).
"""

from __future__ import annotations

import math
from typing import Any

import numpy

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input, constant
from minigrad.functions.math.gamma import _B
from minigrad.variable import Variable

__all__ = ["Zeta", "zeta", "MAX_ZETA_SHIFT"]

MAX_ZETA_SHIFT = 10_000  # the most negative q accepted: one array step per unit below 0 (as polygamma's x)
_DIRECT_TERMS = 10
_EULER_MACLAURIN = [b / math.factorial(2 * j) for j, b in enumerate(_B, start=1)]  # B_2j / (2j)!


def _hurwitz_zeta(xp: Any, s: Any, q: Any, shift: int) -> Any:
    """``zeta(s, q)`` in float64 for arrays of one shape; ``shift`` extra direct terms for negative ``q``."""
    terms = _DIRECT_TERMS + shift
    total = xp.zeros_like(q)
    for k in range(terms):
        total = total + (q + k) ** -s
    w = q + terms
    edge = w ** -s
    # sum_{k >= terms} (q + k)^-s = w^(1-s) / (s-1) + w^-s / 2 + sum_j B_2j / (2j)! s (s+1) ... (s+2j-2) w^(-s-2j+1)
    tail = edge * w / (s - 1.0) + 0.5 * edge
    rising = s / w  # s (s+1) ... (s+2j-2) / w^(2j-1)
    for j, coefficient in enumerate(_EULER_MACLAURIN, start=1):
        tail = tail + coefficient * rising * edge
        rising = rising * (s + 2 * j - 1) * (s + 2 * j) / (w * w)
    total = total + xp.where(edge > 0, tail, 0.0)  # w^-s underflowed: the tail is far below the sum (and 0 * inf)
    pole = (q <= 0) & (q == xp.floor(q))
    total = xp.where(pole | (s == 1), xp.inf, total)
    outside = (s < 1) | ((q < 0) & (s != xp.floor(s)))  # SciPy's domain: NaN
    return xp.where(outside, xp.nan, total)


class Zeta(FunctionNode):
    """``zeta(x, q)`` elementwise for a fixed float64 array ``x`` of ``q``'s shape; the input is ``q``.
    ``shift``: the extra direct terms a negative ``q`` needs (``ceil(-min q)``, found by the wrapper)."""

    def __init__(self, x: Any, shift: int = 0) -> None:
        self.x = x
        self.shift = shift

    def forward(self, inputs):
        q, = inputs
        self.retain_inputs((0,))
        with numpy.errstate(all="ignore"):
            y = _hurwitz_zeta(get_array_module(q), self.x, q.astype(numpy.float64), self.shift)
        return y.astype(q.dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        q, = self.get_retained_inputs()
        return grad_outputs[0] * constant(-self.x.astype(q.dtype)) * Zeta(self.x + 1, self.shift).apply((q,))[0],


def zeta(x: Any, q: Any) -> Variable:
    """The Hurwitz zeta function ``zeta(x, q) = sum_{k >= 0} (q + k)^-x``, elementwise (Chainer's
    ``F.zeta(x, q)``; ``zeta(x, 1)`` is Riemann's zeta).

    Args:
        x: the exponents, a number or a real array (a Variable gives its value): not differentiated, as in
            Chainer; a Variable that requires a gradient is refused rather than silently given none.
        q: the offsets, a float array or Variable, broadcast with ``x``; the output has its dtype.

    As in SciPy (which Chainer calls): ``x < 1`` gives NaN and ``x = 1`` infinity; ``q = 0, -1, -2, ...``
    gives infinity; another negative ``q`` needs an integer ``x`` (NaN otherwise). ``q`` below
    ``-MAX_ZETA_SHIFT`` (-10,000) is a ``ValueError``: each unit below 0 costs one more term.
    No SciPy needed: in float64 within 4e-14 relative of SciPy's values (8e-16 over Chainer's test ranges),
    results in the subnormal range excepted.

    Example:
        >>> import numpy as np, minigrad as mg, minigrad.functions as F
        >>> q = mg.Variable(np.array([1.0, 2.0]))
        >>> y = F.zeta(2.0, q)            # pi^2 / 6 and pi^2 / 6 - 1
        >>> y.array
        array([1.64493407, 0.64493407])
        >>> F.sum(y).backward()           # -2 zeta(3, q)
        >>> q.grad
        array([-2.40411381, -0.40411381])
    """
    q = as_input("zeta", q, "q", float_only=True)
    if isinstance(x, Variable) and x.requires_grad:
        raise TypeError("zeta: x is not differentiable (zeta differentiates q only, as in Chainer); pass x.array, "
                        "or a Variable with requires_grad=False")
    xp = get_array_module(q.array)
    if isinstance(x, (int, float, numpy.integer, numpy.floating)) and not isinstance(x, (bool, numpy.bool_)):
        x = constant(xp.asarray(x, dtype=numpy.float64))
    x = as_input("zeta", x, "x")
    if x.dtype.kind not in "iuf":
        raise TypeError(f"zeta: x must be a real number or array, got dtype {x.dtype}")
    if get_array_module(x.array) is not xp:
        raise TypeError(f"zeta: x is a {type(x.array).__module__}.ndarray but q a {type(q.array).__module__}.ndarray; "
                        "put both on the same device")
    try:
        shape = numpy.broadcast_shapes(x.shape, q.shape)
    except ValueError:
        raise ValueError(f"zeta: x of shape {x.shape} does not broadcast with q of shape {q.shape}") from None
    lowest = float(xp.where(xp.isfinite(q.array), q.array, 0).min()) if q.size else 0.0
    if lowest < -MAX_ZETA_SHIFT:
        raise ValueError(f"zeta: q must be >= {-MAX_ZETA_SHIFT} (each unit below 0 costs one more term of the sum), "
                         f"got a minimum of {lowest}")
    if q.shape != shape:
        q = F.broadcast_to(q, shape)
    shift = max(0, math.ceil(-lowest))
    return Zeta(xp.broadcast_to(x.array, shape).astype(numpy.float64), shift).apply((q,))[0]
