"""``check_backward`` as a pipeline of named steps, each a function below (see ``run_check``).

The steps see a ``Problem`` (evaluate at arrays, a vjp at arrays) and arrays,
never a Variable, so another array framework is checked by adapting it to
``problem.Problem``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy

from minigrad.testing._checker import hints, localisation, probing
from minigrad.testing._checker.arguments import AUTO_RTOL, CheckArguments
from minigrad.testing._checker.arrays import absolute, element_index, eps_of, f64, rms
from minigrad.testing._checker.backprop import output_parts, reference_gradients, run_backprop_twice
from minigrad.testing._checker.directions import direction_count, draw_direction, step_scale
from minigrad.testing._checker.precision import precision_check
from minigrad.testing._checker.problem import Problem
from minigrad.testing._checker.report import (
    GradientCheckError,
    GradientCheckReport,
    NondifferentiableError,
    TargetResult,
    failure_message,
    kink_message,
)
from minigrad.testing._checker.sensitivity import BandProbes, target_sensitivity
from minigrad.testing._checker.targets import ALL, Target, scale_bands


def run_check(problem: Problem, args: CheckArguments, y_grad: Any) -> GradientCheckReport:
    """The pipeline (the arguments were validated by ``arguments.validate_arguments``, step 1).

    2. ``run_backprop_twice``: backprop under test, twice (determinism), on the caller's layout;
    3. ``reference_gradients``: backprop in the numerical dtype, and each output's part (``output_parts``);
    4. ``plan_bands``: scale bands and the step of each target; the directions are drawn as it probes;
    5. ``run_probes``: numerical against backprop directional derivatives, band by band;
    6. ``judge``: one verdict per target (the worst of its bands, outputs and directions) and the
       elementwise precision check;
    7. ``build_report``: the report, its sensitivity statement, or the error.
    """
    targets, excluded = make_targets(args)
    run = run_backprop_twice(problem, args, y_grad, targets, excluded)
    reference = reference_gradients(problem, args, run, targets)
    centre = _centre(reference)
    magnitudes = {j: float(absolute(y * reference.gys[j]).sum()) for j, y in centre.items()}  # sum |y_j gy_j|
    parts = output_parts(problem, run, reference, targets, magnitudes)
    setup = probing.ProbeSetup(problem, args, targets, reference.arrays_nd, centre, reference.gys,
                               _output_eps(reference), _output_subnormal(reference), (ALL,) + parts,
                               args.eps * probing.STEP_FACTOR.get(args.numerical_dtype.name, 1.0),
                               AUTO_RTOL.get(args.numerical_dtype.name, 1e-6), magnitudes)
    plan_bands(args, targets)
    probes = run_probes(setup, numpy.random.default_rng(args.seed))
    verdict = judge(setup, probes, run.layout_results)
    verdict.no_graph = problem.graph_missing(run.forward)
    return build_report(setup, probes, verdict)


def make_targets(args: CheckArguments) -> tuple[list[Target], list[Target]]:
    """The inputs and parameters whose gradients are checked, and the float inputs excluded by no_grads."""
    targets = [Target(args.names[i], i, x, linear=i in args.linear_in) for i, x in enumerate(args.x_data)
               if x.dtype.kind == "f" and not args.no_grads[i]]
    for k, p in enumerate(args.params):
        label = f"params[{k}]" + (f" ({p.name!r})" if p.name else "")
        targets.append(Target(label, len(args.x_data) + k, p.array, is_param=True))
    excluded = [] if args.excluded_may_have_grads else [
        Target(args.names[i], i, x) for i, x in enumerate(args.x_data) if x.dtype.kind == "f" and args.no_grads[i]]
    return targets, excluded


def _centre(reference: Any) -> dict[int, Any]:
    return {j: f64(reference.forward.outputs[j]) for j in reference.gys}


def _output_eps(reference: Any) -> dict[int, float]:
    return {j: eps_of(reference.forward.outputs[j].dtype) for j in reference.gys}


def _output_subnormal(reference: Any) -> dict[int, float]:
    return {j: float(numpy.finfo(reference.forward.outputs[j].dtype).smallest_subnormal) for j in reference.gys}


def plan_bands(args: CheckArguments, targets: list[Target]) -> None:
    """Each target's step scale (its rms magnitude, at most 1) and its scale bands."""
    nd = args.numerical_dtype
    for t in targets:
        t.scale = step_scale(rms(t.base), nd)
        rounded = args.rounded_inputs.get(t.position) if not t.is_param else None
        if rounded is not None:  # move it as far as a numerical part in that precision would
            boost = probing.STEP_FACTOR.get(numpy.dtype(rounded).name, 1.0) / probing.STEP_FACTOR.get(nd.name, 1.0)
            t.scale *= max(1.0, boost)
        t.bands = scale_bands(t.ref) if t.ref is not None else scale_bands(numpy.zeros(0))
        if t.ref is None:
            t.bands[0].size = int(t.base.size)


