"""Step 5 of a check: probes, numerical and backprop directional derivatives along one direction.

A probe moves one target along a direction, evaluates ``func`` on the stencil
of ``finite_differences`` and compares, for each *series* (every output
together, and each output alone where they are compared one by one). The
values are differences from the centre, output element by output element, so
an output element that does not move adds nothing, not even rounding: a large
constant elsewhere does not raise the floor of a probe that does not touch it.

A probe's tolerance may absorb rounding noise and the truncation error of a
smooth ``f``; it may never absorb a kink. So a probe is *trusted* only when
the finite difference's own error indicators (the estimate and the 4th
difference, which bound what a kink can do to the derivative) fit within the
tolerance budget; otherwise the step shrinks tenfold (up to ``MAX_REFINEMENTS``
times), which clears a kink that is near but not at the point. A trusted probe
whose tolerance is set by rounding tries a step ten and a hundred times larger
(``step_up``), kept only where it is trusted and agrees with the first.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from minigrad import backend
from minigrad.testing._checker import finite_differences as fd
from minigrad.testing._checker.arguments import CheckArguments
from minigrad.testing._checker.arrays import absolute, eps_of, f64
from minigrad.testing._checker.problem import Problem
from minigrad.testing._checker.targets import ALL, Target

# Step multiplier by the numerical dtype: truncation error grows as step**4, rounding noise
# as eps(dtype) / step; in float64 a step of 1e-4 keeps both far below rtol=1e-6.
STEP_FACTOR: dict[str, float] = {"float64": 0.1, "float32": 16.0, "float16": 128.0}
NOISE_FACTOR = 2.0  # times the error estimate of the numerical derivative
ROUNDING_FACTOR = 16.0  # times eps * (sum of |terms|): bound on rounding in f and in <g, v>
KINK_RTOL = 1e-2  # detect_nondifferentiable: |4th difference| / h > KINK_RTOL * largest |g_i v_i|
REFINEMENT = 10.0  # an untrusted probe is repeated with a step this many times smaller
MAX_REFINEMENTS = 6
ROUNDING_GROWTH = 1e4  # a refined step may raise the rounding noise up to this many times the first budget
STEP_UPS = 2  # a probe whose tolerance is rounding may try steps 10x and 100x larger
EXACT_RTOL = 1e-3  # the adjoint identity's automatic rtol, as a fraction of the finite differences'
TYPICAL = math.sqrt(12.0 / 7.0)  # E[w^2] = 7/12 for weights uniform in [0.5, 1]


@dataclass
class ProbeSetup:
    """What every probe of one check shares."""

    problem: Problem
    args: CheckArguments
    targets: list[Target]
    arrays_nd: list[Any]  # the centre, in the numerical dtype (inputs, then parameters)
    centre: dict[int, Any]  # float output j -> its value at the centre, float64
    gys: dict[int, Any]  # float output j -> its output gradient, float64
    eps_out: dict[int, float]  # float output j -> eps of its dtype
    subnormal_out: dict[int, float]  # float output j -> the smallest subnormal of its dtype (absolute rounding)
    series: tuple[int, ...]  # ALL, then the outputs compared one by one
    step: float  # the first step, before any refinement
    trust_rtol: float  # the automatic rtol of the numerical dtype: loose user tolerances do not buy trust
    centre_l1: dict[int, float]  # output j -> sum |y_j gy_j| at the centre (the magnitude of f's terms)
    figures: dict[tuple[int, int, int], Any] = field(default_factory=dict)  # see _direction_figures
    buffers: dict[int, Any] = field(default_factory=dict)  # output j -> the array of its differences
    gys_l1: dict[int, float] = field(default_factory=dict)  # output j -> sum |gy_j| (nondet_tol, subnormals)


@dataclass
class Line:
    """One series along one probe: the two derivatives and the numerical one's error bounds."""

    backprop: float
    numerical: float
    estimate: float  # |central difference at h - at 2h|
    kink: float  # |4th difference| / h: zero for smooth f, O(slope jump) at a kink
    slope: float  # the largest secant slope along the line
    rounding: float  # bound on the rounding in f and in the moved input, over the step
    noise: float  # bound on the numerical derivative's error: NOISE_FACTOR * estimate + rounding + <g, v>'s
    scale: float  # the typical |<g_ref, v>| of a random direction over the same elements
    largest: float  # the largest single term |g_i v_i|
    sum_abs: float  # sum |g_i v_i|
    budget: float = 0.0

    @property
    def untrusted_excess(self) -> float:
        """How far the error indicators exceed the rounding noise: what a kink may hide in."""
        return max(self.estimate, self.kink) - self.rounding


