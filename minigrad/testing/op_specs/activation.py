"""Specs for ``minigrad.functions.activation``.

References are written elementwise from the textbook definitions (``math.erf``
for gelu, ``math.exp`` for the rest) so that they share no code with the ops.
"""

from __future__ import annotations

import itertools
import math

import numpy

import minigrad.functions as F
from minigrad.configuration import using_config
from minigrad.testing import OpSpec, register
from minigrad.testing.op_specs.draw import away_from, distinct, uniform


def _elementwise(function):
    """A reference that applies a scalar Python function to every element."""
    return lambda a: numpy.vectorize(function, otypes=[numpy.float64])(a)


def _one(draw):
    return lambda rng, dt: (draw(rng, dt),)


def _sigmoid(v: float) -> float:
    return 1 / (1 + math.exp(-v))


# --- piecewise linear: inputs keep 0.1 clear of every kink ---
register(OpSpec("relu", F.relu, _one(lambda rng, dt: away_from(rng, (3, 4), dt, (0.0,))),
                _elementwise(lambda v: v if v > 0 else 0.0), kinks="x = 0", kind="elementwise"))
register(OpSpec("leaky_relu", F.leaky_relu, _one(lambda rng, dt: away_from(rng, (3, 4), dt, (0.0,))),
                _elementwise(lambda v: v if v >= 0 else 0.2 * v), kinks="x = 0", kind="elementwise"))
register(OpSpec("leaky_relu[slope=-0.5]", lambda x: F.leaky_relu(x, slope=-0.5),
                _one(lambda rng, dt: away_from(rng, (3, 4), dt, (0.0,))),
                _elementwise(lambda v: v if v >= 0 else -0.5 * v), kinks="x = 0", covers=("leaky_relu",)))
# rrelu with fixed slopes (training) and with the mean slope (test mode)
_RRELU_R = numpy.random.default_rng(9).uniform(1 / 8, 1 / 3, (3, 4))


def _rrelu_with_fixed_slopes(x):
    return F.rrelu(x, r=x.xp.asarray(_RRELU_R.astype(x.dtype)))


def _rrelu_in_test_mode(x):
    with using_config("train", False):
        return F.rrelu(x, l=0.1, u=0.3)


register(OpSpec("rrelu", _rrelu_with_fixed_slopes, _one(lambda rng, dt: away_from(rng, (3, 4), dt, (0.0,))),
                lambda a: numpy.where(a >= 0, a, _RRELU_R * a), kinks="x = 0"))
register(OpSpec("rrelu[test mode]", _rrelu_in_test_mode, _one(lambda rng, dt: away_from(rng, (3, 4), dt, (0.0,))),
                _elementwise(lambda v: v if v >= 0 else 0.2 * v), kinks="x = 0", covers=("rrelu",)))
register(OpSpec("clipped_relu", lambda x: F.clipped_relu(x, z=0.5),
                _one(lambda rng, dt: away_from(rng, (3, 4), dt, (0.0, 0.5))),
                _elementwise(lambda v: min(max(v, 0.0), 0.5)), kinks="x = 0 and x = z", kind="elementwise"))
register(OpSpec("clipped_relu[default z]", F.clipped_relu,
                _one(lambda rng, dt: away_from(rng, (3, 4), dt, (0.0, 20.0), margin=0.5, low=-5, high=25)),
                _elementwise(lambda v: min(max(v, 0.0), 20.0)), kinks="x = 0 and x = 20",
                covers=("clipped_relu",)))
register(OpSpec("relu6", F.relu6, _one(lambda rng, dt: away_from(rng, (3, 4), dt, (0.0, 6.0), margin=0.2,
                                                                 low=-2, high=8)),
                _elementwise(lambda v: min(max(v, 0.0), 6.0)), kinks="x = 0 and x = 6", kind="elementwise"))
register(OpSpec("hard_sigmoid", F.hard_sigmoid,
                _one(lambda rng, dt: away_from(rng, (3, 4), dt, (-2.5, 2.5), margin=0.2, low=-3.5, high=3.5)),
                _elementwise(lambda v: min(max(0.2 * v + 0.5, 0.0), 1.0)), kinks="x = -2.5 and x = 2.5",
                kind="elementwise"))

# --- exponential linear units: the derivative jumps (selu) or the second derivative does (elu) at 0 ---
register(OpSpec("elu", F.elu, _one(lambda rng, dt: away_from(rng, (3, 4), dt, (0.0,), low=-2, high=2)),
                _elementwise(lambda v: v if v > 0 else math.exp(v) - 1), kinks="x = 0 (second order)",
                kind="elementwise"))
register(OpSpec("elu[alpha=0.5]", lambda x: F.elu(x, alpha=0.5),
                _one(lambda rng, dt: away_from(rng, (3, 4), dt, (0.0,), low=-2, high=2)),
                _elementwise(lambda v: v if v > 0 else 0.5 * (math.exp(v) - 1)), kinks="x = 0", covers=("elu",)))