@dataclass
class TargetProbes:
    """Everything probed for one target: per band, its probes; the elements isolated at a kink."""

    bands: list[BandProbes] = field(default_factory=list)
    kinks: list[int] = field(default_factory=list)


def run_probes(setup: probing.ProbeSetup, rng: numpy.random.Generator) -> list[TargetProbes]:
    """Steps 4 and 5: for each target and band, its directions (aligned first) and their probes."""
    results = []
    for k, t in enumerate(setup.targets):
        found = TargetProbes()
        for band in t.bands:
            if band.size == 0:
                continue
            probes = []
            for d in range(direction_count(setup.args.directions, band)):
                direction = draw_direction(rng, t, band, aligned=d == 0)
                probes.append(_probe_direction(setup, k, direction.vector, found))
            found.bands.append(BandProbes(band, probes))
        results.append(found)
    return results


def _probe_direction(setup: probing.ProbeSetup, k: int, v: Any, found: TargetProbes) -> probing.Probe:
    """One probe: the adjoint identity for a linear input; otherwise the finite difference, with the
    kink policy (detect_nondifferentiable raises; an untrusted probe has its kink elements isolated)."""
    if setup.targets[k].linear:
        return probing.exact_probe(setup, k, v)
    detect = setup.args.detect_nondifferentiable
    p = probing.probe(setup, k, v, kinks=detect, step=probing.first_step(setup, k, v))
    first = p.initial or p
    target = setup.targets[k]
    scale = max(b.largest for b in target.bands) * target.scale  # a zero band is judged at its target's scale
    if detect and first.kink > probing.kink_threshold(first, scale):
        flat = localisation.kink_element(setup, k, v, first.step, detect=True, scale=scale)
        raise NondifferentiableError(kink_message(setup.args.where, setup.targets[k], [flat], setup.step,
                                                  setup.args.seed))
    if not p.trusted:  # a kink a smaller step does not clear: isolate its elements
        isolated, rest, direction = localisation.isolate_kinks(setup, k, p)
        found.kinks.extend(i for i in isolated if i not in found.kinks)
        if rest is None:
            p.notes.append("unverified")
            return p
        rest.vector = direction
        return rest
    return p


@dataclass
class Verdict:
    """Step 6's findings."""

    results: list[TargetResult]
    worst: tuple[int, probing.Probe, int] | None  # (target, probe, series) of the worst comparison
    directional_margin: float
    precision_margin: float | None
    extra: list[TargetResult]  # precision and layout failures
    no_graph: bool = False  # no output of func is connected to its inputs


def judge(setup: probing.ProbeSetup, probes: list[TargetProbes], layout: list[TargetResult]) -> Verdict:
    """One result per target: its worst comparison over bands, directions and series."""
    results, worst, worst_margin = [], None, -1.0
    for k, found in enumerate(probes):
        result, best = _target_result(setup, k, found), None
        for band in found.bands:
            for p in band.probes:
                for s, line in p.lines.items():
                    m = 0.0 if "unverified" in p.notes else probing.line_margin(line, p.norm, setup.args, p.exact)
                    if best is None or m > best[0]:
                        best = (m, p, s, band)
        if best is not None:
            _fill(result, setup, *best)
            result.step = min(p.step for band in found.bands for p in band.probes)
            if best[0] > worst_margin:
                worst, worst_margin = (k, best[1], best[2]), best[0]
        results.append(result)
    args = setup.args
    needs_reference = any(t.base.dtype != args.numerical_dtype for t in setup.targets)
    f_terms = dict(setup.centre_l1)
    f_terms[ALL] = sum(f_terms.values())
    precision_margin, failures = (precision_check(setup.targets, args.atol if args.user_tolerance else None,
                                                  args.rtol if args.user_tolerance else None, f_terms)
                                  if needs_reference else (None, []))
    directional = max((r.margin for r in results), default=0.0)
    return Verdict(results, worst, directional, precision_margin, failures + layout)


