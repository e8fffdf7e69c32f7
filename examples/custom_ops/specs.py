"""The specs of this library's ops: ``python -m minigrad check --specs`` and ``op_tests`` read them."""

from __future__ import annotations

import math

import numpy

from minigrad.testing import OpSpec, register
from minigrad.testing.op_specs.draw import away_from, uniform

from .ops import sincos, softsign


def _softsign_reference(x):
    # elementwise from the definition, sharing no code with the op
    return numpy.vectorize(lambda v: v / (1 + abs(v)), otypes=[numpy.float64])(x)


register(OpSpec(
    "softsign", softsign,
    # |x| has a kink at 0; softsign's second derivative jumps there, so keep the inputs clear of it
    inputs=lambda rng, dtype: (away_from(rng, (3, 4), dtype, (0.0,), low=-2.0, high=2.0),),
    reference=_softsign_reference,
    kinks="second derivative at 0",
))

register(OpSpec(
    "sincos", sincos,
    inputs=lambda rng, dtype: (uniform(rng, (2, 3), dtype, -3.0, 3.0),),
    reference=lambda x: (numpy.vectorize(math.sin)(x), numpy.vectorize(math.cos)(x)),
))