_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
register(OpSpec("selu", F.selu, _one(lambda rng, dt: away_from(rng, (3, 4), dt, (0.0,), low=-2, high=2)),
                _elementwise(lambda v: _SELU_SCALE * (v if v > 0 else _SELU_ALPHA * (math.exp(v) - 1))),
                kinks="x = 0", kind="elementwise"))

# --- smooth units ---
register(OpSpec("gelu", F.gelu, _one(lambda rng, dt: uniform(rng, (3, 4), dt, -4, 4)),
                _elementwise(lambda v: 0.5 * v * (1 + math.erf(v / math.sqrt(2)))), kind="elementwise"))
register(OpSpec("sigmoid", F.sigmoid, _one(lambda rng, dt: uniform(rng, (3, 4), dt, -4, 4)),
                _elementwise(_sigmoid), kind="elementwise"))
register(OpSpec("tanh", F.tanh, _one(lambda rng, dt: uniform(rng, (3, 4), dt, -2, 2)), _elementwise(math.tanh),
                kind="elementwise"))
register(OpSpec("softplus", F.softplus, _one(lambda rng, dt: uniform(rng, (3, 4), dt, -4, 4)),
                _elementwise(lambda v: math.log(1 + math.exp(v))), kind="elementwise"))
register(OpSpec("softplus[beta=2]", lambda x: F.softplus(x, beta=2.0),
                _one(lambda rng, dt: uniform(rng, (3, 4), dt, -4, 4)),
                _elementwise(lambda v: math.log(1 + math.exp(2 * v)) / 2), covers=("softplus",)))
register(OpSpec("swish", F.swish,
                lambda rng, dt: (uniform(rng, (2, 3, 2), dt, -3, 3), uniform(rng, (3,), dt, 0.5, 2)),
                lambda a, b: numpy.array([[[a[n, c, k] * _sigmoid(b[c] * a[n, c, k]) for k in range(2)]
                                           for c in range(3)] for n in range(2)])))


# --- softmax family: references loop over the rows of the normalized axis ---
def _softmax_reference(log: bool, axis: int):
    def reference(a):
        moved = numpy.moveaxis(a, axis, -1)
        out = numpy.empty_like(moved)
        for index in numpy.ndindex(moved.shape[:-1]):
            row = moved[index]
            total = math.fsum(math.exp(v) for v in row)
            out[index] = [v - math.log(total) if log else math.exp(v) / total for v in row]
        return numpy.moveaxis(out, -1, axis)
    return reference


register(OpSpec("softmax", F.softmax, _one(lambda rng, dt: uniform(rng, (3, 4), dt, -2, 2)),
                _softmax_reference(False, 1), variants={"empty axis": _one(lambda rng, dt: uniform(rng, (3, 0), dt)),
                                                        "empty batch": _one(lambda rng, dt: uniform(rng, (0, 3), dt))}))
register(OpSpec("softmax[axis=-1,3d]", lambda x: F.softmax(x, axis=-1),
                _one(lambda rng, dt: uniform(rng, (2, 2, 3), dt, -2, 2)), _softmax_reference(False, -1),
                covers=("softmax",)))
register(OpSpec("log_softmax", F.log_softmax, _one(lambda rng, dt: uniform(rng, (3, 4), dt, -2, 2)),
                _softmax_reference(True, 1), variants={"empty axis": _one(lambda rng, dt: uniform(rng, (3, 0), dt))}))
register(OpSpec("log_softmax[axis=0,3d]", lambda x: F.log_softmax(x, axis=0),
                _one(lambda rng, dt: uniform(rng, (3, 2, 2), dt, -2, 2)), _softmax_reference(True, 0),
                covers=("log_softmax",)))


# --- prelu, crelu, maxout (composed ops): inputs clear of 0, maxout's groups without ties ---
register(OpSpec("prelu", F.prelu,
                lambda rng, dt: (away_from(rng, (2, 3, 2), dt, (0.0,)), uniform(rng, (3,), dt, 0.1, 0.9)),
                lambda x, w: numpy.where(x >= 0, x, x * w[None, :, None]), kinks="x = 0"))
register(OpSpec("prelu[2-d W]", F.prelu,
                lambda rng, dt: (away_from(rng, (2, 3, 2), dt, (0.0,)), uniform(rng, (3, 2), dt, -0.5, 0.5)),
                lambda x, w: numpy.where(x >= 0, x, x * w[None]), kinks="x = 0", covers=("prelu",)))
register(OpSpec("crelu", F.crelu, _one(lambda rng, dt: away_from(rng, (2, 3), dt, (0.0,))),
                lambda a: numpy.concatenate([numpy.maximum(a, 0), numpy.maximum(-a, 0)], axis=1), kinks="x = 0"))
