"""What a gradient check returns or raises, and how a failure reads."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import numpy


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
        index (1,): backprop 2, numerical 1, ratio 2 (error 1, tolerance 1e-06)
    """

    index: tuple[int, ...]
    backprop: float
    numerical: float  # the numerical derivative, or the reference gradient for the precision check
    error: float
    tolerance: float
    labels: tuple[str, str] = ("backprop", "numerical")

    @property
    def ratio(self) -> float:
        """``backprop / numerical`` (NaN where the numerical value is 0): a constant ratio is a scaled gradient."""
        return self.backprop / self.numerical + 0.0 if self.numerical else math.nan  # + 0.0: no "-0"

    def __str__(self) -> str:
        ratio = f", ratio {self.ratio:.3g}" if math.isfinite(self.ratio) else ""
        return (f"index {self.index}: {self.labels[0]} {self.backprop:.9g}, {self.labels[1]} {self.numerical:.9g}"
                f"{ratio} (error {self.error:.3g}, tolerance {self.tolerance:.3g})")


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
        hints: on failure, what the mistake looks like and what to check (``_checker.hints``);
            the failure message shows them right after its first line.
        sensitivity: per input/parameter, what the check would have caught (a ``Sensitivity``);
            ``str(report)`` states it.

    ``repr`` is one line (verdict, margin, evaluations, seed); ``str`` one line per comparison, then the
    sensitivity statement.

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
    hints: list[str] = field(default_factory=list)  # what a failure looks like (``_checker.hints``)
    sensitivity: list[Any] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """Whether every comparison was within its tolerance."""
        return self.margin < 1.0

    def __repr__(self) -> str:
        return report_repr(self)

    def __str__(self) -> str:
        return report_text(self)


# --- how a report reads at a REPL: one line for repr, a few for str ----------------------------

def report_repr(report: GradientCheckReport) -> str:
    """One line: the verdict, the margin, the cost, the seed; every figure stays an attribute.

    Example:
        >>> from minigrad.testing import GradientCheckReport
        >>> GradientCheckReport(0.0123, 6, 0, "float64", 1.0, 1.0, 1e-6, 1e-9)
        GradientCheckReport(passed=True, margin=0.0123, evaluations=6, seed=0)
    """
    return (f"GradientCheckReport(passed={report.passed}, margin={report.margin:.3g}, "
            f"evaluations={report.evaluations}, seed={report.seed})")


def report_text(report: GradientCheckReport) -> str:
    """The verdict and one line per comparison made, for ``print(report)``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.testing import check_backward
        >>> print(check_backward(F.exp, np.array([0.5, 1.0]), np.ones(2), seed=0))  # doctest: +ELLIPSIS
        gradient check passed: margin ... (worst error / tolerance, < 1 passes); ... evaluations of func; seed=0
          x_data[0] (shape (2,), float64): backprop ... vs numerical ... along its own direction ...
          it would have caught, for each input:
            x_data[0]: an error above ... relative (... absolute) in any one element, or any error of norm above ...
    """
    verdict = "passed" if report.passed else "failed"
    lines = [f"gradient check {verdict}: margin {report.margin:.3g} (worst error / tolerance, < 1 passes); "
             f"{report.evaluations} evaluations of func; seed={report.seed}"]
    lines += [f"  hint: {hint}" for hint in report.hints]
    for r in report.targets:
        lines.append(f"  {target_line(r)}")
        lines.extend(f"    {e}" for e in worst_first(r.elements))
    if report.precision_margin is not None:
        coarser = any(numpy.finfo(r.dtype).eps < numpy.finfo(report.numerical_dtype).eps for r in report.targets
                      if r.dtype.startswith("float"))
        what = (f"elementwise agreement with the {report.numerical_dtype} reference" if coarser
                else "precision of the low-precision gradients")
        lines.append(f"  {what}: margin {report.precision_margin:.3g}")
    lines += sensitivity_lines(report)
    return "\n".join(lines)


def sensitivity_lines(report: GradientCheckReport) -> list[str]:
    """What the check would have caught, per input (``sensitivity.py`` derives the figures)."""
    if not report.sensitivity:
        return []
    from minigrad.testing._checker.sensitivity import describe

    head = "  it would have caught, for each input:" if report.passed else "  its sensitivity:"
    return [head] + [f"    {describe(s)}" for s in report.sensitivity]


def target_line(r: TargetResult) -> str:
    """One target's comparison: its name, shape and dtype, then what was compared and how it came out."""
    head = f"{r.name} (shape {r.shape}, {r.dtype})"
    if r.kind is not Kind.DIRECTIONAL or math.isnan(r.numerical):
        return f"{head}: {r.note or f'margin {r.margin:.3g}'}"
    extra = f"; {r.note}" if r.note else ""
    return (f"{head}: backprop {r.backprop:.10g} vs numerical {r.numerical:.10g} along its own direction "
            f"(error {abs(r.backprop - r.numerical):.3g}, tolerance {r.tolerance:.3g}){extra}")


def worst_first(elements: list[ElementDisagreement]) -> list[ElementDisagreement]:
    """The elements by absolute error, largest first (NaN counts as the largest)."""
    return sorted(elements, key=lambda e: -e.error if not math.isnan(e.error) else -math.inf)


def failure_message(where: str, report: GradientCheckReport, no_graph: bool, kinky: bool) -> str:
    """The text of a ``GradientCheckError``: the answer first (which targets, the hints), then the figures.

    ``no_graph`` is still accepted for callers; the hints say it (``_checker.hints``).
    """
    wrong = [r for r in report.targets if r.margin >= 1.0]
    names = ", ".join(dict.fromkeys(r.name for r in wrong)) or "the inputs together"
    seed = report.seed
    lines = [f"{where}: backprop disagrees with the numerical derivative for {names} (seed={seed})"]
    lines += [f"  hint: {hint}" for hint in report.hints]
    shown = [r for r in report.targets if r.kind is not Kind.DIRECTIONAL or r.margin >= 1.0 or r.elements]
    if report.directional_margin >= 1.0 and not any(r.kind is Kind.DIRECTIONAL for r in shown):
        lines.append(f"  directional derivative along a random direction ({report.numerical_dtype}): backprop "
                     f"{report.backprop:.10g}, numerical {report.numerical:.10g} (error "
                     f"{abs(report.backprop - report.numerical):.3g}, tolerance {report.tolerance:.3g})")
    for r in shown:
        lines.append(f"  {target_line(r)}; worst elements:")
        lines.extend(f"    {e}" for e in worst_first(r.elements))
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
