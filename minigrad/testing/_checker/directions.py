"""Step 4 of a check: the directions each target and band is probed along.

Every element of the band takes part, with a weight in [0.5, 1] (drawn from
the seed) times the input's scale, so no element hides behind a tiny weight.
The first direction is *aligned*: its signs are those of the reference
gradient, so that every term of the directional derivative is positive and an
error of one sign relative to the gradient (a scaled gradient, a wrong slope
on a region, a forgotten factor) adds up instead of cancelling: it is caught
whenever it exceeds the tolerance, with certainty. The others have random
signs: an error of any shape shows along them except with a small probability
(the sensitivity statement, ``sensitivity.py``, says how small).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy

from minigrad import backend
from minigrad.testing._checker.arrays import eps_of, f64
from minigrad.testing._checker.targets import Band, Target

# directions per band when ``directions`` is None: one aligned and one random for bands up to
# SMALL_BAND elements, the aligned one alone above (cost: 4 calls of func per direction)
DEFAULT_DIRECTIONS = 2
SMALL_BAND = 1024


@dataclass
class Direction:
    """One direction ``v`` for one band of a target (zero outside the band)."""

    vector: Any  # float64, the target's shape, on its device
    aligned: bool
    band: Band
    norm: float  # ||v||


def direction_count(requested: int | None, band: Band) -> int:
    if requested is not None:
        return requested
    return DEFAULT_DIRECTIONS if band.size <= SMALL_BAND else 1


def draw_direction(rng: numpy.random.Generator, target: Target, band: Band, aligned: bool) -> Direction:
    """A direction over ``band``: signs (the gradient's, or random), weights in [0.5, 1], times the scale."""
    xp = backend.get_array_module(target.base)
    shape = target.base.shape
    w = rng.random(size=target.base.size if band.flat is None else band.size)
    if aligned:
        w *= 0.5
        w += 0.5
        w = _with_gradient_signs(xp.asarray(w), target, band, rng)
    else:
        w -= 0.5
        numpy.copysign(numpy.abs(w) + 0.5, w, out=w)  # sign and a weight in [0.5, 1] from one draw
        w = xp.asarray(w)
    w *= target.scale
    if band.flat is None:
        v = w.reshape(shape)
    else:
        v = xp.zeros(target.base.size, dtype=numpy.float64)
        v[band.flat] = w
        v = v.reshape(shape)
    flat = w.ravel()
    norm = math.sqrt(float(xp.vdot(flat, flat)))
    return Direction(v, aligned, band, norm)


def _with_gradient_signs(w: Any, target: Target, band: Band, rng: numpy.random.Generator) -> Any:
    """``w`` (positive) with the signs of the reference gradient over the band (a random sign where it is
    zero), in place."""
    xp = backend.get_array_module(w)
    ref = xp.zeros(target.base.shape) if target.ref is None else f64(target.ref)
    values = ref.ravel() if band.flat is None else ref.ravel()[band.flat]
    xp.copysign(w, values, out=w)
    zero = values == 0
    if bool(zero.any()):
        coin = xp.asarray(rng.choice((-1.0, 1.0), size=int(zero.sum())))
        w[zero] = abs(w[zero]) * coin
    return w


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
