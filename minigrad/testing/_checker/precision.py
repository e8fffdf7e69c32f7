"""Check 2: gradients computed in a low precision against the reference, element by element."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy

from minigrad import backend
from minigrad.testing._checker.localisation import SHOWN_ELEMENTS
from minigrad.testing._checker.problem import Target, absolute, element_index, eps_of, rms
from minigrad.testing._checker.report import ElementDisagreement, Kind, TargetResult

# |g - g_ref| <= factor * eps * (|g_ref| + absolute scale), the factor by dtype: a float16 path wrong by
# about 1 % (8 eps = 0.8 % of the element plus as much of the largest), a float32 path wrong by 1e-4
# (64 eps = 7.6e-6) is caught
PRECISION_FACTOR = 64.0
PRECISION_FACTORS: dict[str, float] = {"float16": 8.0}


def absolute_scale(t: Target, f_terms: float) -> float:
    """The absolute part of ``t``'s bound, in units of its gradient: the largest change of ``f`` per
    relative change of one of its own elements (another input's scale does not widen it), or one
    element's share of the magnitude of ``f``'s terms per unit of this input (a sum that nearly cancels)."""
    own = t.stats.largest / t.scale if t.stats else 0.0
    magnitude = rms(t.base_nd)
    return max(own, f_terms / max(t.base.size, 1) / magnitude if magnitude > 0 else 0.0)


def precision_check(targets: Sequence[Target], atol: float | None, rtol: float | None,
                    f_terms: float) -> tuple[float, list[TargetResult]]:
    """Worst elementwise error / bound over the targets, and a result for each that fails.

    Rounding errors of a backward pass scale with the magnitudes it handles, which
    the final gradient can hide (a sum of large terms that nearly cancel). The
    bound therefore has an absolute part, in ``f``'s units divided by this
    input's scale: the larger of the largest change of ``f`` per relative change
    of any input element (``max_k max_i |g_ref[k]_i| * scale_k``) and the
    share of one element in the magnitude of ``f``'s terms (``sum |y * y_grad|``
    over the input's size). User tolerances (``atol``/``rtol``) widen it.
    """
    worst = 0.0
    failures = []
    # a gradient may pass through the least precise array of the problem (y_grad of cast(x32, float64) is
    # rounded to float32 in cast's backward): each target's bound is at least that precision's
    coarsest = max((t.base.dtype for t in targets), key=eps_of, default=None)
    for t in targets:
        if (t.grad is None and t.ref is None) or t.base.size == 0:
            continue
        dtype = t.base.dtype
        xp = backend.get_array_module(t.base)
        # float32 arithmetic is exact enough for a bound of 64 eps of float16/float32, and half the traffic
        work = numpy.dtype(numpy.float32) if dtype.itemsize <= 4 else numpy.dtype(numpy.float64)
        ref = xp.zeros(t.base.shape, work) if t.ref is None else t.ref.astype(work)
        g = xp.zeros(t.base.shape, work) if t.grad is None else t.grad.astype(work, copy=False)
        absolute_part = absolute_scale(t, f_terms)
        factor = max(PRECISION_FACTORS.get(d.name, PRECISION_FACTOR) * eps_of(d) for d in (dtype, coarsest))
        bound = abs(ref)
        if atol is not None or rtol is not None:
            bound = xp.maximum(bound * factor + factor * absolute_part, (atol or 0.0) + (rtol or 0.0) * bound)
        else:
            bound *= factor
            bound += factor * absolute_part
        bound += float(numpy.finfo(dtype).tiny)
        error = absolute(g - ref)
        ratio = error / bound
        margin = float(ratio.max())
        if not math.isfinite(margin):  # NaN or Inf in the gradient under test
            margin = math.inf
            ratio = xp.where(xp.isfinite(ratio), ratio, xp.inf)
        worst = max(worst, margin)
        if margin >= 1.0:
            result = TargetResult(t.name, tuple(t.base.shape), str(dtype), margin=margin, kind=Kind.PRECISION,
                                  note=f"its {dtype} gradient differs from the reference gradient by more "
                                       "than the dtype's precision explains")
            # of the elements beyond their bound, the largest absolute errors first
            beyond = xp.where(ratio >= 1.0, xp.where(xp.isfinite(error), error, xp.inf), -1.0)
            order = numpy.argsort(-backend.to_cpu(beyond).reshape(-1), kind="stable")[:SHOWN_ELEMENTS]
            for flat in order:
                index = element_index(int(flat), t.base.shape)
                reference = 0.0 if t.ref is None else float(t.ref[index])
                tested = 0.0 if t.grad is None else float(t.grad[index])
                result.elements.append(ElementDisagreement(
                    index, tested, reference, abs(tested - reference), float(bound[index]),
                    (f"backprop in {dtype}", f"backprop in {t.ref.dtype if t.ref is not None else 'float64'}")))
            failures.append(result)
    return worst, failures
