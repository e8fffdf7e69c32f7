"""Specs for ``minigrad.functions.connection``.

The references are naive NumPy loops, independent of the im2col code the ops use.
"""

from __future__ import annotations

import numpy

import minigrad.functions as F
from minigrad.testing.op_specs import OpSpec, register
from minigrad.testing.op_specs.draw import uniform

# --- linear ---
register(OpSpec("linear", F.linear,
                lambda rng, dt: (uniform(rng, (3, 4), dt), uniform(rng, (2, 4), dt), uniform(rng, (2,), dt)),
                lambda x, W, b: numpy.einsum("ni,oi->no", x, W) + b))
register(OpSpec("linear[nobias]", F.linear,
                lambda rng, dt: (uniform(rng, (3, 4), dt), uniform(rng, (2, 4), dt)),
                lambda x, W: numpy.einsum("ni,oi->no", x, W), covers=("linear",)))
register(OpSpec("linear[n_batch_axes=2]", lambda x, W, b: F.linear(x, W, b, n_batch_axes=2),
                lambda rng, dt: (uniform(rng, (2, 3, 2, 2), dt), uniform(rng, (3, 4), dt), uniform(rng, (3,), dt)),
                lambda x, W, b: numpy.einsum("abi,oi->abo", x.reshape(2, 3, 4), W) + b, covers=("linear",)))
