"""Chainer functions that port code by name (flip, rollaxis, dstack, bias, scale, the VAE losses, prelu,
crelu, maxout, binary_accuracy, ...): cross-checks against other ops and their errors (the registry
battery checks their values and gradients)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F

X = np.arange(24.0).reshape(2, 3, 4) - 11.5  # no zeros: clear of every kink


def test_prelu_with_one_slope_everywhere_is_leaky_relu():
    np.testing.assert_array_equal(F.prelu(X, np.full(3, 0.25)).array, F.leaky_relu(X, slope=0.25).array)


def test_prelu_gives_w_the_sum_of_the_negative_inputs_per_channel():
    W = mg.Variable(np.full(3, 0.5))
    F.sum(F.prelu(X, W)).backward()
    np.testing.assert_array_equal(W.grad, np.minimum(X, 0).sum(axis=(0, 2)))


def test_maxout_is_the_max_over_groups_of_consecutive_channels():
    x = np.random.default_rng(0).permutation(24).astype(float).reshape(2, 6, 2)
    np.testing.assert_array_equal(F.maxout(x, 2).array, x.reshape(2, 3, 2, 2).max(axis=2))


def test_crelu_halves_are_relu_of_x_and_of_minus_x():
    y = F.crelu(X, axis=2).array
    np.testing.assert_array_equal(y[..., :4], np.maximum(X, 0))
    np.testing.assert_array_equal(y[..., 4:], np.maximum(-X, 0))


def test_bias_and_scale_match_explicit_broadcasting():
    y = np.arange(3.0) + 1
    np.testing.assert_array_equal(F.bias(X, y).array, X + y[:, None])
    np.testing.assert_array_equal(F.scale(X, y).array, X * y[:, None])


def test_binary_accuracy_ignores_minus_one_and_is_zero_when_all_are_ignored():
    y = np.array([[1.0, -1.0], [0.0, -0.5]])
    assert float(F.binary_accuracy(y, np.array([[1, 0], [0, -1]])).array) == pytest.approx(2 / 3)
    assert float(F.binary_accuracy(y, np.full((2, 2), -1)).array) == 0.0
    assert not F.binary_accuracy(y, np.ones((2, 2), np.int32)).requires_grad


def test_local_response_normalization_with_n_1_is_elementwise():
    np.testing.assert_allclose(F.local_response_normalization(X, n=1, k=1.0, alpha=0.5, beta=0.5).array,
                               X / np.sqrt(1.0 + 0.5 * X * X), rtol=1e-12)


@pytest.mark.parametrize("kwargs", [{"cover_all": False}, {"stride": 1, "pad": 1}, {"stride": 2, "pad": 1}])
def test_unpooling_2d_is_the_adjoint_of_summing_each_window(kwargs):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 3, 4))
    y = F.unpooling_2d(x, 3, **kwargs).array
    g = rng.standard_normal(y.shape)
    window_sums = F.average_pooling_2d(g, 3, stride=kwargs.get("stride"), pad=kwargs.get("pad", 0)).array * 9
    if window_sums.shape != x.shape:  # cover_all: pooling the output must give x's size (a last, partial window)
        window_sums = F.im2col(g, 3, stride=kwargs.get("stride", 3), pad=kwargs.get("pad", 0),
                               cover_all=True).array.reshape(2, 3, 9, *x.shape[2:]).sum(axis=2)
    np.testing.assert_allclose((y * g).sum(), (x * window_sums).sum(), rtol=1e-12)


def test_gaussian_kl_divergence_is_zero_for_the_standard_normal():
    assert float(F.gaussian_kl_divergence(np.zeros(5), np.zeros(5)).array) == 0.0


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.flip(X, 3), ValueError, r"flip: axis=3 is out of range for an input of shape \(2, 3, 4\)"),
    (lambda: F.fliplr(np.ones(3)), ValueError, r"fliplr: a must have at least 2 dimensions, got shape \(3,\)"),
    (lambda: F.flipud(np.ones(())), ValueError, r"flipud: a must have at least 1 dimension, got shape \(\)"),
    (lambda: F.rollaxis(X, 0, 4), ValueError, r"rollaxis: start=4 is out of range .* \(valid: -3 to 3\)"),
    (lambda: F.rollaxis(X, 0, 1.0), TypeError, "rollaxis: start must be an int, got float"),
    (lambda: F.dstack([np.ones((2, 3)), np.ones((3, 3))]), ValueError, "dstack"),
    (lambda: F.bias(X, np.ones(4)), ValueError, r"bias: y of shape \(4,\) must match the axes 1..1 of x"),
    (lambda: F.scale(X, np.ones(3), axis=1.5), TypeError, "scale: axis must be an int, got float"),
    (lambda: F.squared_difference(np.ones(2), np.ones(3)), ValueError, "squared_difference"),
    (lambda: F.absolute_error(np.ones(2), np.ones(2, np.float32)), TypeError,
     "absolute_error: x0 and x1 must have the same dtype"),
    (lambda: F.gaussian_kl_divergence(np.ones(2), np.ones(2), reduce="average"), ValueError,
     "gaussian_kl_divergence: reduce must be one of 'sum', 'mean', 'no', got 'average'"),
    (lambda: F.bernoulli_nll(np.ones(0), np.ones(0), reduce="mean"), ValueError,
     r"bernoulli_nll: reduce='mean' of empty inputs \(shape \(0,\)\) has no value"),
    (lambda: F.gaussian_nll(np.ones(2), np.ones(2), np.ones(3)), ValueError, "gaussian_nll"),
    (lambda: F.bernoulli_nll(np.ones(2, np.int32), np.ones(2)), TypeError, "bernoulli_nll: x must have a floating"),
    (lambda: F.prelu(X, np.ones(4)), ValueError, r"prelu: W of shape \(4,\) must match the axes 1..1 of x"),
    (lambda: F.prelu(X, np.ones(3, np.float32)), TypeError, "prelu: x and W must have the same dtype"),
    (lambda: F.crelu(X, axis=3), ValueError, "crelu: axis=3 is out of range"),
    (lambda: F.maxout(X, 2), ValueError, "maxout: axis 1 of x .* has length 3, which is not a multiple of pool_size=2"),
    (lambda: F.maxout(X, 0), ValueError, "maxout: pool_size must be an int >= 1, got 0"),
    (lambda: F.binary_accuracy(np.ones(2), np.ones(3, np.int32)), ValueError,
     r"binary_accuracy: t must have y's shape \(2,\), got \(3,\)"),
    (lambda: F.binary_accuracy(np.ones(2), np.ones(2)), TypeError, "binary_accuracy: t must hold integer labels"),
    (lambda: F.local_response_normalization(np.ones(3)), ValueError,
     r"local_response_normalization: x must have shape \(N, C, ...\), got \(3,\)"),
    (lambda: F.local_response_normalization(X, n=0), ValueError, "local_response_normalization: n must be >= 1, got 0"),
    (lambda: F.unpooling_2d(X, 2), ValueError, r"unpooling_2d: x must have 4 dimensions, got shape \(2, 3, 4\)"),
    (lambda: F.unpooling_2d(np.ones((1, 1, 2, 2)), 2, outsize=(5, 5)), ValueError,
     r"unpooling_2d: outsize \(5, 5\) does not pool back to x's size \(2, 2\)"),
    (lambda: F.unpooling_2d(np.ones((1, 1, 2, 2)), 0), ValueError, "unpooling_2d: ksize must be >= 1"),
])
def test_bad_arguments_are_clear_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()
