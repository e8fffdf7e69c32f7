"""L.DilatedConvolution2D and L.DepthwiseConvolution2D: Chainer's parameter shapes, lazy sizing, forward."""

import numpy as np
import pytest

import minigrad.functions as F
import minigrad.links as L


def test_dilated_shapes_lazy_channels_and_forward():
    conv = L.DilatedConvolution2D(None, 4, 3, pad=2, dilate=2)
    assert conv.W.array is None and conv.b.shape == (4,)
    x = np.random.default_rng(0).uniform(-1, 1, (2, 5, 6, 6)).astype(np.float32)
    y = conv(x)
    assert conv.W.shape == (4, 5, 3, 3) and conv.in_channels == 5 and y.shape == (2, 4, 6, 6)
    expected = F.convolution_2d(x, conv.W.array, conv.b.array, 1, 2, dilate=2)
    np.testing.assert_allclose(y.array, expected.array, rtol=1e-6, atol=1e-6)
    short = L.DilatedConvolution2D(3, 2)  # Chainer's short form (out_channels, ksize)
    assert short(np.ones((1, 2, 4, 4), np.float32)).shape == (1, 3, 3, 3) and short.W.shape == (3, 2, 2, 2)


def test_dilated_positional_order_is_chainers():
    conv = L.DilatedConvolution2D(1, 1, 2, 1, 0, 3, True)  # stride, pad, dilate, nobias
    assert conv.b is None and conv.dilate == 3
    assert conv(np.ones((1, 1, 7, 7), np.float32)).shape == (1, 1, 4, 4)


def test_depthwise_shapes_and_forward():
    conv = L.DepthwiseConvolution2D(3, 2, 3, pad=1, initial_bias=0.5)
    assert conv.W.shape == (2, 3, 3, 3) and conv.b.shape == (6,)
    np.testing.assert_array_equal(conv.b.array, np.full(6, 0.5, np.float32))
    x = np.random.default_rng(1).uniform(-1, 1, (2, 3, 5, 5)).astype(np.float32)
    y = conv(x)
    expected = F.depthwise_convolution_2d(x, conv.W.array, conv.b.array, 1, 1)
    np.testing.assert_allclose(y.array, expected.array, rtol=1e-6, atol=1e-6)


def test_depthwise_lazy_sizes_W_and_b_from_the_first_input():
    conv = L.DepthwiseConvolution2D(None, 3, (2, 1), stride=2)
    assert conv.W.array is None and conv.b.array is None
    y = conv(np.ones((1, 4, 4, 4), np.float32))
    assert conv.in_channels == 4 and conv.W.shape == (3, 4, 2, 1) and conv.b.shape == (12,)
    assert y.shape == (1, 12, 2, 2)
    assert L.DepthwiseConvolution2D(2, 2, 2, nobias=True).b is None


def test_depthwise_bad_arguments():
    with pytest.raises(ValueError, match="DepthwiseConvolution2D: channel_multiplier must be positive, got 0"):
        L.DepthwiseConvolution2D(3, 0, 3)
    with pytest.raises(TypeError, match="DepthwiseConvolution2D: ksize must be an int or a pair of ints"):
        L.DepthwiseConvolution2D(3, 1, "big")
    with pytest.raises(ValueError, match=r"DepthwiseConvolution2D: the input needs at least 4 axes, got shape \(2,"):
        L.DepthwiseConvolution2D(None, 1, 2)(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"depthwise_convolution_2d: x of shape \(1, 2, 4, 4\) has 2 channels"):
        L.DepthwiseConvolution2D(3, 1, 2)(np.ones((1, 2, 4, 4), np.float32))
