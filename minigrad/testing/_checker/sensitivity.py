"""What a passing check would have caught: the sensitivity statement, and how it is derived.

Let ``e`` be the error of backprop's gradient over one scale band of one
target, ``c`` the band's direction scale, ``a`` a probe's threshold
(tolerance plus the bound on the numerical derivative's own error): a probe
along ``v`` misses ``e`` only if ``|<e, v>| <= a``.

* **One element.** Every element's weight is at least ``0.5 c``, so an error
  in one element alone gives ``|<e, v>| >= 0.5 c |e_i|``: it is caught, with
  certainty, when ``|e_i| > 2 a / c``. Errors of one sign relative to the
  gradient over any set of elements add up along the aligned direction, so the
  same bound holds for their sum (``sum |e_i| > 2 a / c``).
* **Any error.** ``<e, v> = c sum e_i s_i w_i`` with independent weights of
  density at most ``M`` (``M = 1`` for a random sign times a weight uniform in
  [0.5, 1], ``M = 2`` for a weight alone, the aligned direction). By
  Rogozin's and Ball's theorems the density of such a sum is at most
  ``sqrt(2) M / (c ||e||)``, so ``P(|<e, v>| <= a) <= 2 sqrt(2) M a / (c ||e||)``.
  Directions are independent, so K probes all miss with probability at most
  the product, which is below ``MISS_PROBABILITY`` once ``c ||e||`` exceeds
  ``Y = (prod_k 2 sqrt(2) M_k a_k / MISS_PROBABILITY) ** (1 / K)``.

The statement of a target takes the weakest of its bands.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from minigrad.testing._checker.arguments import CheckArguments
from minigrad.testing._checker.probing import Probe, tolerance
from minigrad.testing._checker.targets import Band, Target

MISS_PROBABILITY = 1e-6
DENSITY_RANDOM = 1.0  # a random sign times a weight uniform in [0.5, 1]
DENSITY_ALIGNED = 2.0  # a weight uniform in [0.5, 1] alone


@dataclass
class Sensitivity:
    """What a passing check of one target would have caught.

    Attributes:
        name: the input or parameter.
        element: an error above this, relative to the largest gradient element of its scale band, in any
            one element (or summed over elements whose errors have one sign relative to the gradient) is
            caught with certainty.
        element_absolute: the same as an absolute error.
        norm: any error ``e`` of the gradient with ``||e||`` above this is caught with probability at
            least ``1 - miss_probability``.
        directional: the same bound in the units of the directional derivative (``c * ||e||``).
        directions: probes per scale band; bands: scale bands checked; exact: checked with the adjoint identity.
    """

    name: str
    element: float
    element_absolute: float
    norm: float
    directional: float
    directions: int
    bands: int
    exact: bool = False
    miss_probability: float = MISS_PROBABILITY


@dataclass
class BandProbes:
    """The probes of one scale band of one target."""

    band: Band
    probes: list[Probe]
    aligned_first: bool = True


def threshold(probe: Probe, args: CheckArguments) -> float:
    """The largest ``|<e, v>|`` this probe could miss: tolerance plus the numerical error bound."""
    return max(tolerance(line, probe.norm, args, probe.exact) + line.noise for line in probe.lines.values())


def band_bounds(band: BandProbes, scale: float, args: CheckArguments) -> tuple[float, float]:
    """(one-element absolute bound, directional bound Y) of one band."""
    thresholds = [threshold(p, args) for p in band.probes]
    element = 2.0 * min(thresholds) / scale
    logs = [math.log(2.0 * math.sqrt(2.0) * (DENSITY_ALIGNED if i == 0 and band.aligned_first else DENSITY_RANDOM)
                     * max(a, 1e-300)) for i, a in enumerate(thresholds)]
    directional = math.exp((sum(logs) - math.log(MISS_PROBABILITY)) / len(logs))
    return element, directional


def target_sensitivity(target: Target, bands: Sequence[BandProbes], args: CheckArguments) -> Sensitivity:
    """The statement for one target: the weakest of its bands."""
    relative, absolute, directional = 0.0, 0.0, 0.0
    largest = max((b.band.largest for b in bands), default=0.0)
    for band in bands:
        if not band.probes:
            continue
        element, y = band_bounds(band, target.scale, args)
        absolute, directional = max(absolute, element), max(directional, y)
        scale = band.band.largest if band.band.largest > 0 else largest  # a zero band: the target's largest
        relative = max(relative, element / scale if scale > 0 else math.inf)
    return Sensitivity(target.name, relative, absolute, directional / target.scale, directional,
                       max((len(b.probes) for b in bands), default=0), len(bands), target.linear)


def describe(s: Sensitivity) -> str:
    """One line of the statement, e.g. for ``str(report)``."""
    how = "adjoint identity, " if s.exact else ""
    relative = f"{s.element:.2g} relative ({s.element_absolute:.2g} absolute)" if math.isfinite(s.element) \
        else f"{s.element_absolute:.2g} absolute"
    return (f"{s.name}: an error above {relative} in any one element, "
            f"or any error of norm above {s.norm:.2g} (in the directional derivative: {s.directional:.2g}), "
            f"with probability at least 1 - {s.miss_probability:g} ({how}{s.directions} direction(s), "
            f"{s.bands} scale band(s))")