@dataclass
class Probe:
    """Numerical and backprop directional derivatives of each series along one direction, at one step."""

    target: int
    vector: Any
    step: float
    lines: dict[int, Line]
    norm: float  # ||v||, to express atol on a unit direction like Chainer
    size: int  # elements moved
    trusted: bool = True
    initial: Probe | None = None  # the probe at the first step, when this one is a refinement
    exact: bool = False  # an adjoint check (a linear input): no step, no truncation
    notes: list[str] = field(default_factory=list)

    @property
    def total(self) -> Line:
        return self.lines[ALL]

    @property
    def kink(self) -> float:
        return max(line.kink for line in self.lines.values())


def tolerance(line: Line, norm: float, args: CheckArguments, exact: bool = False) -> float:
    """``atol * ||v|| + rtol * |numerical|`` with explicit tolerances (Chainer's meaning); automatic:
    ``rtol`` times the larger of |numerical| and the series' typical scale (for the adjoint identity,
    which has no truncation error, ``EXACT_RTOL`` of that or 64 eps of the numerical dtype); never
    below the noise."""
    numerical = abs(line.numerical) if math.isfinite(line.numerical) else 0.0
    if args.user_tolerance:
        return max(args.atol * norm + args.rtol * numerical, line.noise)
    rtol = max(EXACT_RTOL * args.rtol, 64.0 * eps_of(args.numerical_dtype)) if exact else args.rtol
    return max(rtol * comparison_scale(line), line.noise)


def comparison_scale(line: Line) -> float:
    """What an automatic tolerance is relative to: the typical |<g_ref, v>| of a random direction over
    the same elements (the aligned direction's derivative is larger, but its tolerance is not: a
    wrong element counts as much along it), or |numerical| where backprop gave nothing to compare."""
    if line.scale > 0:
        return line.scale
    numerical = abs(line.numerical) if math.isfinite(line.numerical) else 0.0
    slope = line.slope if math.isfinite(line.slope) else 0.0
    return max(numerical, slope)


def line_margin(line: Line, norm: float, args: CheckArguments, exact: bool = False) -> float:
    error = abs(line.backprop - line.numerical)
    if not math.isfinite(error):
        return math.inf
    tol = tolerance(line, norm, args, exact)
    return error / tol if tol > 0 else (0.0 if error == 0 else math.inf)


def margin(probe: Probe, args: CheckArguments) -> float:
    """The worst error / tolerance over the probe's series."""
    return max(line_margin(line, probe.norm, args, probe.exact) for line in probe.lines.values())


def evaluate(setup: ProbeSetup, k: int, v: Any, step: float, *, kinks: bool = False) -> Probe:
    """Evaluations of f with target ``k`` moved along ``v`` at ``step``, and the comparison figures.

    Four evaluations (``t = -2h, -h, h, 2h``; ``f(0)`` is known), five with
    ``kinks`` (``3h`` adds a second 4th difference, for detect_nondifferentiable).
    """
    offsets = [t * step for t in (fd.PROBE_WITH_KINKS if kinks else fd.PROBE)]
    values: dict[int, list[float]] = {s: [] for s in setup.series}
    output_rounding: dict[int, float] = {}
    for t in offsets:
        for s, value in _values_at(setup, k, v, t, output_rounding).items():
            values[s].append(value)
    lines = {s: _line(setup, k, v, fd.difference(offsets, values[s], 0.0, step), output_rounding, step, s)
             for s in setup.series}
    xp = backend.get_array_module(v)
    flat = v.ravel()
    return Probe(k, v, step, lines, math.sqrt(float(xp.vdot(flat, flat))), int(xp.count_nonzero(flat)))


