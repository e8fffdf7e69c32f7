"""batch_normalization / fixed_batch_normalization: running statistics, axes, bad inputs."""

from __future__ import annotations

import numpy
import pytest

import minigrad as mg
import minigrad.functions as F


def test_running_statistics_are_updated_in_place_like_chainer():
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((4, 3, 2, 2))
    running_mean, running_var = numpy.ones(3), numpy.ones(3)
    F.batch_normalization(x, numpy.ones(3), numpy.zeros(3), running_mean=running_mean,
                          running_var=running_var, decay=0.8)
    m = 4 * 2 * 2
    numpy.testing.assert_allclose(running_mean, 0.8 + 0.2 * x.mean(axis=(0, 2, 3)))
    numpy.testing.assert_allclose(running_var, 0.8 + 0.2 * x.var(axis=(0, 2, 3)) * m / (m - 1))


def test_output_is_normalized_per_channel_and_keeps_dtype():
    rng = numpy.random.default_rng(1)
    x = (rng.standard_normal((8, 2, 3)) * 5 + 3).astype(numpy.float32)
    y = F.batch_normalization(x, numpy.full(2, 2.0, numpy.float32), numpy.full(2, 1.0, numpy.float32))
    assert y.dtype == numpy.float32
    numpy.testing.assert_allclose(y.array.mean(axis=(0, 2)), [1.0, 1.0], atol=1e-5)
    numpy.testing.assert_allclose(y.array.std(axis=(0, 2)), [2.0, 2.0], rtol=1e-3)


def test_fixed_matches_batch_statistics_when_given_them():
    rng = numpy.random.default_rng(2)
    x, gamma, beta = rng.standard_normal((5, 3)), rng.uniform(0.5, 2, 3), rng.standard_normal(3)
    y = F.batch_normalization(x, gamma, beta)
    z = F.fixed_batch_normalization(x, gamma, beta, x.mean(axis=0), x.var(axis=0))
    numpy.testing.assert_allclose(y.array, z.array, rtol=1e-12)


def test_gradients_reach_every_input():
    x, gamma, beta = (mg.Variable(a) for a in (numpy.arange(6.0).reshape(3, 2) ** 2, numpy.ones(2), numpy.ones(2)))
    F.sum(F.batch_normalization(x, gamma, beta) * numpy.arange(6.0).reshape(3, 2)).backward()
    numpy.testing.assert_allclose(beta.grad, [6.0, 9.0])
    numpy.testing.assert_allclose(x.grad.sum(axis=0), [0.0, 0.0], atol=1e-12)  # shift invariance


@pytest.mark.parametrize("op", ["batch_normalization", "fixed_batch_normalization"])
def test_gamma_of_the_wrong_shape(op):
    x = numpy.zeros((4, 3, 2, 2))
    stats = (numpy.zeros(3), numpy.ones(3)) if op.startswith("fixed") else ()
    with pytest.raises(ValueError) as info:
        getattr(F, op)(x, numpy.ones(4), numpy.zeros(3), *stats)
    for word in (op, "gamma", "(3,)", "(4,)", "(4, 3, 2, 2)"):
        assert word in str(info.value)
    with pytest.raises(ValueError, match=f"{op}: beta must have shape"):
        getattr(F, op)(x, numpy.ones(3), numpy.zeros((3, 1)), *stats)


def test_bad_running_statistics_and_dtypes():
    x = numpy.zeros((4, 3))
    with pytest.raises(ValueError, match=r"batch_normalization: running_mean must have shape \(3,\)"):
        F.batch_normalization(x, numpy.ones(3), numpy.zeros(3), running_mean=numpy.zeros(4))
    with pytest.raises(TypeError, match="batch_normalization: running_var must be an array"):
        F.batch_normalization(x, numpy.ones(3), numpy.zeros(3), running_var=[0.0, 0.0, 0.0])
    with pytest.raises(TypeError, match="batch_normalization: beta has dtype float64, but gamma has dtype float32"):
        F.batch_normalization(x, numpy.ones(3, numpy.float32), numpy.zeros(3))
    with pytest.raises(TypeError, match="batch_normalization: x must have a floating-point dtype"):
        F.batch_normalization(numpy.zeros((4, 3), numpy.int32), numpy.ones(3), numpy.zeros(3))


def test_the_gradient_of_gbeta_alone_with_respect_to_gy_has_gy_shape():
    """d(gbeta)/d(gy) with no other second-order gradient: BatchNormalizationGrad's backward got ggbeta only and
    returned it in gamma's kept shape, (1, C, 1, 1), instead of gy's (a ValueError naming the node). Found by the
    checker backpropagating each output's part alone (issue 25). gbeta = sum of gy over the batch axes, so its
    gradient with respect to gy is 1 everywhere."""
    rng = numpy.random.default_rng(0)
    x = mg.Variable(rng.uniform(-1, 1, (3, 2, 2, 3)))
    gamma, beta = mg.Variable(rng.uniform(0.5, 1.5, 2)), mg.Variable(rng.uniform(-1, 1, 2))
    gy = mg.Variable(rng.uniform(-1, 1, (3, 2, 2, 3)))
    y = F.batch_normalization(x, gamma, beta)
    _, _, gbeta = mg.grad([y], [x, gamma, beta], [gy], enable_double_backprop=True)
    ggy, = mg.grad([gbeta], [gy], [mg.Variable(numpy.ones(2))])
    numpy.testing.assert_array_equal(ggy.array, numpy.ones((3, 2, 2, 3)))
