"""Specs for ``minigrad.functions.math``."""

from __future__ import annotations

import numpy

import minigrad.functions as F
from minigrad.testing.op_specs import OpSpec, register
from minigrad.testing.op_specs.draw import away_from, positive, uniform

# --- arithmetic (broadcasting variants exercise the shared broadcast helper) ---
register(OpSpec("add", F.add, lambda rng, dt: (uniform(rng, (3, 4), dt), uniform(rng, (4,), dt)),
                lambda a, b: a + b))
register(OpSpec("sub", F.sub, lambda rng, dt: (uniform(rng, (3, 1), dt), uniform(rng, (1, 4), dt)),
                lambda a, b: a - b))
register(OpSpec("mul", F.mul, lambda rng, dt: (uniform(rng, (2, 3), dt), uniform(rng, (2, 3), dt)),
                lambda a, b: a * b))
register(OpSpec("div", F.div, lambda rng, dt: (uniform(rng, (2, 3), dt), positive(rng, (3,), dt)),
                lambda a, b: a / b))
register(OpSpec("neg", F.neg, lambda rng, dt: (uniform(rng, (2, 3), dt),), lambda a: -a))
register(OpSpec("pow", F.pow, lambda rng, dt: (positive(rng, (2, 3), dt), uniform(rng, (2, 3), dt, 0.5, 2.0)),
                lambda a, b: a ** b))
register(OpSpec("pow[var**const]", lambda x: x ** 3.0, lambda rng, dt: (uniform(rng, (2, 3), dt),),
                lambda a: a ** 3.0, covers=("pow",)))
register(OpSpec("pow[const**var]", lambda x: 2.0 ** x, lambda rng, dt: (uniform(rng, (2, 3), dt),),
                lambda a: 2.0 ** a, covers=("pow",)))
register(OpSpec("absolute", F.absolute, lambda rng, dt: (away_from(rng, (2, 3), dt, (0.0,)),),
                numpy.abs, kinks="0"))

# --- products and reductions ---
register(OpSpec("matmul", F.matmul, lambda rng, dt: (uniform(rng, (2, 3, 4), dt), uniform(rng, (4, 2), dt)),
                numpy.matmul))
register(OpSpec("matmul[transa,transb]", lambda a, b: F.matmul(a, b, transa=True, transb=True),
                lambda rng, dt: (uniform(rng, (4, 3), dt), uniform(rng, (2, 4), dt)),
                lambda a, b: a.T @ b.T, covers=("matmul",)))
register(OpSpec("matmul[vector]", F.matmul, lambda rng, dt: (uniform(rng, (3,), dt), uniform(rng, (3, 2), dt)),
                numpy.matmul, covers=("matmul",)))
register(OpSpec("sum", lambda x: F.sum(x, axis=(0, 2), keepdims=True),
                lambda rng, dt: (uniform(rng, (2, 3, 4), dt),),
                lambda a: a.sum(axis=(0, 2), keepdims=True)))
register(OpSpec("sum[all]", F.sum, lambda rng, dt: (uniform(rng, (2, 3), dt),), lambda a: a.sum(), covers=("sum",)))
register(OpSpec("sum_to", lambda x: F.sum_to(x, (3, 1)), lambda rng, dt: (uniform(rng, (2, 3, 4), dt),),
                lambda a: a.sum(axis=(0, 2)).reshape(3, 1)))

# --- exponentials ---
register(OpSpec("exp", F.exp, lambda rng, dt: (uniform(rng, (2, 3), dt),), numpy.exp))
register(OpSpec("log", F.log, lambda rng, dt: (positive(rng, (2, 3), dt),), numpy.log))
