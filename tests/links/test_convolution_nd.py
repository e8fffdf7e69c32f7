"""L.ConvolutionND and L.DeconvolutionND: forward and gradients against NumPy loops, shapes, lazy channels, errors."""

import numpy as np
import pytest

import minigrad.links as L
from minigrad.testing import LinkTestCase
from minigrad.testing.op_specs.connection import _conv_nd_reference, _deconv_nd_reference


class TestConvolutionND3d(LinkTestCase):
    check_backward_options = {"float16": {"atol": 5e-3, "rtol": 5e-2}}
    check_double_backward_options = {"float16": {"atol": 5e-3, "rtol": 5e-2}}

    def generate_params(self):
        return self.rng.uniform(-1, 1, (2, 2, 2, 1, 2)), self.rng.uniform(-1, 1, 2)

    def create_link(self, initializers):
        W, b = initializers
        return L.ConvolutionND(3, 2, 2, ksize=(2, 1, 2), stride=(1, 2, 1), pad=1, initialW=W, initial_bias=b)

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (1, 2, 2, 3, 2)).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        reference = _conv_nd_reference(stride=(1, 2, 1), pad=1)
        return reference(x.astype(np.float64), link.W.array.astype(np.float64), link.b.array.astype(np.float64)),


class TestDeconvolutionND1d(LinkTestCase):
    check_backward_options = {"float16": {"atol": 5e-3, "rtol": 5e-2}}
    check_double_backward_options = {"float16": {"atol": 5e-3, "rtol": 5e-2}}

    def generate_params(self):
        return self.rng.uniform(-1, 1, (2, 3, 3)), self.rng.uniform(-1, 1, 3)

    def create_link(self, initializers):
        W, b = initializers
        return L.DeconvolutionND(1, 2, 3, 3, stride=2, pad=1, initialW=W, initial_bias=b)

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (2, 2, 3)).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        reference = _deconv_nd_reference(stride=2, pad=1)
        return reference(x.astype(np.float64), link.W.array.astype(np.float64), link.b.array.astype(np.float64)),


def test_shapes_and_lazy_channels():
    conv = L.ConvolutionND(1, None, 4, 3, pad=1)
    assert conv.W.array is None and conv.b.shape == (4,)
    assert conv(np.ones((2, 5, 6), dtype=np.float32)).shape == (2, 4, 6)
    assert conv.W.shape == (4, 5, 3) and conv.in_channels == 5
    short = L.ConvolutionND(3, 4, 2)  # Chainer's short form (ndim, out_channels, ksize)
    assert short(np.ones((1, 3, 3, 3, 3), np.float32)).shape == (1, 4, 2, 2, 2) and short.W.shape == (4, 3, 2, 2, 2)
    grouped = L.ConvolutionND(3, 4, 6, (1, 3, 2), groups=2, nobias=True)
    assert grouped.W.shape == (6, 2, 1, 3, 2) and grouped.b is None
    deconv = L.DeconvolutionND(3, None, 6, 2, stride=2, groups=3)
    assert deconv(np.ones((1, 3, 2, 2, 2), np.float32)).shape == (1, 6, 4, 4, 4) and deconv.W.shape == (3, 2, 2, 2, 2)
    sized = L.DeconvolutionND(1, 2, 2, 3, stride=2, pad=1, outsize=(6,))
    assert sized(np.ones((1, 2, 3), np.float32)).shape == (1, 2, 6)


def test_cover_all_and_dilate_reach_the_function():
    assert L.ConvolutionND(1, 1, 1, 2, stride=2, cover_all=True)(np.ones((1, 1, 5), np.float32)).shape == (1, 1, 3)
    assert L.ConvolutionND(1, 1, 1, 2, dilate=3)(np.ones((1, 1, 5), np.float32)).shape == (1, 1, 2)


def test_bad_arguments():
    with pytest.raises(TypeError, match=r"ConvolutionND: ksize must be an int or a tuple of 3 ints, got \(2, 2\)"):
        L.ConvolutionND(3, 2, 2, (2, 2))
    with pytest.raises(ValueError, match=r"ConvolutionND: out_channels \(3\) must be divisible by groups \(2\)"):
        L.ConvolutionND(1, 4, 3, 3, groups=2)
    with pytest.raises(ValueError, match="ConvolutionND: ndim must be positive, got 0"):
        L.ConvolutionND(0, 2, 2, 2)
    with pytest.raises(ValueError, match=r"ConvolutionND: the input needs at least 5 axes, got shape \(1, 2, 3, 3\)"):
        L.ConvolutionND(3, None, 2, 2)(np.ones((1, 2, 3, 3), np.float32))
    with pytest.raises(ValueError, match="convolution_nd: W must have as many dimensions as x"):
        L.ConvolutionND(1, 2, 2, 2)(np.ones((1, 2, 3, 3), np.float32))
    with pytest.raises(ValueError, match=r"DeconvolutionND: in_channels \(3\) must be divisible by groups \(2\)"):
        L.DeconvolutionND(2, 3, 4, 3, groups=2)


@pytest.mark.parametrize("alias, nd_link, nd, kwargs", [
    (L.Convolution1D, L.ConvolutionND, 1, {"stride": 2, "pad": 1, "dilate": 2}),
    (L.Convolution3D, L.ConvolutionND, 3, {"pad": 1, "cover_all": True}),
    (L.Deconvolution1D, L.DeconvolutionND, 1, {"stride": 2, "outsize": (8,)}),
    (L.Deconvolution3D, L.DeconvolutionND, 3, {"stride": 2, "pad": 1}),
])
def test_the_fixed_dimension_links_are_the_nd_link_with_their_ndim(alias, nd_link, nd, kwargs):
    channels = (3, 2) if nd_link is L.ConvolutionND else (2, 3)  # W is (out, in, ...) or, transposed, (in, out, ...)
    W = np.random.default_rng(nd).uniform(-1, 1, channels + (3,) * nd).astype(np.float32)
    link = alias(2, 3, 3, initialW=W, initial_bias=0.5, **kwargs)
    reference = nd_link(nd, 2, 3, 3, initialW=W, initial_bias=0.5, **kwargs)
    x = np.random.default_rng(0).uniform(-1, 1, (2, 2) + (4,) * nd).astype(np.float32)
    np.testing.assert_array_equal(link(x).array, reference(x).array)
    assert (link.W.shape, link.b.shape) == (reference.W.shape, reference.b.shape)
    lazy = alias(None, 3, 3, **kwargs)  # in_channels from the first input, as in Chainer
    assert lazy(x).shape == reference(x).shape
