"""Hints: what a failed gradient check looks like, in words that say what to check.

A hint is a guess tested before it is given. Each names a common mistake in a
backward and builds the gradient that backward would have returned without
it (the reported gradient transposed, rescaled, or swapped with another
input's); the hint is given only when that corrected gradient matches the
numerical derivative along the input's own direction *and* along a fresh
random direction, so a coincidence along one direction gives no hint. The
fresh probes cost four evaluations of ``func`` per wrong input, on failure
only, and only when the first comparison matched.

The other hints read the figures the check already has: no gradient (or a
zero one) where the numerical derivative is not zero, and a gradient that is
right in float64 and wrong in float16/float32. A hint for a nondeterministic
backward goes with the error ``problem.repeat_pass`` raises, and one for a
missing broadcast reduction with the engine's shape error.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy

from minigrad import backend
from minigrad.testing._checker import probing
from minigrad.testing._checker.arrays import f64
from minigrad.testing._checker.directions import draw_direction
from minigrad.testing._checker.probing import Probe, ProbeSetup
from minigrad.testing._checker.report import Kind, TargetResult
from minigrad.testing._checker.targets import Band

SLACK = 4.0  # a corrected gradient may miss the numerical derivative by this many automatic tolerances
SIGN = 1e-3  # a fitted factor this close to -1 is a flipped sign


class _Evidence:
    """What the check measured of one wrong target: the numerical derivative along its own direction,
    along a fresh random one (made on first use) and at its worst elements."""

    def __init__(self, setup: ProbeSetup, k: int, probe: Probe, result: TargetResult, rng: numpy.random.Generator):
        self.setup, self.k, self.rng = setup, k, rng
        self.pairs = [(probe.vector, probe)]
        self.elements = result.elements
        self.gradient = f64(setup.targets[k].ref) if setup.targets[k].ref is not None else None

    def _fresh(self) -> tuple[Any, Probe] | None:
        if len(self.pairs) == 1:
            t = self.setup.targets[self.k]
            w = draw_direction(self.rng, t, Band(None, int(t.base.size), 0.0, 0.0), aligned=False).vector
            p = probing.exact_probe(self.setup, self.k, w) if t.linear else probing.probe(self.setup, self.k, w)
            self.pairs.append((w, p) if p.trusted else (None, p))
        w, p = self.pairs[1]
        return None if w is None else (w, p)

    def matches(self, gradient: Any) -> bool:
        """Whether ``gradient`` agrees with the numerical derivative at the worst elements and along both
        directions (a localised error can fit a rescaled gradient along one or two directions by chance)."""
        for e in self.elements:
            if not abs(float(gradient[e.index]) - e.numerical) <= SLACK * e.tolerance:
                return False
        for i in range(2):
            pair = self.pairs[0] if i == 0 else self._fresh()
            if pair is None:
                return False
            v, p = pair
            predicted = float(backend.get_array_module(v).vdot(gradient.ravel(), v.ravel()))
            tolerance = probing.tolerance(p.total, p.norm, self.setup.args, p.exact)
            if not abs(predicted - p.total.numerical) <= SLACK * tolerance:
                return False
        return True


def gradient_hints(setup: ProbeSetup, results: Sequence[TargetResult], probes: dict[int, Probe], seed: int,
                   no_graph: bool, where: str) -> list[str]:
    """The hints for the wrong targets of a failed check (``results[k]`` is target ``k``'s verdict, ``probes[k]``
    its worst probe; the precision check's results follow the targets' in ``results``)."""
    rng = numpy.random.default_rng([seed, 28])
    wrong = [k for k, r in enumerate(results[:len(setup.targets)]) if r.margin >= 1.0 and k in probes]
    evidence = {k: _Evidence(setup, k, probes[k], results[k], rng) for k in wrong}
    missing = [k for k in wrong if _is_missing(evidence[k].gradient)]
    hints = [_missing_hint([results[k].name for k in missing], no_graph, where)] if missing else []
    present = [k for k in wrong if k not in missing]
    for k in present:
        hints += _single_hints(results[k].name, evidence[k])
    for i, a in enumerate(present):
        for b in present[i + 1:]:
            ea, eb = evidence[a], evidence[b]
            if ea.gradient.shape == eb.gradient.shape and ea.matches(eb.gradient) and eb.matches(ea.gradient):
                hints.append(f"{results[a].name} and {results[b].name} look swapped: backprop's gradient of each "
                             "matches the numerical derivative of the other; check the order of the gradients "
                             "backward returns (one per input, in the order of the inputs)")
    return hints + precision_hints(results, setup.args.numerical_dtype.name)


def _is_missing(gradient: Any) -> bool:
    return gradient is None or not bool(backend.get_array_module(gradient).any(gradient))


def _single_hints(name: str, evidence: _Evidence) -> list[str]:
    """Transposed, scaled or of the wrong sign: hypotheses about one target's own gradient."""
    g = evidence.gradient
    hints = []
    for transposed in _transposes(g):
        if evidence.matches(transposed):
            hints.append(f"{name} looks transposed: backprop's gradient, transposed, matches the numerical "
                         "derivative; check backward for a missing or extra transpose (.T, F.transpose, transa/transb "
                         "of F.matmul)")
            break
    _, p = evidence.pairs[0]
    line = p.total
    factor = line.backprop / line.numerical if line.numerical and math.isfinite(line.numerical) else math.nan
    if not (math.isfinite(factor) and factor != 0.0):
        return hints
    if abs(factor + 1.0) < SIGN and evidence.matches(-g):
        hints.append(f"{name} looks like it has the wrong sign: backprop's gradient is minus the numerical "
                     "derivative; check the signs in backward (the derivative of -x, of 1 - x, of cos)")
    elif abs(factor + 1.0) >= SIGN and evidence.matches(g / factor):
        hints.append(f"{name} looks scaled by about {_about(factor)}: backprop's gradient is {_about(factor)} times "
                     "the numerical derivative everywhere; check backward for a constant factor (a 2 from a square, "
                     "a 1/n from a mean, a missing or extra * gy)")
    return hints


