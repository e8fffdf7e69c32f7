"""L.Convolution2D: forward against a naive loop, gradients w.r.t. input, W and b, lazy channels, errors."""

import numpy as np
import pytest

import minigrad.links as L
from minigrad.testing import LinkTestCase


def naive_conv(x, W, b, stride, pad):
    n, c, h, w = x.shape
    out, _, kh, kw = W.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - kh) // stride + 1, (w + 2 * pad - kw) // stride + 1
    y = np.zeros((n, out, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            y[:, :, i, j] = np.einsum("nchw,ochw->no", patch, W)
    return y + (0 if b is None else b.reshape(1, -1, 1, 1))


class TestConvolution2D(LinkTestCase):
    check_backward_options = {"float16": {"atol": 5e-3, "rtol": 5e-2}}
    check_double_backward_options = {"float16": {"atol": 5e-3, "rtol": 5e-2}}

    def generate_params(self):
        return self.rng.uniform(-1, 1, (2, 2, 2, 2)), self.rng.uniform(-1, 1, 2)

    def create_link(self, initializers):
        W, b = initializers
        return L.Convolution2D(2, 2, ksize=2, stride=2, pad=1, initialW=W, initial_bias=b)

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (2, 2, 3, 3)).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        return naive_conv(x, link.W.array.astype(np.float64), link.b.array.astype(np.float64), 2, 1),


class TestConvolution2DLazy(LinkTestCase):
    """``Convolution2D(out_channels, ksize)`` learns in_channels; no bias."""

    dtypes = (np.float32, np.float64)

    def generate_params(self):
        return self.rng.uniform(-1, 1, (2, 3, 2, 2)),

    def create_link(self, initializers):
        W, = initializers
        return L.Convolution2D(2, 2, nobias=True, initialW=W)

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (1, 3, 3, 3)).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        return naive_conv(x, link.W.array.astype(np.float64), None, 1, 0),


def test_shapes_and_lazy_channels():
    conv = L.Convolution2D(None, 4, 3, pad=1)
    assert conv.W.array is None
    assert conv(np.ones((2, 5, 6, 6), dtype=np.float32)).shape == (2, 4, 6, 6)
    assert conv.W.shape == (4, 5, 3, 3) and conv.in_channels == 5
    grouped = L.Convolution2D(4, 6, (1, 3), groups=2)
    assert grouped.W.shape == (6, 2, 1, 3)


def test_bad_arguments():
    with pytest.raises(ValueError, match=r"out_channels \(3\) must be divisible by groups \(2\)"):
        L.Convolution2D(4, 3, 3, groups=2)
    with pytest.raises(ValueError, match=r"in_channels \(3\) must be divisible by groups \(2\)"):
        L.Convolution2D(3, 4, 3, groups=2)
    with pytest.raises(TypeError, match="ksize must be an int or a pair of ints, got 'big'"):
        L.Convolution2D(3, 4, "big")
    with pytest.raises(ValueError, match="Convolution2D: the input needs at least 4 axes, got shape \\(2, 3\\)"):
        L.Convolution2D(4, 3)(np.ones((2, 3), dtype=np.float32))
