"""Check 2: gradients computed in a low precision against the reference, element by element."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy

from minigrad import backend
from minigrad.testing._checker.arrays import absolute, element_index, eps_of, rms
from minigrad.testing._checker.localisation import SHOWN_ELEMENTS
from minigrad.testing._checker.report import ElementDisagreement, Kind, TargetResult
from minigrad.testing._checker.targets import ALL, Target

# |g - g_ref| <= factor * eps * (|g_ref| + absolute scale), the factor by dtype: a float16 path wrong by
# about 1 % (8 eps = 0.8 % of the element plus as much of the largest), a float32 path wrong by 1e-4
# (64 eps = 7.6e-6) is caught
PRECISION_FACTOR = 64.0
PRECISION_FACTORS: dict[str, float] = {"float16": 8.0}


def absolute_scale(t: Target, ref: Any, f_terms: float) -> float:
    """The absolute part of ``t``'s bound, in units of its gradient: its own largest element (another
    input's scale does not widen it), or one element's share of the magnitude of ``f``'s terms per
    unit of this input (a sum that nearly cancels)."""
    own = float(abs(ref).max()) if ref is not None and ref.size else 0.0
    magnitude = rms(t.base_nd)
    return max(own, f_terms / max(t.base.size, 1) / magnitude if magnitude > 0 else 0.0)


def comparisons(t: Target) -> list[tuple[str, int, Any, Any]]:
    """(label, series, gradient under test, reference): the whole gradient, and each output's part
    where the outputs are compared one by one (a small output's part is judged at its own scale)."""
    pairs = [(t.name, ALL, t.grad, t.ref)]
    pairs += [(f"{t.name} (from output {j})", j, t.part_grads.get(j), t.part_refs[j]) for j in t.part_refs]
    return pairs


def precision_check(targets: Sequence[Target], atol: float | None, rtol: float | None,
                    f_terms: dict[int, float]) -> tuple[float, list[TargetResult]]:
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
        for label, series, grad, ref in comparisons(t):
            result = _compare(t, label, grad, ref, atol, rtol, f_terms[series], coarsest)
            if result is None:
                continue
            worst = max(worst, result.margin)
            if result.margin >= 1.0:
                failures.append(result)
    return worst, failures


def _compare(t: Target, label: str, grad: Any, reference: Any, atol: float | None, rtol: float | None,
             f_terms: float, coarsest: numpy.dtype | None) -> TargetResult | None:
    """One gradient against its reference, element by element: a result with the worst elements."""
    if (grad is None and reference is None) or t.base.size == 0:
        return None
    dtype = t.base.dtype
    xp = backend.get_array_module(t.base)
    # float32 arithmetic is exact enough for a bound of 64 eps of float16/float32, and half the traffic
    work = numpy.dtype(numpy.float32) if dtype.itemsize <= 4 else numpy.dtype(numpy.float64)
    ref = xp.zeros(t.base.shape, work) if reference is None else reference.astype(work)
    g = xp.zeros(t.base.shape, work) if grad is None else grad.astype(work, copy=False)
    # the comparison is as precise as the coarser side: a numerical dtype coarser than the input (Chainer's
    # dtype=float32 on float64 inputs) makes a reference that judges the gradient at its own precision only
    sides = (dtype, coarsest or dtype, dtype if reference is None else reference.dtype)
    factor = max(PRECISION_FACTORS.get(d.name, PRECISION_FACTOR) * eps_of(d) for d in sides)
    bound = abs(ref)
    bound *= factor
    bound += factor * absolute_scale(t, reference, f_terms)
    if atol is not None or rtol is not None:
        bound = xp.maximum(bound, (atol or 0.0) + (rtol or 0.0) * abs(ref))
    bound += float(numpy.finfo(dtype).tiny)
    error = absolute(g - ref)
    ratio = error / bound
    margin = float(ratio.max())
    if not math.isfinite(margin):  # NaN or Inf in the gradient under test
        margin = math.inf
        ratio = xp.where(xp.isfinite(ratio), ratio, xp.inf)
    result = TargetResult(label, tuple(t.base.shape), str(dtype), margin=margin, kind=Kind.PRECISION,
                          note=f"its {dtype} gradient differs from the reference gradient by more than the "
                               "dtype's precision explains")
    if margin < 1.0:
        return result
    reference_dtype = reference.dtype if reference is not None else "float64"
    # of the elements beyond their bound, the largest absolute errors first
    beyond = xp.where(ratio >= 1.0, xp.where(xp.isfinite(error), error, xp.inf), -1.0)
    for flat in numpy.argsort(-backend.to_cpu(beyond).reshape(-1), kind="stable")[:SHOWN_ELEMENTS]:
        index = element_index(int(flat), t.base.shape)
        expected = 0.0 if reference is None else float(reference[index])
        tested = 0.0 if grad is None else float(grad[index])
        result.elements.append(ElementDisagreement(
            index, tested, expected, abs(tested - expected), float(bound[index]),
            (f"backprop in {dtype}", f"backprop in {reference_dtype}")))
    return result