def _values_at(setup: ProbeSetup, k: int, v: Any, t: float, output_rounding: dict[int, float]) -> dict[int, float]:
    """sum((y_j(t) - y_j(0)) * gy_j) per series; the first call also records in ``output_rounding`` how far
    rounding can move each output's sum (``_moved_rounding``)."""
    target = setup.targets[k]
    arrays = list(setup.arrays_nd)
    moved = v * t
    moved += target.base_nd
    arrays[target.position] = moved.astype(setup.args.numerical_dtype, copy=False)
    outputs = setup.problem.forward(arrays).outputs
    values = {}
    for j, gy in setup.gys.items():
        y = outputs[j]
        if y.shape != gy.shape:
            raise ValueError(f"{setup.problem.where}: output {j} changed shape from {gy.shape} to {y.shape} "
                             "when the inputs were perturbed")
        difference = _difference(setup, j, y)
        xp = backend.get_array_module(difference)
        values[j] = float(xp.vdot(difference.ravel(), gy.ravel()))
        if j not in output_rounding:
            output_rounding[j] = _moved_rounding(setup, j, y, difference, _expected_to_move(setup, k, v, j))
    values[ALL] = math.fsum(values[j] for j in setup.gys)
    return {s: values[s] for s in setup.series}


def _difference(setup: ProbeSetup, j: int, y: Any) -> Any:
    """``y - y(0)`` of output ``j`` in float64, in a buffer the probes of one check share (a probe
    evaluates ``func`` four times: a fresh array each time would cost as much as a small ``func``)."""
    centre = setup.centre[j]
    buffer = setup.buffers.get(j)
    if buffer is None or not centre.ndim:  # (a 0-dim result is a scalar: nothing to reuse)
        buffer = setup.buffers[j] = f64(y) - centre
        return buffer
    xp = backend.get_array_module(centre)
    return xp.subtract(y, centre, out=buffer)


def _expected_to_move(setup: ProbeSetup, k: int, v: Any, j: int) -> bool:
    """Whether backprop says output ``j`` changes along ``v`` (its own part of the gradient where the outputs
    are compared one by one): a term ``g_i v_i`` is not 0, or the terms underflowed (gradients and inputs
    of 1e-165: their products are below float64's smallest subnormal)."""
    series = j if j in setup.series else ALL
    if _direction_figures(setup, k, v, series)[1] > 0:
        return True
    ref = setup.targets[k].reference(series)
    return ref is not None and bool(((ref != 0) & (v != 0)).any())


def _moved_rounding(setup: ProbeSetup, j: int, y: Any, difference: Any, expected_to_move: bool) -> float:
    """How far rounding can move ``sum(y_j * gy_j)`` over the output elements that moved: eps of ``y_j``'s
    dtype times ``sum |y_j gy_j|``, plus its smallest subnormal times ``sum |gy_j|`` (the absolute spacing
    of outputs near 0). With every element moved, the centre's sums serve (computed once).

    Where no element moved although backprop says ``f`` changes along the direction (``expected_to_move``),
    every element counts: the step was below the outputs' resolution (an input of 1e-17 next to outputs of
    1, outputs of x * x that underflow), the change hides in their rounding, and a numerical derivative of
    exactly 0 says nothing. Where backprop says nothing changes either (the flat side of a ReLU), 0 against
    0 needs no rounding."""
    xp = backend.get_array_module(difference)
    moved = int(xp.count_nonzero(difference))
    eps, tiny = setup.eps_out[j], setup.subnormal_out[j]
    if moved == difference.size or (moved == 0 and expected_to_move):
        rounding = eps * setup.centre_l1[j] + tiny * _gy_l1(setup, j)
    else:
        changed = difference != 0
        gy = abs(setup.gys[j][changed])
        rounding = eps * float(xp.vdot(abs(f64(y)[changed]), gy)) + tiny * float(gy.sum())
    return rounding if math.isfinite(rounding) else 0.0


