"""dilated_convolution_2d and depthwise_convolution_2d: cross-checks against convolution_2d, layouts, errors."""

from __future__ import annotations

import numpy
import pytest

import minigrad as mg
import minigrad.functions as F


def zero_stuffed(W, dy, dx):
    """The dilated filter written out: taps ``dilate`` apart, zeros between them."""
    o, c, kh, kw = W.shape
    stuffed = numpy.zeros((o, c, dy * (kh - 1) + 1, dx * (kw - 1) + 1), W.dtype)
    stuffed[:, :, ::dy, ::dx] = W
    return stuffed


@pytest.mark.parametrize("stride, pad, dilate, cover_all", [
    (1, 0, 2, False), (2, 1, (2, 3), False), (2, 0, 2, True), ((1, 2), (2, 1), (3, 1), True),
])
def test_dilated_equals_convolution_with_a_zero_stuffed_kernel(stride, pad, dilate, cover_all):
    rng = numpy.random.default_rng(0)
    x, W, b = rng.uniform(-1, 1, (2, 3, 9, 8)), rng.uniform(-1, 1, (4, 3, 3, 2)), rng.uniform(-1, 1, 4)
    dy, dx = dilate if isinstance(dilate, tuple) else (dilate, dilate)
    y = F.dilated_convolution_2d(x, W, b, stride, pad, dilate, cover_all)
    expected = F.convolution_2d(x, zero_stuffed(W, dy, dx), b, stride, pad, cover_all)
    numpy.testing.assert_allclose(y.array, expected.array, rtol=1e-12, atol=1e-12)


def test_dilated_argument_order_is_chainers():
    x, W = numpy.ones((1, 1, 7, 7)), numpy.ones((1, 1, 2, 2))
    assert F.dilated_convolution_2d(x, W, None, 1, 0, 3).shape == (1, 1, 4, 4)  # the 6th positional is dilate
    assert F.dilated_convolution_2d(x, W, None, 2, 0, 3, True).shape == (1, 1, 3, 3)


def test_dilated_errors_name_the_function():
    with pytest.raises(ValueError, match=r"dilated_convolution_2d: x of shape \(1, 2, 5, 5\) has 2 channels"):
        F.dilated_convolution_2d(numpy.ones((1, 2, 5, 5)), numpy.ones((1, 3, 2, 2)), dilate=2)
    with pytest.raises(ValueError, match="dilated_convolution_2d: dilate must be >= 1"):
        F.dilated_convolution_2d(numpy.ones((1, 2, 5, 5)), numpy.ones((1, 2, 2, 2)), dilate=0)
    with pytest.raises(ValueError, match=r"dilated_convolution_2d: the kernel \(2, 2\) \(dilate=\(5, 5\)\)"):
        F.dilated_convolution_2d(numpy.ones((1, 2, 5, 5)), numpy.ones((1, 2, 2, 2)), dilate=5)


@pytest.mark.parametrize("stride, pad", [(1, 0), (2, 1), ((1, 2), (0, 1))])
def test_depthwise_equals_a_grouped_convolution(stride, pad):
    rng = numpy.random.default_rng(1)
    channels, multiplier = 3, 2
    x, W = rng.uniform(-1, 1, (2, channels, 6, 5)), rng.uniform(-1, 1, (multiplier, channels, 3, 2))
    b = rng.uniform(-1, 1, channels * multiplier)
    grouped_W = numpy.empty((channels * multiplier, 1, 3, 2))
    for c in range(channels):
        for m in range(multiplier):
            grouped_W[c * multiplier + m, 0] = W[m, c]
    y = F.depthwise_convolution_2d(x, W, b, stride, pad)
    expected = F.convolution_2d(x, grouped_W, b, stride, pad, groups=channels)
    numpy.testing.assert_allclose(y.array, expected.array, rtol=1e-12, atol=1e-12)


def test_depthwise_gradient_of_W_keeps_chainers_layout():
    x, W = mg.Variable(numpy.ones((1, 2, 3, 3))), mg.Variable(numpy.ones((3, 2, 2, 2)))
    y = F.depthwise_convolution_2d(x, W)
    F.sum(y[:, 1]).backward()  # channel 1 = c 0, m 1: only W[1, 0] sees it
    expected = numpy.zeros((3, 2, 2, 2))
    expected[1, 0] = 4.0  # four windows of ones
    numpy.testing.assert_array_equal(W.grad, expected)


def test_depthwise_keeps_float16():
    y = F.depthwise_convolution_2d(numpy.ones((1, 2, 3, 3), numpy.float16), numpy.ones((1, 2, 2, 2), numpy.float16))
    assert y.dtype == numpy.float16


@pytest.mark.parametrize("x_shape, W_shape, b_shape, error, words", [
    ((1, 2, 4, 4), (1, 3, 2, 2), None, ValueError, ["depthwise_convolution_2d", "(1, 2, 4, 4)", "(1, 3, 2, 2)"]),
    ((1, 2, 4, 4), (2, 2, 2, 2), (2,), ValueError, ["depthwise_convolution_2d", "b", "(4,)", "(2,)"]),
    ((2, 4, 4), (1, 2, 2, 2), None, ValueError, ["depthwise_convolution_2d", "x", "(2, 4, 4)"]),
    ((1, 2, 4, 4), (2, 2, 2), None, ValueError, ["depthwise_convolution_2d", "W", "(2, 2, 2)"]),
    ((1, 2, 2, 2), (1, 2, 3, 3), None, ValueError, ["depthwise_convolution_2d", "kernel"]),
])
def test_depthwise_bad_arguments(x_shape, W_shape, b_shape, error, words):
    b = None if b_shape is None else numpy.ones(b_shape)
    with pytest.raises(error) as info:
        F.depthwise_convolution_2d(numpy.ones(x_shape), numpy.ones(W_shape), b)
    for word in words:
        assert word in str(info.value)


def test_depthwise_takes_mixed_dtypes_like_convolution_2d():  # (Chainer's calls convolution_2d)
    W = mg.Variable(numpy.ones((1, 2, 2, 2), numpy.float32))
    y = F.depthwise_convolution_2d(numpy.ones((1, 2, 3, 3)), W)
    F.sum(y).backward()
    assert y.dtype == numpy.float64 and W.grad.dtype == numpy.float32
    numpy.testing.assert_array_equal(y.array, numpy.full((1, 2, 2, 2), 4.0))
    with pytest.raises(TypeError, match="depthwise_convolution_2d: b has dtype float32, but x has dtype float64"):
        F.depthwise_convolution_2d(numpy.ones((1, 2, 3, 3)), W, numpy.ones(2, numpy.float32))
