"""What a gradient check returns or raises, and how a failure reads."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class NondifferentiableError(Exception):
    """``func`` is not differentiable at (or right next to) the point being checked.

    ``check_backward`` raises it wherever it cannot trust the finite
    difference (a kink, a jump or a NaN boundary that a smaller step does not
    clear), and, with ``detect_nondifferentiable``, wherever the function
    has a kink within the step at all; ``numerical_grad`` raises it with
    ``detect_nondifferentiable``. The message names the input and the element.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.testing import gradient_check
        >>> x = np.array([0.5, 0.0, -0.5])
        >>> try:
        ...     gradient_check.check_backward(F.absolute, x, np.ones(3), seed=0)
        ... except gradient_check.NondifferentiableError as e:
        ...     print(str(e).splitlines()[0])
        check_backward: func is not differentiable near x_data[0] element (1,) (value 0.0) (seed=0)
    """


class GradientCheckError(AssertionError):
    """Backprop disagrees with the numerical derivative; ``.report`` holds the figures.

    Example:
        >>> from minigrad.testing import GradientCheckError, GradientCheckReport
        >>> error = GradientCheckError("check_backward: ...", GradientCheckReport(2.0, 5, 0, "float64", 1, 2, 0.1, 0))
        >>> isinstance(error, AssertionError), error.report.passed
        (True, False)
    """

    def __init__(self, message: str, report: GradientCheckReport) -> None:
        super().__init__(message)
        self.report = report


class Kind(str, Enum):
    """What a ``TargetResult`` compares (its ``kind``)."""

    DIRECTIONAL = "directional"  # backprop vs numerical along the target's own direction
    PRECISION = "precision"  # a low-precision gradient vs the reference gradient, element by element
    LAYOUT = "layout"  # backprop on the arrays as given vs on C-contiguous copies, element by element
    FINITE = "finite"  # backprop gave NaN or inf


@dataclass
class ElementDisagreement:
    """One element where backprop and the numerical derivative (or the reference) disagree.

    Example:
        >>> print(ElementDisagreement((1,), 2.0, 1.0, 1.0, 1e-6))
        index (1,): backprop 2, numerical 1 (error 1, tolerance 1e-06)
    """

    index: tuple[int, ...]
    backprop: float
    numerical: float  # the numerical derivative, or the reference gradient for the precision check
    error: float
    tolerance: float
    labels: tuple[str, str] = ("backprop", "numerical")

    def __str__(self) -> str:
        return (f"index {self.index}: {self.labels[0]} {self.backprop:.9g}, {self.labels[1]} {self.numerical:.9g} "
                f"(error {self.error:.3g}, tolerance {self.tolerance:.3g})")


@dataclass
class TargetResult:
    """The comparison for one input or parameter; ``kind`` says which (a ``Kind``).

    Example:
        >>> TargetResult("x_data[0]", (3,), "float64").kind is Kind.DIRECTIONAL
        True
    """

    name: str
    shape: tuple[int, ...]
    dtype: str
    backprop: float = math.nan  # directional derivative along this target's direction
    numerical: float = math.nan
    tolerance: float = math.nan
    margin: float = 0.0
    elements: list[ElementDisagreement] = field(default_factory=list)
    note: str = ""
    kind: Kind = Kind.DIRECTIONAL
    step: float = math.nan  # the step the verdict was taken at (smaller than the first after refinement)


@dataclass
class GradientCheckReport:
    """What a check measured. ``margin`` < 1 means it passed.

    Attributes:
        margin: worst error / tolerance over every comparison made.
        evaluations: calls of ``func`` (forward passes), all of them.
        seed: the seed of the random directions (pass it back to reproduce).
        numerical_dtype: dtype of the numerical part and of the reference gradients.
        backprop: directional derivative from backprop (reference dtype), of the worst target.
        numerical: Richardson-extrapolated numerical directional derivative, of the worst target.
        tolerance: the tolerance ``|backprop - numerical|`` was held to.
        error_estimate: disagreement of the two central differences.
        precision_margin: worst elementwise error / bound of check 2 (None when not run).
        directional_margin: worst error / tolerance of check 1 over the targets.
        targets: one result per input/parameter (check 1), and the failures of check 2.
        sensitivity: per input/parameter, what the check would have caught (a ``Sensitivity``);
            ``str(report)`` states it.

    Example:
        >>> from minigrad.testing import GradientCheckReport
        >>> GradientCheckReport(0.5, 5, 0, "float64", 1.0, 1.0, 1e-6, 1e-9).passed
        True
    """

    margin: float
    evaluations: int
    seed: int
    numerical_dtype: str
    backprop: float
    numerical: float
    tolerance: float
    error_estimate: float
    precision_margin: float | None = None
    directional_margin: float = 0.0
    targets: list[TargetResult] = field(default_factory=list)
    sensitivity: list[Any] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """Whether every comparison was within its tolerance."""
        return self.margin < 1.0

    def __str__(self) -> str:
        return summary_text(self)


def summary_text(report: GradientCheckReport) -> str:
    """``str(report)``: the verdict, then what a pass would have caught (the sensitivity statement)."""
    from minigrad.testing._checker.sensitivity import describe

    verdict = "passed" if report.passed else "failed"
    lines = [f"gradient check {verdict}: margin {report.margin:.3g} (seed={report.seed}, {report.evaluations} "
             f"evaluations of func, numerical dtype {report.numerical_dtype})"]
    if report.sensitivity:
        lines.append("  it would have caught, for each input:" if report.passed else "  its sensitivity:")
        lines.extend(f"    {describe(s)}" for s in report.sensitivity)
    return "\n".join(lines)


def failure_message(where: str, report: GradientCheckReport, no_graph: bool, kinky: bool) -> str:
    """The text of a ``GradientCheckError``: the wrong targets first, then their worst elements."""
    wrong = [r for r in report.targets if r.margin >= 1.0]
    names = ", ".join(dict.fromkeys(r.name for r in wrong)) or "the inputs together"
    seed = report.seed
    lines = [f"{where}: backprop disagrees with the numerical derivative for {names} (seed={seed})"]
    if report.directional_margin >= 1.0:
        lines.append(f"  directional derivative along a random direction ({report.numerical_dtype}): backprop "
                     f"{report.backprop:.10g}, numerical {report.numerical:.10g} (error "
                     f"{abs(report.backprop - report.numerical):.3g}, tolerance {report.tolerance:.3g})")
    for r in report.targets:
        if r.kind is not Kind.DIRECTIONAL:
            lines.append(f"  {r.name} (shape {r.shape}, {r.dtype}): {r.note}; worst elements:")
        elif r.margin >= 1.0 or r.elements:
            extra = f"; {r.note}" if r.note else ""
            lines.append(f"  {r.name} (shape {r.shape}, {r.dtype}): backprop {r.backprop:.10g} vs numerical "
                         f"{r.numerical:.10g} along its own direction (error {abs(r.backprop - r.numerical):.3g}, "
                         f"tolerance {r.tolerance:.3g}){extra}; worst elements:")
        else:
            continue
        lines.extend(f"    {e}" for e in r.elements)
    if report.directional_margin >= 1.0 and no_graph:
        lines.append("  note: no output of func is connected to its inputs (no graph was recorded): was the "
                     "backward written on raw arrays instead of minigrad functions?")
    if kinky:
        lines.append("  note: func looks non-differentiable within the step; pass detect_nondifferentiable=True "
                     "to locate the kink")
    lines.append(f"  reproduce with seed={seed}; {report.evaluations} evaluations of func")
    return "\n".join(lines)


def kink_message(where: str, target: Any, flats: Sequence[int], step: float, seed: int) -> str:
    """The text of a ``NondifferentiableError``: the input and the elements next to the kink."""
    shape = target.base.shape
    indices = [tuple(int(i) for i in _unravel(f, shape)) for f in flats]
    values = [float(target.base[i]) for i in indices]
    first = f"element {indices[0]} (value {values[0]!r})" if len(indices) == 1 else \
        "elements " + ", ".join(f"{i} (value {v!r})" for i, v in zip(indices, values))
    return (f"{where}: func is not differentiable near {target.name} {first} (seed={seed})\n"
            f"  the numerical derivative changes abruptly within the step ({step:g} x the input's rms magnitude, "
            "and smaller steps did not help): move the input away from the kink, or check that the op is "
            "smooth there")


def _unravel(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    import numpy

    return tuple(numpy.unravel_index(flat, shape)) if shape else ()


# the public names live in minigrad.testing.gradient_check (and minigrad.testing): say so in tracebacks and reprs
for _public in (NondifferentiableError, GradientCheckError, GradientCheckReport):
    _public.__module__ = "minigrad.testing.gradient_check"
del _public
