"""Specs for ``minigrad.functions.noise``.

dropout is checked with a fixed mask (passed as ``mask=``), so that every
evaluation the gradient checker makes drops the same elements.
"""

from __future__ import annotations

import numpy

import minigrad.functions as F
from minigrad.configuration import using_config
from minigrad.testing import OpSpec, register
from minigrad.testing.op_specs.draw import uniform

_KEEP = numpy.random.default_rng(7).uniform(size=(3, 4)) >= 0.25
_MASK = _KEEP / 0.75  # ratio 0.25: kept elements are scaled by 1 / (1 - 0.25)


def _dropout_with_fixed_mask(x):
    return F.dropout(x, 0.25, mask=x.xp.asarray(_MASK.astype(x.dtype)))


def _dropout_in_test_mode(x):
    with using_config("train", False):
        return F.dropout(x, 0.5)


register(OpSpec("dropout", _dropout_with_fixed_mask, lambda rng, dt: (uniform(rng, (3, 4), dt),),
                lambda a: numpy.where(_KEEP, a / 0.75, 0.0)))
register(OpSpec("dropout[test mode]", _dropout_in_test_mode, lambda rng, dt: (uniform(rng, (3, 4), dt),),
                lambda a: a, covers=("dropout",)))


# gaussian with a fixed eps: mean + exp(ln_var / 2) * eps, the reference in float64
_EPS = numpy.random.default_rng(8).standard_normal((3, 4))


def _gaussian_with_fixed_eps(mean, ln_var):
    return F.gaussian(mean, ln_var, eps=mean.xp.asarray(_EPS.astype(mean.dtype)))


register(OpSpec("gaussian", _gaussian_with_fixed_eps,
                lambda rng, dt: (uniform(rng, (3, 4), dt), uniform(rng, (3, 4), dt, -1.0, 1.0)),
                lambda m, v: m + numpy.exp(v / 2) * _EPS.astype(numpy.float64)))
