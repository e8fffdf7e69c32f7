"""Probes: numerical and backprop directional derivatives along random directions, and their tolerances.

A probe moves some targets along their directions, evaluates ``f`` on the
stencil of ``finite_differences`` and compares. Its tolerance may absorb
rounding noise and the truncation error of a smooth ``f``; it may never
absorb a kink. So a probe is *trusted* only when the finite difference's own
error indicators (the estimate and the 4th difference, which bound what a kink
can do to the derivative) fit within the tolerance budget; otherwise the step
shrinks (ten times, up to ``MAX_REFINEMENTS`` times) until they do, which
clears a kink that is near but not at the point. A probe that stays untrusted
goes to ``localisation``, which isolates the offending elements.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy

from minigrad import backend
from minigrad.testing._checker import finite_differences as fd
from minigrad.testing._checker.problem import CheckProblem, DirectionStats, Target, absolute, eps_of, f64

# Tolerance of check 1 when ``atol``/``rtol`` are None, by the dtype of the numerical part.
AUTO_RTOL: dict[str, float] = {"float64": 1e-6, "float32": 1e-4, "float16": 1e-2}
# Step multiplier by the numerical dtype: truncation error grows as step**4, rounding noise
# as eps(dtype) / step; in float64 a step of 1e-4 keeps both far below rtol=1e-6.
STEP_FACTOR: dict[str, float] = {"float64": 0.1, "float32": 16.0, "float16": 128.0}
NOISE_FACTOR = 2.0  # times the error estimate of the numerical derivative
ROUNDING_FACTOR = 16.0  # times eps * (sum of |terms|): bound on rounding in f and in <g, v>
KINK_RTOL = 1e-2  # detect_nondifferentiable: |4th difference| / h > KINK_RTOL * largest |g_i v_i|
MINOR_SHARE = 0.1  # a target adding less than this fraction of the largest share gets its own probe
ORTHOGONALITY = 0.25  # redraw a direction when |<g_ref, v>| < ORTHOGONALITY * ||g_ref|| * rms(v)
REFINEMENT = 10.0  # an untrusted probe is repeated with a step this many times smaller
MAX_REFINEMENTS = 6
ROUNDING_GROWTH = 1e4  # a refined step may raise the rounding noise up to this many times the first budget


@dataclass
class ProbeSetup:
    """Everything a probe needs besides the directions (was a positional tuple)."""

    problem: CheckProblem
    targets: list[Target]
    step: float  # the first step, before any refinement
    nd: numpy.dtype
    center_value: float
    center_l1: tuple[float, float]  # (sum |y * y_grad|, eps of the least precise output)
    arrays_nd: list[Any]
    requires: Sequence[bool]
    atol: float
    rtol: float
    trust_rtol: float = 1e-6  # the automatic rtol of nd: the trust test ignores loose user tolerances


@dataclass
class Probe:
    """Numerical and backprop directional derivatives along one direction, at one step."""

    backprop: float
    numerical: float
    error_estimate: float
    kink: float  # |4th difference| / h: zero for smooth f, O(slope jump) at a kink
    noise: float
    rounding: float  # the rounding part of noise
    norm: float  # ||v||, to express atol on a unit direction like Chainer
    scale: float  # largest single-element contribution |g_i v_i|
    size: int  # number of elements moved
    step: float
    budget: float = 0.0  # what the tolerance may be without the finite difference's own error
    trusted: bool = True
    initial: Probe | None = None  # the probe at the first step, when this one is a refinement
    slope: float = 0.0  # the largest secant slope |f(t) - f(0)| / |t| along the line

    @property
    def indicator(self) -> float:
        """The larger error indicator: it bounds what a kink within reach does to the derivative."""
        return max(self.error_estimate, self.kink)

    @property
    def untrusted_excess(self) -> float:
        """How far the error indicators exceed the rounding noise: what a kink may hide in."""
        return max(self.error_estimate, self.kink) - self.rounding


def evaluate(setup: ProbeSetup, parts: dict[int, Any], step: float, *, kinks: bool = False) -> Probe:
    """Evaluations of f along ``parts`` (target index -> direction) at ``step`` and the comparison figures.

    Four evaluations (``t = -2h, -h, h, 2h``; ``f(0)`` is known), five with
    ``kinks`` (``3h`` adds a second 4th difference, for detect_nondifferentiable).
    """
    problem, targets, nd = setup.problem, setup.targets, setup.nd
    offsets = [t * step for t in (fd.PROBE_WITH_KINKS if kinks else fd.PROBE)]
    values = []
    for t in offsets:
        arrays = list(setup.arrays_nd)
        for k, v in parts.items():
            target = targets[k]
            moved = v * t
            moved += target.base_nd
            moved = moved.astype(nd, copy=False)
            if target.param is None:
                arrays[target.position] = moved
            else:
                target.param.array = moved
        try:
            outputs = problem.call(arrays, setup.requires)
        finally:
            for k in parts:
                if targets[k].param is not None:
                    targets[k].param.array = targets[k].base_nd
        values.append(problem.value(outputs))
    diff = fd.difference(offsets, values, setup.center_value, step)
    backprop, sum_abs, eps_sum_x, largest, norm2 = 0.0, 0.0, 0.0, 0.0, 0.0
    eps_ref = 0.0
    for k, v in parts.items():
        target = targets[k]
        stats = target.stats if v is target.direction and target.stats else direction_stats(target, v)
        backprop += stats.share
        sum_abs += stats.sum_abs
        largest = max(largest, stats.largest)
        # the input moves in nd, unless func rounds it coarser (a seed cast to a float32 output's dtype):
        # then f is a staircase on the scale of that precision, whose steps count as rounding
        rounded = problem.rounded_inputs.get(target.position) if target.param is None else None
        eps_sum_x += (eps_of(nd) if rounded is None else max(eps_of(nd), eps_of(rounded))) * stats.sum_x
        norm2 += stats.norm2
        if target.ref is not None:
            eps_ref = max(eps_ref, eps_of(target.ref.dtype))
    l1_outputs, eps_out = setup.center_l1
    # sum |y * y_grad| at the centre, or the values along the line where that is larger (it may be 0 there)
    l1_outputs = max(l1_outputs, max((abs(v) for v in values if math.isfinite(v)), default=0.0))
    rounding = ROUNDING_FACTOR * (eps_out * l1_outputs + eps_sum_x) / step
    estimate = diff.estimate if diff.finite else math.inf
    noise = NOISE_FACTOR * estimate + rounding + ROUNDING_FACTOR * eps_ref * sum_abs
    size = sum(int(v.size) for v in parts.values())
    numerical = diff.derivative if diff.finite else math.nan
    return Probe(backprop, numerical, estimate, diff.kink, noise, rounding, math.sqrt(norm2), largest, size, step,
                 slope=diff.slope)


def probe(setup: ProbeSetup, parts: dict[int, Any], *, kinks: bool = False) -> Probe:
    """A probe along ``parts`` at the first step, refined until its finite difference can be trusted.

    Trusted means: what the estimate and the 4th difference allow a kink to do
    (beyond rounding) fits ``NOISE_FACTOR`` times within the budget. The
    budget is the automatic tolerance of the numerical dtype (``trust_rtol``
    times the derivative, or times the largest secant slope along the line
    where the derivative vanishes), or the rounding noise at the first step if
    larger: a loose user tolerance does not make a kink trustworthy.
    Refinement stops where the rounding noise would exceed
    ``ROUNDING_GROWTH`` times the budget. The returned probe says whether it
    is trusted.
    """
    first = evaluate(setup, parts, setup.step, kinks=kinks)
    budget = max(_trust_budget(first, setup.trust_rtol), first.rounding)
    current = first
    for refinement in range(MAX_REFINEMENTS + 1):
        current.budget = budget
        current.trusted = (math.isfinite(current.numerical) and NOISE_FACTOR * current.untrusted_excess <= budget
                           and current.rounding <= ROUNDING_GROWTH * budget)
        if current.trusted or refinement == MAX_REFINEMENTS:
            break
        if current.rounding * REFINEMENT > ROUNDING_GROWTH * budget:
            break  # a smaller step would drown in rounding: this one cannot be made trustworthy
        current = evaluate(setup, parts, current.step / REFINEMENT)
        current.initial = first
        budget = max(budget, _trust_budget(current, setup.trust_rtol))
    return current


def _trust_budget(probe: Probe, trust_rtol: float) -> float:
    numerical = abs(probe.numerical) if math.isfinite(probe.numerical) else 0.0
    slope = probe.slope if math.isfinite(probe.slope) else 0.0
    return trust_rtol * max(numerical, slope)


def direction_stats(target: Target, v: Any, terms: Any = None) -> DirectionStats:
    """The sums a probe along ``v`` needs (exact; ``direction`` gives bounds that are cheaper)."""
    xp = backend.get_array_module(v)
    flat = v.ravel()
    norm2 = float(xp.vdot(flat, flat))
    if target.ref is None or v.size == 0:
        return DirectionStats(0.0, 0.0, 0.0, 0.0, norm2)
    ref = f64(target.ref)
    terms = ref * v if terms is None else terms
    share = float(terms.sum())
    terms = absolute(terms)
    ref_flat, base_flat = ref.ravel(), target.base_nd.ravel()
    # Cauchy-Schwarz bound on sum |g_ref * x| (it only feeds a rounding floor)
    sum_x = math.sqrt(float(xp.vdot(ref_flat, ref_flat)) * abs(float(xp.vdot(base_flat, base_flat))))
    return DirectionStats(share, float(terms.sum()), float(terms.max()), sum_x, norm2)


def direction(rng: numpy.random.Generator, target: Target) -> tuple[Any, float, DirectionStats]:
    """A random direction for ``target``: random signs, weights in [0.5, 1], times the input's scale.

    Every element takes part with a weight bounded away from zero (one wrong
    element is never hidden by a tiny weight). Draws nearly orthogonal to the
    reference gradient are redrawn, and the sign is chosen so that the target's
    directional derivative is positive: a scaled or partly wrong gradient then
    shifts it by a fixed fraction, not by an unlucky small one. Returns the
    direction, its share ``<g_ref, v>`` and bounds on the sums a probe needs
    (the exact ``direction_stats`` would cost several passes over large inputs).
    """
    xp = backend.get_array_module(target.base)
    ref = None if target.ref is None else f64(target.ref)
    if ref is not None and ref.size:
        flat = ref.ravel()
        ref_l2 = math.sqrt(float(xp.vdot(flat, flat)))
        magnitudes = abs(flat)
        ref_l1, ref_max = float(magnitudes.sum()), float(magnitudes.max())
        del magnitudes
    for _ in range(32):
        w = rng.random(size=target.base.shape)
        w -= 0.5
        numpy.copysign(numpy.abs(w) + 0.5, w, out=w)  # sign and a weight in [0.5, 1] from one draw
        w *= target.scale
        v = xp.asarray(w)
        vflat = v.ravel()
        norm2 = float(xp.vdot(vflat, vflat))
        if ref is None or ref.size == 0:
            return v, 0.0, DirectionStats(0.0, 0.0, 0.0, 0.0, norm2)
        share = float(xp.vdot(flat, vflat))
        # typical |<g_ref, v>| for a v independent of g_ref: ||g_ref|| * rms(v)
        typical = ref_l2 * target.scale * math.sqrt(7.0 / 12.0)
        if not (math.isfinite(share) and typical > 0):
            return v, 0.0, direction_stats(target, v)
        if abs(share) >= ORTHOGONALITY * typical:
            break
    if share < 0:
        v = -v
    base = target.base_nd.ravel()
    sum_x = ref_l2 * math.sqrt(abs(float(xp.vdot(base, base))))  # Cauchy-Schwarz bound on sum |g_ref x|
    return v, abs(share), DirectionStats(abs(share), ref_l1 * target.scale, ref_max * target.scale, sum_x, norm2)


def step_scale(rms: float, nd: numpy.dtype) -> float:
    """How far to move an input, in units of ``eps``: its rms magnitude, at most 1.

    Small inputs move less (a log near 0, a kink at 0.1 stay out of reach).
    Large ones do not move more: a large magnitude says little about the
    scale on which ``func`` changes (logsumexp of values near 60 changes on a
    scale of 1), unless rounding in ``nd`` would drown the step.
    """
    if not (rms > 0 and math.isfinite(rms)):
        return 1.0
    return min(rms, max(1.0, rms * eps_of(nd) ** (1.0 / 3.0)))


def tolerance_part(probe: Probe, atol: float, rtol: float) -> float:
    """The atol/rtol part of the tolerance (``atol`` applies to a unit direction, as in Chainer)."""
    numerical = abs(probe.numerical) if math.isfinite(probe.numerical) else 0.0
    return atol * probe.norm + rtol * numerical


def tolerance(probe: Probe, atol: float, rtol: float) -> float:
    return max(tolerance_part(probe, atol, rtol), probe.noise)


def margin(probe: Probe, atol: float, rtol: float) -> float:
    error = abs(probe.backprop - probe.numerical)
    if not math.isfinite(error):
        return math.inf
    tol = tolerance(probe, atol, rtol)
    return error / tol if tol > 0 else (0.0 if error == 0 else math.inf)


def group_tolerance(probe: Probe, targets: Sequence[Target], atol: float, rtol: float) -> float:
    """The tolerance of a probe that moves several targets: the strictest of theirs (each target's
    part ``atol * ||v_k|| + rtol * <g_ref_k, v_k>``), so that no target's error hides behind the
    others' terms; never below the probe's noise."""
    own = min(atol * math.sqrt(t.stats.norm2) + rtol * t.share for t in targets)
    return max(own, probe.noise)


def group_margin(probe: Probe, targets: Sequence[Target], atol: float, rtol: float) -> float:
    error = abs(probe.backprop - probe.numerical)
    if not math.isfinite(error):
        return math.inf
    tol = group_tolerance(probe, targets, atol, rtol)
    return error / tol if tol > 0 else (0.0 if error == 0 else math.inf)


def kink_threshold(probe: Probe, scale: float) -> float:
    """The 4th difference a kink must exceed to be reported by detect_nondifferentiable.

    A fraction of one element's contribution: the largest ``|g_ref_i v_i|``,
    or, when backprop gave nothing to compare, the numerical derivative's share
    per element.
    """
    typical = abs(probe.numerical) / math.sqrt(max(probe.size, 1)) if math.isfinite(probe.numerical) else 0.0
    return KINK_RTOL * max(scale, typical) + 2.0 * probe.rounding