def _target_result(setup: probing.ProbeSetup, k: int, found: TargetProbes) -> TargetResult:
    t = setup.targets[k]
    result = TargetResult(t.name, tuple(t.base.shape), str(t.base.dtype))
    if t.ref is None:
        result.note = "backprop gave no gradient (None)"
    return result


def _fill(result: TargetResult, setup: probing.ProbeSetup, margin: float, p: probing.Probe, series: int,
          band: BandProbes) -> None:
    line = p.lines[series]
    result.backprop, result.numerical = line.backprop, line.numerical
    result.tolerance, result.margin, result.step = probing.tolerance(line, p.norm, setup.args, p.exact), margin, p.step
    where = [] if band.band.flat is None else [band.band.label]
    if series != ALL:
        where.append(f"the part from output {series}")
    if p.exact:
        where.append("adjoint identity")
    if where and margin >= 1.0:
        result.note = "; ".join(filter(None, [result.note, "in " + ", ".join(where)]))


def build_report(setup: probing.ProbeSetup, probes: list[TargetProbes], verdict: Verdict) -> GradientCheckReport:
    """Step 7: the report with its sensitivity statement; a GradientCheckError or NondifferentiableError."""
    args = setup.args
    report = GradientCheckReport(0.0, 0, args.seed, args.numerical_dtype.name, 0.0, 0.0, 0.0, 0.0)
    report.targets = verdict.results + verdict.extra
    report.directional_margin = verdict.directional_margin
    report.precision_margin = verdict.precision_margin
    report.margin = max([verdict.directional_margin, verdict.precision_margin or 0.0]
                        + [r.margin for r in verdict.extra])
    if verdict.worst is not None:
        k, p, s = verdict.worst
        line = p.lines[s]
        report.backprop, report.numerical, report.error_estimate = line.backprop, line.numerical, line.estimate
        report.tolerance = probing.tolerance(line, p.norm, args, p.exact)
    report.sensitivity = [target_sensitivity(t, found.bands, args) for t, found in zip(setup.targets, probes)]
    report.evaluations = setup.problem.evaluations
    if report.margin >= 1.0:
        kinky = _localise(setup, probes, verdict)
        worst = {k: _worst_probe(setup, probes[k]) for k, r in enumerate(verdict.results)
                 if r.margin >= 1.0 and probes[k].bands}
        report.hints = hints.gradient_hints(setup, report.targets, worst, args.seed, verdict.no_graph, args.where)
        report.evaluations = setup.problem.evaluations  # the localisation's and the hints' probes too
        raise GradientCheckError(failure_message(args.where, report, verdict.no_graph, kinky), report)
    for t, found in zip(setup.targets, probes):
        if found.kinks:  # nothing wrong where it could check, but some elements could not be verified
            step = min(p.step for b in found.bands for p in b.probes)
            raise NondifferentiableError(kink_message(args.where, t, found.kinks, step, args.seed))
    return report


def _worst_probe(setup: probing.ProbeSetup, found: TargetProbes) -> probing.Probe:
    """The probe of a target that disagrees most (the largest error over tolerance)."""
    return max(((probing.margin(p, setup.args), p) for b in found.bands for p in b.probes),
               key=lambda pair: pair[0])[1]


def _localise(setup: probing.ProbeSetup, probes: list[TargetProbes], verdict: Verdict) -> bool:
    """The worst elements of (up to three) failing targets; whether a kink may be the reason."""
    failing = [k for k, r in enumerate(verdict.results) if r.margin >= 1.0]
    for k in failing[:3]:
        worst = _worst_probe(setup, probes[k])
        verdict.results[k].elements = localisation.worst_elements(setup, k, worst.vector)
        if probes[k].kinks:
            shape = setup.targets[k].base.shape
            verdict.results[k].note = (f"elements {[element_index(f, shape) for f in probes[k].kinks]} sit on a "
                                       "kink and were left out")
    if setup.args.detect_nondifferentiable or verdict.worst is None or verdict.worst[1].exact:
        return False
    k, p, _ = verdict.worst  # is a kink the reason? (five more evaluations, on failure only)
    again = probing.evaluate(setup, k, p.vector, p.step, kinks=True)
    return again.kink > probing.kink_threshold(again, 0.0) and math.isfinite(again.kink)
