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


# gumbel_softmax with fixed noise: softmax((log_pi + g) / tau) along axis, the reference in float64
_G = numpy.random.default_rng(10).gumbel(size=(3, 4))


def _softmax(a, axis):
    e = numpy.exp(a - a.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _gumbel_softmax_spec(name, axis, tau):
    def func(log_pi, *taus):
        return F.gumbel_softmax(log_pi, taus[0] if taus else tau, axis=axis, g=log_pi.xp.asarray(_G))

    def inputs(rng, dt):
        log_pi = (uniform(rng, (3, 4), dt, -1.0, 1.0),)
        return log_pi + ((uniform(rng, (3, 1), dt, 0.5, 1.5),) if tau is None else ())

    def reference(log_pi, *taus):
        return _softmax((log_pi + _G) / (taus[0] if taus else tau), axis)

    register(OpSpec(name, func, inputs, reference, covers=("gumbel_softmax",)))


_gumbel_softmax_spec("gumbel_softmax", 1, 0.5)
_gumbel_softmax_spec("gumbel_softmax[axis=0,tau=2]", 0, 2.0)
_gumbel_softmax_spec("gumbel_softmax[tau a Variable]", 1, None)  # (3, 1) temperatures, one per row


# zoneout with a fixed mask: x where the mask is 1, h elsewhere
_ZONEOUT_MASK = numpy.random.default_rng(11).uniform(size=(3, 4)) >= 0.5


register(OpSpec("zoneout", lambda h, x: F.zoneout(h, x, mask=x.xp.asarray(_ZONEOUT_MASK)),
                lambda rng, dt: (uniform(rng, (3, 4), dt), uniform(rng, (3, 4), dt)),
                lambda h, x: numpy.where(_ZONEOUT_MASK, x, h)))


# simplified_dropconnect with fixed masks: per sample (n, M, N) or one for the batch (M, N)
_DROPCONNECT_MASK = numpy.random.default_rng(12).uniform(size=(2, 3, 4)) >= 0.25


def _dropconnect_spec(name, batchwise, bias):
    mask = _DROPCONNECT_MASK if batchwise else _DROPCONNECT_MASK[0]

    def func(x, W, *b):
        return F.simplified_dropconnect(x, W, *b, ratio=0.25, mask=x.xp.asarray(mask), use_batchwise_mask=batchwise)

    def inputs(rng, dt):
        arrays = (uniform(rng, (2, 2, 2), dt), uniform(rng, (3, 4), dt))  # x's (2, 2) features flatten to 4
        return arrays + ((uniform(rng, (3,), dt),) if bias else ())

    def reference(x, W, *b):
        x = x.reshape(2, 4)
        weights = W * numpy.broadcast_to(mask, (2, 3, 4)) / 0.75  # one mask per sample, or the same one
        y = numpy.array([[sum(weights[i, m, k] * x[i, k] for k in range(4)) for m in range(3)] for i in range(2)])
        return y + b[0] if b else y

    register(OpSpec(name, func, inputs, reference, covers=("simplified_dropconnect",)))


_dropconnect_spec("simplified_dropconnect", batchwise=True, bias=True)
_dropconnect_spec("simplified_dropconnect[one mask,nobias]", batchwise=False, bias=False)