register(OpSpec("crelu[axis=0]", lambda x: F.crelu(x, axis=0), _one(lambda rng, dt: away_from(rng, (2, 3), dt, (0.0,))),
                lambda a: numpy.concatenate([numpy.maximum(a, 0), numpy.maximum(-a, 0)], axis=0), kinks="x = 0",
                covers=("crelu",)))


def _maxout_reference(pool_size, axis):
    def reference(a):
        moved = numpy.moveaxis(a, axis, -1)
        groups = [moved[..., i:i + pool_size].max(axis=-1) for i in range(0, moved.shape[-1], pool_size)]
        return numpy.moveaxis(numpy.stack(groups, axis=-1), -1, axis)
    return reference


register(OpSpec("maxout", lambda x: F.maxout(x, 3), lambda rng, dt: (distinct(rng, (2, 6, 2), dt),),
                _maxout_reference(3, 1), kinks="ties within a group"))
register(OpSpec("maxout[axis=-1]", lambda x: F.maxout(x, 2, axis=-1), lambda rng, dt: (distinct(rng, (3, 4), dt),),
                _maxout_reference(2, 1), kinks="ties within a group", covers=("maxout",)))


# --- lstm: the reference runs the cell unit by unit with math's functions ---
def _lstm_reference(c_prev, x):
    batch, units = x.shape[0], x.shape[1] // 4
    c, h = c_prev.astype(numpy.float64).copy(), numpy.zeros((batch, units))
    for n, u in itertools.product(range(batch), range(units)):
        a, i, f, o = x[n, 4 * u:4 * u + 4]
        c[n, u] = math.tanh(a) * _sigmoid(i) + _sigmoid(f) * c_prev[n, u]
        h[n, u] = _sigmoid(o) * math.tanh(c[n, u])
    return c, h


register(OpSpec("lstm", F.lstm, lambda rng, dt: (uniform(rng, (3, 2), dt), uniform(rng, (3, 8), dt, -2, 2)),
                _lstm_reference))
register(OpSpec("lstm[shrinking batch]", F.lstm,
                lambda rng, dt: (uniform(rng, (4, 2), dt), uniform(rng, (2, 8), dt, -2, 2)), _lstm_reference,
                covers=("lstm",)))


# --- slstm and tree_lstm: the gates read by index (interleaved for slstm, in blocks for tree_lstm) ---
def _logistic(v):
    return 1.0 / (1.0 + numpy.exp(-v))


def _slstm_reference(c1, c2, x1, x2):
    units = c1.shape[1]

    def gate(x, k):  # unit u's k-th gate is channel 4u + k
        return x[:, [4 * u + k for u in range(units)]]

    c = (numpy.tanh(gate(x1, 0)) * _logistic(gate(x1, 1)) + numpy.tanh(gate(x2, 0)) * _logistic(gate(x2, 1))
         + _logistic(gate(x1, 2)) * c1 + _logistic(gate(x2, 2)) * c2)
    return c, _logistic(gate(x1, 3) + gate(x2, 3)) * numpy.tanh(c)


def _tree_lstm_reference(*arrays):
    cells, x = arrays[:-1], arrays[-1]
    units = cells[0].shape[1]

    def block(k):  # block k is channels k * units ... (k + 1) * units - 1
        return x[:, k * units:(k + 1) * units]

    c = numpy.tanh(block(0)) * _logistic(block(1))
    for k, cell in enumerate(cells):
        c = c + _logistic(block(3 + k)) * cell
    return c, _logistic(block(2)) * numpy.tanh(c)


register(OpSpec("slstm", F.slstm, lambda rng, dt: (uniform(rng, (2, 3), dt), uniform(rng, (2, 3), dt),
                                                  uniform(rng, (2, 12), dt), uniform(rng, (2, 12), dt)),
                _slstm_reference))
register(OpSpec("slstm[3d]", F.slstm, lambda rng, dt: (uniform(rng, (2, 1, 2), dt), uniform(rng, (2, 1, 2), dt),
                                                      uniform(rng, (2, 4, 2), dt), uniform(rng, (2, 4, 2), dt)),
                _slstm_reference, covers=("slstm",)))
register(OpSpec("tree_lstm", F.tree_lstm, lambda rng, dt: (uniform(rng, (2, 3), dt), uniform(rng, (2, 3), dt),
                                                          uniform(rng, (2, 15), dt)), _tree_lstm_reference))
register(OpSpec("tree_lstm[one child,3d]", F.tree_lstm,
                lambda rng, dt: (uniform(rng, (3, 2, 2), dt), uniform(rng, (3, 8, 2), dt)),
                _tree_lstm_reference, covers=("tree_lstm",)))
register(OpSpec("tree_lstm[three children]", F.tree_lstm,
                lambda rng, dt: tuple(uniform(rng, (1, 2), dt) for _ in range(3)) + (uniform(rng, (1, 12), dt),),
                _tree_lstm_reference, covers=("tree_lstm",)))
