"""L.Deconvolution2D: forward against a naive scatter loop, gradients, lazy channels, errors."""

import numpy as np
import pytest

import minigrad.links as L
from minigrad.testing import LinkTestCase


def naive_deconv(x, W, b, stride, pad):
    n, c, h, w = x.shape
    _, out, kh, kw = W.shape
    full = np.zeros((n, out, (h - 1) * stride + kh, (w - 1) * stride + kw))
    for i in range(h):
        for j in range(w):
            full[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw] += np.einsum(
                "nc,cokl->nokl", x[:, :, i, j], W)
    y = full[:, :, pad:full.shape[2] - pad, pad:full.shape[3] - pad]
    return y + (0 if b is None else b.reshape(1, -1, 1, 1))


class TestDeconvolution2D(LinkTestCase):
    check_backward_options = {"float16": {"atol": 5e-3, "rtol": 5e-2}}
    check_double_backward_options = {"float16": {"atol": 5e-3, "rtol": 5e-2}}

    def generate_params(self):
        return self.rng.uniform(-1, 1, (2, 3, 3, 3)), self.rng.uniform(-1, 1, 3)

    def create_link(self, initializers):
        W, b = initializers
        return L.Deconvolution2D(2, 3, ksize=3, stride=2, pad=1, initialW=W, initial_bias=b)

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (1, 2, 2, 2)).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        return naive_deconv(x, link.W.array.astype(np.float64), link.b.array.astype(np.float64), 2, 1),


def test_shapes_lazy_channels_and_outsize():
    deconv = L.Deconvolution2D(3, 2)  # out_channels=3, ksize=2, in_channels learned
    assert deconv(np.ones((1, 4, 3, 3), dtype=np.float32)).shape == (1, 3, 4, 4)
    assert deconv.W.shape == (4, 3, 2, 2) and deconv.in_channels == 4
    sized = L.Deconvolution2D(2, 2, 3, stride=2, pad=1, outsize=(6, 6))
    assert sized(np.ones((1, 2, 3, 3), dtype=np.float32)).shape == (1, 2, 6, 6)


def test_bad_arguments():
    with pytest.raises(ValueError, match=r"out_channels \(3\) must be divisible by groups \(2\)"):
        L.Deconvolution2D(4, 3, 3, groups=2)
    with pytest.raises(TypeError, match="Deconvolution2D: out_channels must be a positive int"):
        L.Deconvolution2D(4, None, 3)
