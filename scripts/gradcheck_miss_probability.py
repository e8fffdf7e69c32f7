"""How often does check_backward pass a gradient that is wrong by F times its tolerance?

Plants an error ``e`` of a chosen size in a backward pass and counts the checks
that pass, over many seeds (the target at F = 10: none in 10,000, the stated
bound being 1e-6). The size is measured against the automatic tolerance of a
float64 check, ``rtol * c * ||g||`` (``rtol = 1e-6``; ``c`` the direction scale,
``g`` the gradient): ``F = ||e|| / (rtol * ||g||)``. Four planted errors, on a
(3, 4) input with a random output gradient:

- ``leaky slope``: leaky ReLU whose negative slope is off (an error of one sign
  relative to the gradient, the issue's example), inputs away from the kink;
- ``leaky slope, near kink``: the same with two inputs 1e-6 from the kink (the
  step shrinks there);
- ``random-sign, smooth``: exp whose gradient is off by ``+-delta |g_i|``, the
  signs random (an error that can cancel along a direction);
- ``random-sign, near kink``: leaky ReLU whose negative-side gradient is off by
  ``+-delta |g_i|``, two inputs 1e-6 from the kink.

    python scripts/gradcheck_miss_probability.py                 # 10,000 checks per case at F = 10, 3, 1
    python scripts/gradcheck_miss_probability.py --checks 2000 --factors 10
    python scripts/gradcheck_miss_probability.py --directions 7 --only random-sign

Prints, per case and F, the passes, their fraction and the mean calls of func per check.
"""

from __future__ import annotations

import argparse
import time

import numpy

import minigrad as mg
from minigrad.testing import GradientCheckError, NondifferentiableError, check_backward

RTOL = 1e-6
SLOPE = 0.2


class Planted(mg.FunctionNode):
    """exp or leaky ReLU whose backward multiplies the right gradient by ``multiplier`` (elementwise)."""

    def __init__(self, op: str, multiplier: numpy.ndarray):
        self.op, self.multiplier = op, multiplier

    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        return (numpy.exp(x) if self.op == "exp" else numpy.where(x > 0, x, SLOPE * x)),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        a = x.array
        slope = numpy.exp(a) if self.op == "exp" else numpy.where(a > 0, 1.0, SLOPE)
        return grad_outputs[0] * mg.Variable(slope * self.multiplier, requires_grad=False),


def problem(case: str, factor: float, seed: int):
    """(func, x, gy) with an error of ``factor`` times the tolerance planted in the backward."""
    rng = numpy.random.default_rng([seed, 25])
    x = rng.uniform(-1, 1, (3, 4))
    if case != "random-sign, smooth":
        x[numpy.abs(x) < 0.05] = 0.5  # away from the kink ...
        where = rng.choice(x.size, size=5, replace=False)
        x.reshape(-1)[where[:3]] = -rng.uniform(0.1, 1.0, 3)  # (some negative elements carry the error)
        if "near kink" in case:  # ... except two elements, 1e-6 from it
            x.reshape(-1)[where[3:]] = 1e-6 * rng.choice((-1.0, 1.0), size=2)
    gy = rng.uniform(-1, 1, x.shape)
    op = "exp" if case == "random-sign, smooth" else "leaky"
    g = gy * (numpy.exp(x) if op == "exp" else numpy.where(x > 0, 1.0, SLOPE))
    if case.startswith("leaky slope"):
        pattern = numpy.where(x > 0, 0.0, 1.0)  # every negative element, the same relative error
    else:
        pattern = rng.choice((-1.0, 1.0), size=x.shape) * (1.0 if op == "exp" else (x <= 0))
    # ||e|| = ||pattern * g|| * delta = factor * rtol * ||g||
    delta = factor * RTOL * numpy.linalg.norm(g) / numpy.linalg.norm(pattern * g)
    multiplier = 1.0 + delta * pattern
    return (lambda v: Planted(op, multiplier).apply((v,))[0]), x, gy


CASES = ("leaky slope", "leaky slope, near kink", "random-sign, smooth", "random-sign, near kink")


def measure(case: str, factor: float, checks: int, directions: int | None) -> tuple[int, int, float]:
    passes, kinks, calls = 0, 0, 0
    for seed in range(checks):
        func, x, gy = problem(case, factor, seed)
        try:
            report = check_backward(func, x, gy, seed=seed, directions=directions)
            passes += 1
            calls += report.evaluations
        except GradientCheckError as error:
            calls += error.report.evaluations
        except NondifferentiableError:
            kinks += 1  # not passed: the check refuses to verify it
    return passes, kinks, calls / checks


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checks", type=int, default=10_000, help="checks per case and factor")
    parser.add_argument("--factors", default="10,3,1", help="comma-separated F")
    parser.add_argument("--directions", type=int, default=None, help="directions per band (default: automatic)")
    parser.add_argument("--only", default="", help="run the cases whose name contains this")
    args = parser.parse_args(argv)
    print(f"planted errors of F times the tolerance (rtol={RTOL:g}, float64), {args.checks} checks each")
    print(f"{'case':<26} {'F':>5} {'passed':>8} {'fraction':>10} {'refused':>8} {'calls/check':>12}")
    for factor in (float(f) for f in args.factors.split(",")):
        for case in (c for c in CASES if args.only in c):
            start = time.perf_counter()
            passes, kinks, calls = measure(case, factor, args.checks, args.directions)
            print(f"{case:<26} {factor:>5g} {passes:>8} {passes / args.checks:>10.2e} {kinks:>8} {calls:>12.1f}"
                  f"   ({time.perf_counter() - start:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
