"""Specs for ``minigrad.functions.array``."""

from __future__ import annotations

import numpy

import minigrad.functions as F
from minigrad.testing.op_specs import OpSpec, register
from minigrad.testing.op_specs.draw import uniform

register(OpSpec("identity", lambda x, y: F.identity(x, y),
                lambda rng, dt: (uniform(rng, (2, 3), dt), uniform(rng, (3,), dt)),
                lambda a, b: (a, b)))
register(OpSpec("reshape", lambda x: F.reshape(x, (3, -1)), lambda rng, dt: (uniform(rng, (2, 3, 2), dt),),
                lambda a: a.reshape(3, 4)))
register(OpSpec("transpose", lambda x: F.transpose(x, (2, 0, 1)), lambda rng, dt: (uniform(rng, (2, 3, 4), dt),),
                lambda a: numpy.transpose(a, (2, 0, 1))))
register(OpSpec("broadcast_to", lambda x: F.broadcast_to(x, (2, 3, 4)), lambda rng, dt: (uniform(rng, (3, 1), dt),),
                lambda a: numpy.broadcast_to(a, (2, 3, 4))))
register(OpSpec("cast", lambda x: F.cast(x, numpy.float64), lambda rng, dt: (uniform(rng, (2, 3), dt),),
                lambda a: a, dtypes=("float16", "float32"), preserves_dtype=False))
register(OpSpec("get_item", lambda x: F.get_item(x, (slice(None), numpy.array([2, 0, 2]))),
                lambda rng, dt: (uniform(rng, (2, 3), dt),), lambda a: a[:, [2, 0, 2]]))
register(OpSpec("get_item[basic]", lambda x: x[1:, None, ..., ::2], lambda rng, dt: (uniform(rng, (3, 4), dt),),
                lambda a: a[1:, None, ..., ::2], covers=("get_item",)))
register(OpSpec("get_item[bool]", lambda x: x[numpy.array([True, False, True])],
                lambda rng, dt: (uniform(rng, (3, 2), dt),), lambda a: a[[0, 2]], covers=("get_item",)))