def _direction_figures(setup: ProbeSetup, k: int, v: Any, series: int) -> tuple[float, ...]:
    """(<g_ref, v>, sum |g_ref v|, max |g_ref v|, typical |<g_ref, v>|, sum |g_ref x| over v's elements)
    of one series; they do not depend on the step, so a refined probe reuses them."""
    key = (k, id(v), series)
    cached = setup.figures.get(key)
    if cached is not None and cached[0] is v:
        return cached[1]
    target = setup.targets[k]
    ref = target.reference(series)
    if ref is None:
        figures: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0)
    else:
        xp = backend.get_array_module(v)
        terms = f64(ref) * v
        derivative = float(terms.sum())
        magnitudes = absolute(terms)  # (in place: these arrays are the input's size, and four per probe)
        whole = int(xp.count_nonzero(v)) == v.size
        ref_x = absolute(f64(ref) * target.base_nd)
        sum_x = float(ref_x.sum()) if whole else float(xp.vdot(ref_x.ravel(), (v != 0).ravel()))
        largest = float(magnitudes.max()) if magnitudes.size else 0.0
        sum_abs, typical = float(magnitudes.sum()), 0.0
        if largest > 0:  # (the squares of terms of 1e-200 underflow to 0: scaled by the largest first)
            scaled = xp.divide(magnitudes, largest, out=magnitudes) if magnitudes.ndim else magnitudes / largest
            typical = TYPICAL * largest * math.sqrt(float(xp.vdot(scaled.ravel(), scaled.ravel())))
        figures = (derivative, sum_abs, largest, typical, sum_x)
    setup.figures[key] = (v, figures)
    return figures


def _line(setup: ProbeSetup, k: int, v: Any, diff: fd.Difference, output_rounding: dict[int, float], step: float,
          series: int) -> Line:
    target, args = setup.targets[k], setup.args
    ref = target.reference(series)
    backprop, sum_abs, largest, scale, sum_x = _direction_figures(setup, k, v, series)
    outputs = setup.gys if series == ALL else (series,)
    nondet = args.nondet_tol * sum(_gy_l1(setup, j) for j in outputs) if args.nondet_tol else 0.0
    eps_x = _input_eps(setup, k)
    f_rounding = sum(output_rounding.get(j, 0.0) for j in outputs) + nondet
    rounding = ROUNDING_FACTOR * (f_rounding + eps_x * sum_x) / step
    estimate = diff.estimate if diff.finite else math.inf
    eps_ref = eps_of(ref.dtype) if ref is not None else 0.0
    noise = NOISE_FACTOR * estimate + rounding + ROUNDING_FACTOR * eps_ref * sum_abs
    numerical = diff.derivative if diff.finite else math.nan
    return Line(backprop, numerical, estimate, diff.kink, diff.slope, rounding, noise, scale, largest, sum_abs)


def _gy_l1(setup: ProbeSetup, j: int) -> float:
    if j not in setup.gys_l1:
        setup.gys_l1[j] = float(abs(setup.gys[j]).sum())
    return setup.gys_l1[j]


def _input_eps(setup: ProbeSetup, k: int) -> float:
    """The precision a moved input has: the numerical dtype's, unless func rounds it coarser (a seed cast
    to a float32 output's dtype): then f is a staircase on that scale, whose steps count as rounding."""
    target, args = setup.targets[k], setup.args
    rounded = args.rounded_inputs.get(target.position) if not target.is_param else None
    return eps_of(args.numerical_dtype) if rounded is None else max(eps_of(args.numerical_dtype), eps_of(rounded))


def first_step(setup: ProbeSetup, k: int, v: Any) -> float:
    """The first step along ``v``: ``setup.step``, shorter where ``<g_ref, v>`` is large against its
    typical scale (an aligned direction), so that the truncation error, which grows with it, stays on
    the scale of the tolerance instead of forcing a refinement."""
    derivative, _, _, typical, _ = _direction_figures(setup, k, v, ALL)
    derivative = abs(derivative)
    return setup.step * min(1.0, math.sqrt(typical / derivative)) if derivative > 0 else setup.step


