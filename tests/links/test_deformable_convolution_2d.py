"""L.DeformableConvolution2D: the offset convolution feeding the sampler, checked as a layer (forward against a
per-tap loop, first and second order through all four parameters), Chainer's default initial values, lazy
in_channels."""

from __future__ import annotations

import itertools

import numpy as np

import minigrad.links as L
from minigrad.testing import LinkTestCase


def _bilinear(image, y, x):
    value = 0.0
    for row, wy in ((np.floor(y), 1 - y + np.floor(y)), (np.floor(y) + 1, y - np.floor(y))):
        for col, wx in ((np.floor(x), 1 - x + np.floor(x)), (np.floor(x) + 1, x - np.floor(x))):
            if 0 <= row < image.shape[0] and 0 <= col < image.shape[1]:
                value += wy * wx * image[int(row), int(col)]
    return value


def _deformable(x, W_offset, b_offset, W, b, pad):
    padded = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, hp, wp = padded.shape
    out_c, _, kh, kw = W.shape
    out_h, out_w = hp - kh + 1, wp - kw + 1
    offset = np.zeros((n, 2 * kh * kw, out_h, out_w))
    for i, o, r, s in itertools.product(range(n), range(2 * kh * kw), range(out_h), range(out_w)):
        offset[i, o, r, s] = (W_offset[o] * padded[i, :, r:r + kh, s:s + kw]).sum() + b_offset[o]
    y = np.zeros((n, out_c, out_h, out_w))
    for i, o, r, s in itertools.product(range(n), range(out_c), range(out_h), range(out_w)):
        for ch, p, q in itertools.product(range(c), range(kh), range(kw)):
            t = p * kw + q
            y[i, o, r, s] += W[o, ch, p, q] * _bilinear(padded[i, ch], r + p + offset[i, kh * kw + t, r, s],
                                                        s + q + offset[i, t, r, s])
        y[i, o, r, s] += b[o]
    return y


class TestDeformableConvolution2D(LinkTestCase):
    """Offsets near 0.3 and -0.6 (the offset convolution's bias, its weights small): clear of whole pixels."""

    param_names = ("offset_conv/W", "offset_conv/b", "deform_conv/W", "deform_conv/b")

    def generate_params(self):
        W_offset = self.rng.uniform(-0.02, 0.02, (8, 2, 2, 2))
        b_offset = np.where(np.arange(8) % 2, 0.3, -0.6)
        return W_offset, b_offset, self.rng.uniform(-1, 1, (3, 2, 2, 2)), self.rng.uniform(-1, 1, 3)

    def create_link(self, initializers):
        W_offset, b_offset, W, b = initializers
        return L.DeformableConvolution2D(2, 3, 2, pad=1, offset_initialW=W_offset, offset_initial_bias=b_offset,
                                         deform_initialW=W, deform_initial_bias=b)

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (1, 2, 2, 3)).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        arrays = [p.array.astype(np.float64) for p in (link.offset_conv.W, link.offset_conv.b, link.deform_conv.W,
                                                        link.deform_conv.b)]
        return _deformable(x, *arrays, pad=1),


def test_chainers_initial_values_and_lazy_in_channels():
    layer = L.DeformableConvolution2D(None, 4, (1, 3), pad=(0, 1))
    y = layer(np.ones((2, 3, 4, 5), np.float32))
    assert y.shape == (2, 4, 4, 5) and layer.offset_conv.W.shape == (6, 3, 1, 3)
    np.testing.assert_array_equal(layer.deform_conv.W.array, 0)  # Chainer's sampler starts from zero weights
    np.testing.assert_array_equal(y.array, 0)
    assert L.DeformableConvolution2D(3, 2, 3, deform_nobias=True, offset_nobias=True).deform_conv.b is None