def _transposes(g: Any) -> list[Any]:
    """The transposes of ``g`` that have its shape and differ from it (all axes reversed, the last two swapped)."""
    xp = backend.get_array_module(g)
    candidates = [g.T] + ([xp.swapaxes(g, -1, -2)] if g.ndim > 2 else [])
    return [t for t in candidates if g.ndim >= 2 and t.shape == g.shape and not bool(xp.array_equal(t, g))]


def _about(factor: float) -> str:
    """``factor`` with enough decimals that its distance from 1 shows two digits: 2.0, 0.50, 1.0010.

    Example:
        >>> _about(1.9999999), _about(0.5), _about(1.001), _about(-3.0)
        ('2.0', '0.50', '1.0010', '-3.0')
    """
    distance = abs(float(f"{factor - 1.0:.2g}"))  # rounded first, so 1.9999999 reads 2.0, not 2.00
    decimals = max(1, min(6, 1 - math.floor(math.log10(distance)))) if distance else 1
    return f"{factor:.{decimals}f}"


def _missing_hint(names: list[str], no_graph: bool, where: str) -> str:
    """Backprop gave no (or an all-zero) gradient where the numerical derivative is not zero."""
    listed = ", ".join(names)
    if where == "check_double_backward":
        cause = ("looks like backward computed the first-order gradient from raw arrays (.array, NumPy functions), "
                 "which records no graph to differentiate; check that backward uses minigrad functions (F.*, "
                 "Variable operators) on the Variables it gets (grad_outputs, get_retained_inputs())")
    else:
        cause = ("looks like func's outputs are not connected to it in the graph (a forward on raw arrays: .array, "
                 "NumPy functions), or backward returned None or zeros for it; check that func applies minigrad "
                 "functions to its inputs and that backward returns a gradient for each input")
    graph = " and no graph was recorded" if no_graph else ""
    return f"backprop gave no gradient (or zero) for {listed}{graph} while the numerical one is not zero: {cause}"


def precision_hints(results: Sequence[TargetResult], reference: str = "float64") -> list[str]:
    """A gradient right in the ``reference`` dtype (its directional check passed) and wrong in a lower precision."""
    right = {r.name for r in results if r.kind is Kind.DIRECTIONAL and r.margin < 1.0}
    return [f"{r.name} is right in {reference} but not in {r.dtype}: looks like a loss of precision in backward in "
            f"{r.dtype}; check for cancellation (a difference of nearly equal terms), overflow (exp of a large "
            f"value) or a long sum in {r.dtype}, and compute that part in a wider dtype or rearrange it"
            for r in results if r.kind is Kind.PRECISION and r.margin >= 1.0 and r.name in right]


def nondeterministic_backward_hint() -> str:
    """The hint that goes with a backward that gives different gradients at the same point.

    Example:
        >>> nondeterministic_backward_hint().startswith("hint: looks like backward draws random numbers")
        True
    """
    return ("hint: looks like backward draws random numbers or keeps state between calls (a counter, a cache "
            "written in place, a global it reads); check that it depends only on its inputs, the arrays it retained "
            "and grad_outputs")