def probe(setup: ProbeSetup, k: int, v: Any, *, kinks: bool = False, step: float | None = None) -> Probe:
    """A probe along ``v`` at the first step, refined until its finite difference can be trusted.

    Trusted means: for every series, what the estimate and the 4th difference
    allow a kink to do (beyond rounding) fits ``NOISE_FACTOR`` times within the
    budget. The budget is the automatic tolerance of the numerical dtype
    (``trust_rtol`` times the series' scale, or times the largest secant slope
    along the line), or the rounding noise at the first step if larger: a loose
    user tolerance does not make a kink trustworthy. Refinement stops where the
    rounding noise would exceed ``ROUNDING_GROWTH`` times the budget.
    """
    first = evaluate(setup, k, v, setup.step if step is None else step, kinks=kinks)
    budgets = {s: max(_trust_budget(line, setup.trust_rtol), line.rounding) for s, line in first.lines.items()}
    current = first
    for refinement in range(MAX_REFINEMENTS + 1):
        current.trusted = _is_trusted(current, budgets)
        if current.trusted:
            return step_up(setup, current) if refinement == 0 else current
        if refinement == MAX_REFINEMENTS:
            break
        if any(line.rounding * REFINEMENT > ROUNDING_GROWTH * budgets[s] for s, line in current.lines.items()):
            break  # a smaller step would drown in rounding: this one cannot be made trustworthy
        current = evaluate(setup, k, v, current.step / REFINEMENT)
        current.initial = first
        budgets = {s: max(budgets[s], _trust_budget(line, setup.trust_rtol)) for s, line in current.lines.items()}
    return current


def _trust_budget(line: Line, trust_rtol: float) -> float:
    return trust_rtol * comparison_scale(line)


def _is_trusted(probe: Probe, budgets: dict[int, float]) -> bool:
    trusted = True
    for s, line in probe.lines.items():
        line.budget = budgets[s]
        trusted &= (math.isfinite(line.numerical) and NOISE_FACTOR * line.untrusted_excess <= line.budget
                    and line.rounding <= ROUNDING_GROWTH * line.budget)
    return trusted


def step_up(setup: ProbeSetup, first: Probe) -> Probe:
    """A larger step for a probe whose tolerance is set by rounding (a large constant in an output,
    a coarse numerical dtype): kept where it is trusted and agrees with ``first`` within its tolerance."""
    args, best = setup.args, first
    for _ in range(STEP_UPS):
        if not any(line.rounding > args.rtol * comparison_scale(line) for line in best.lines.values()):
            break
        larger = evaluate(setup, first.target, first.vector, best.step * REFINEMENT)
        budgets = {s: max(_trust_budget(line, setup.trust_rtol), line.rounding) for s, line in larger.lines.items()}
        agrees = all(abs(larger.lines[s].numerical - line.numerical) <= tolerance(line, first.norm, args)
                     for s, line in first.lines.items())
        if not (_is_trusted(larger, budgets) and agrees):
            break
        best = larger
    return best


def kink_threshold(probe: Probe, scale: float) -> float:
    """The 4th difference a kink must exceed to be reported by detect_nondifferentiable.

    A fraction of one element's contribution: the largest ``|g_ref_i v_i|``,
    or, when backprop gave nothing to compare, the numerical derivative's share
    per element.
    """
    line = probe.total
    typical = abs(line.numerical) / math.sqrt(max(probe.size, 1)) if math.isfinite(line.numerical) else 0.0
    return KINK_RTOL * max(scale, typical, line.largest) + 2.0 * line.rounding or math.ulp(0.0)


def exact_probe(setup: ProbeSetup, k: int, v: Any) -> Probe:
    """The adjoint identity for an input ``func`` is linear (or affine) in: one evaluation, no step.

    ``<f(x + v) - f(x), gy> = <v, J^T gy>`` holds exactly; only rounding separates the two sides
    (``f`` at both points and the moved input, each within ``ROUNDING_FACTOR`` ulps of its terms).
    """
    output_rounding: dict[int, float] = {}
    values = _values_at(setup, k, v, 1.0, output_rounding)
    lines = {}
    for s in setup.series:
        exact = fd.Difference(values[s], 0.0, 0.0, abs(values[s]), math.isfinite(values[s]))
        line = _line(setup, k, v, exact, output_rounding, 1.0, s)
        # f rounds at both ends of the difference, and the moved input x + v rounds to its precision
        line.noise += line.rounding + ROUNDING_FACTOR * _input_eps(setup, k) * line.sum_abs
        line.rounding *= 2.0
        lines[s] = line
    xp = backend.get_array_module(v)
    flat = v.ravel()
    return Probe(k, v, 1.0, lines, math.sqrt(float(xp.vdot(flat, flat))), int(xp.count_nonzero(flat)),
                 exact=True)
