"""Checks on backprop's own gradients that need no numerical derivative.

- ``require_finite``: a NaN or an inf in a gradient is reported as such (which
  input, which elements), not as a kink of ``func``;
- ``layout_disagreements``: backprop on the arrays as the caller gives them
  (a transposed view, a strided slice, a broadcast array) and on C-contiguous
  copies must give the same gradients up to rounding;
- ``loss_scale``: the random scalar output gradient that ``y_grad=None`` uses,
  so that a backward which forgets to multiply by its output gradient is caught.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy

from minigrad import backend
from minigrad.testing._checker.arrays import element_index, eps_of, f64
from minigrad.testing._checker.report import (
    ElementDisagreement,
    GradientCheckError,
    GradientCheckReport,
    Kind,
    TargetResult,
)
from minigrad.testing._checker.targets import Target

SHOWN = 3
LAYOUT_FACTOR = 32.0  # |g_as_given - g_contiguous| <= LAYOUT_FACTOR * eps * (|g| + |h| + max |h|)
# |c| for y_grad=None: exactly representable in float16, never 1, so that a missing ``* gy`` shows
LOSS_SCALES = (1.25, 1.375, 1.5, 1.625, 1.75, 1.875, 2.0)


def loss_scale(seed: int) -> float:
    """The scalar output gradient of a loss checked with ``y_grad=None``, drawn from ``seed``.

    Example:
        >>> c = loss_scale(0)
        >>> 1.25 <= abs(c) <= 2.0 and loss_scale(0) == c
        True
    """
    rng = numpy.random.default_rng([seed, 25])
    return float(rng.choice(LOSS_SCALES)) * (1.0 if rng.random() < 0.5 else -1.0)


def require_finite_outputs(where: str, outputs: Sequence[Any], dtype_note: str = "") -> None:
    """Raise ``ValueError`` when a float output of ``func`` is NaN or inf at the point checked: no
    derivative can be checked where ``func`` overflows or is undefined (a difference of infinities is NaN).

    Example:
        >>> import numpy as np
        >>> require_finite_outputs("check_backward", [np.array([1.0, np.inf])])
        Traceback (most recent call last):
        ...
        ValueError: check_backward: output 0 of func is inf at the point checked (1 element(s), e.g. at (1,)); ...
    """
    for j, y in enumerate(outputs):
        if y.dtype.kind != "f" or y.size == 0:
            continue
        xp = backend.get_array_module(y)
        bad = ~xp.isfinite(y)
        if not bool(bad.any()):
            continue
        flat = int(numpy.flatnonzero(backend.to_cpu(bad).reshape(-1))[0])
        index = element_index(flat, y.shape)
        what = "NaN" if bool(xp.isnan(y[index])) else "inf"
        raise ValueError(f"{where}: output {j} of func is {what} at the point checked{dtype_note} "
                         f"({int(bad.sum())} element(s), e.g. at {index}); no derivative can be checked where "
                         "func overflows or is undefined: move or scale the inputs into its domain")


def require_finite(where: str, targets: Sequence[Target], seed: int, evaluations: int, reference: bool) -> None:
    """Raise ``GradientCheckError`` when backprop gave a NaN or an inf for a target (the inputs are finite)."""
    results = []
    for t in targets:
        g = t.ref if reference else t.grad
        if g is None or g.size == 0:
            continue
        xp = backend.get_array_module(g)
        bad = ~xp.isfinite(g)
        if not bool(bad.any()):
            continue
        flat = numpy.flatnonzero(backend.to_cpu(bad).reshape(-1))
        result = TargetResult(t.name, tuple(t.base.shape), str(g.dtype), margin=math.inf, kind=Kind.FINITE,
                              note=f"backprop{' in ' + str(g.dtype) if reference else ''} gave {len(flat)} "
                                   f"non-finite element(s) of {g.size}")
        for i in flat[:SHOWN]:
            index = element_index(int(i), t.base.shape)
            result.elements.append(ElementDisagreement(index, float(g[index]), math.nan, math.inf, 0.0,
                                                       ("backprop", "(input value " + repr(float(t.base[index]))
                                                        + ") numerical")))
        results.append(result)
    if not results:
        return
    report = GradientCheckReport(math.inf, evaluations, seed, "", math.nan, math.nan, math.nan, math.nan,
                                 targets=results)
    names = ", ".join(r.name for r in results)
    lines = [f"{where}: backprop gave NaN or inf in the gradient of {names} (seed={seed})"]
    for r in results:
        lines.append(f"  {r.name} (shape {r.shape}, {r.dtype}): {r.note}, e.g.:")
        lines.extend(f"    index {e.index}: backprop {e.backprop!r} {e.labels[1].split(')')[0]})"
                     for e in r.elements)
    lines.append("  the inputs and the outputs of func are finite there: look for a 0/0, an inf - inf or an "
                 "overflow in the backward; if func itself has an infinite derivative at that point (sqrt or "
                 "log at 0), move the input away from it")
    raise GradientCheckError("\n".join(lines), report)


def layout_disagreements(targets: Sequence[Target], contiguous: Sequence[Any]) -> list[TargetResult]:
    """Targets whose gradient on the arrays as given differs from that on C-contiguous copies (``contiguous``)."""
    results = []
    for t, h in zip(targets, contiguous):
        g = t.grad
        if g is None and h is None:
            continue
        if (g is None) != (h is None) or g.shape != h.shape:
            results.append(TargetResult(t.name, tuple(t.base.shape), str(t.base.dtype), margin=math.inf,
                                        kind=Kind.LAYOUT, note="backprop gives a gradient for one layout and "
                                                               "None for the other"))
            continue
        xp = backend.get_array_module(g)
        g64, h64 = f64(g), f64(h)
        finite = xp.isfinite(h64)
        scale = float(abs(xp.where(finite, h64, 0)).max()) if h.size else 0.0
        bound = LAYOUT_FACTOR * eps_of(g.dtype) * (abs(g64) + abs(h64) + scale) + float(numpy.finfo(g.dtype).tiny)
        ratio = abs(g64 - h64) / bound
        ratio = xp.where(xp.isnan(ratio), xp.inf, ratio)
        if h.size == 0 or float(ratio.max()) < 1.0:
            continue
        result = TargetResult(t.name, tuple(t.base.shape), str(g.dtype), margin=float(ratio.max()),
                              kind=Kind.LAYOUT,
                              note=f"backprop gives a different gradient for the array as given (strides "
                                   f"{t.base.strides}) than for a C-contiguous copy: the backward depends on the "
                                   "memory layout of its input")
        for i in numpy.argsort(-backend.to_cpu(ratio).reshape(-1), kind="stable")[:SHOWN]:
            index = element_index(int(i), t.base.shape)
            result.elements.append(ElementDisagreement(
                index, float(g[index]), float(h[index]), abs(float(g[index]) - float(h[index])),
                float(bound[index]), ("backprop on the array as given", "on a C-contiguous copy")))
        results.append(result)
    return results
