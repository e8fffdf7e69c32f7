"""Check 2: gradients computed in a low precision against the reference, element by element."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy

from minigrad import backend
from minigrad.testing._checker.localisation import SHOWN_ELEMENTS
from minigrad.testing._checker.problem import Target, absolute, element_index, eps_of
from minigrad.testing._checker.report import ElementDisagreement, Kind, TargetResult

PRECISION_FACTOR = 64.0  # |g - g_ref| <= PRECISION_FACTOR * eps * (|g_ref| + absolute scale)


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
    sensitivity = max((t.stats.largest for t in targets if t.stats), default=0.0)
    worst = 0.0
    failures = []
    for t in targets:
        if (t.grad is None and t.ref is None) or t.base.size == 0:
            continue
        dtype = t.base.dtype
        xp = backend.get_array_module(t.base)
        # float32 arithmetic is exact enough for a bound of 64 eps of float16/float32, and half the traffic
        work = numpy.dtype(numpy.float32) if dtype.itemsize <= 4 else numpy.dtype(numpy.float64)
        ref = xp.zeros(t.base.shape, work) if t.ref is None else t.ref.astype(work)
        g = xp.zeros(t.base.shape, work) if t.grad is None else t.grad.astype(work, copy=False)
        absolute_part = max(sensitivity, f_terms / g.size) / t.scale
        factor = PRECISION_FACTOR * eps_of(dtype)
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
            order = numpy.argsort(-backend.to_cpu(ratio).reshape(-1), kind="stable")[:SHOWN_ELEMENTS]
            for flat in order:
                index = element_index(int(flat), t.base.shape)
                reference = 0.0 if t.ref is None else float(t.ref[index])
                tested = 0.0 if t.grad is None else float(t.grad[index])
                result.elements.append(ElementDisagreement(
                    index, tested, reference, abs(tested - reference), float(bound[index]),
                    (f"backprop in {dtype}", f"backprop in {t.ref.dtype if t.ref is not None else 'float64'}")))
            failures.append(result)
    return worst, failures
