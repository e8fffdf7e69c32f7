"""convolution_2d / deconvolution_2d: errors, output sizes, adjointness, and im2col/col2im."""

from __future__ import annotations

import numpy
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad import backend
from minigrad.functions.connection.sliding_windows import col2im_array, im2col_array


def _raises(error, words, func, *args, **kwargs):
    with pytest.raises(error) as info:
        func(*args, **kwargs)
    for word in words:
        assert word in str(info.value), (word, str(info.value))


def test_bad_convolution_inputs_name_the_op_argument_and_shapes():
    x = numpy.zeros((2, 3, 5, 5))
    _raises(ValueError, ["convolution_2d", "x", "(2, 3, 5, 5)", "(4, 2, 3, 3)", "channels"],
            F.convolution_2d, x, numpy.zeros((4, 2, 3, 3)))
    _raises(ValueError, ["convolution_2d", "groups=2", "(2, 3, 5, 5)"],
            F.convolution_2d, x, numpy.zeros((4, 1, 3, 3)), groups=2)
    _raises(ValueError, ["convolution_2d", "x", "4 dimensions", "(3, 5, 5)"],
            F.convolution_2d, numpy.zeros((3, 5, 5)), numpy.zeros((4, 3, 3, 3)))
    _raises(ValueError, ["convolution_2d", "W", "4 dimensions", "(4, 27)"],
            F.convolution_2d, x, numpy.zeros((4, 27)))
    _raises(ValueError, ["convolution_2d", "kernel", "(7, 7)", "(2, 3, 5, 5)", "pad=(0, 0)"],
            F.convolution_2d, x, numpy.zeros((4, 3, 7, 7)))
    _raises(ValueError, ["convolution_2d", "kernel", "dilate=(3, 3)"],
            F.convolution_2d, x, numpy.zeros((4, 3, 3, 3)), dilate=3)
    _raises(ValueError, ["convolution_2d", "b", "(4,)", "(3,)"],
            F.convolution_2d, x, numpy.zeros((4, 3, 3, 3)), numpy.zeros(3))
    _raises(ValueError, ["convolution_2d", "stride"], F.convolution_2d, x, numpy.zeros((4, 3, 3, 3)), stride=0)
    _raises(TypeError, ["convolution_2d", "pad"], F.convolution_2d, x, numpy.zeros((4, 3, 3, 3)), pad=1.5)
    _raises(TypeError, ["convolution_2d", "b", "float32", "float64"],  # (W may have another dtype, b not)
            F.convolution_2d, x, numpy.zeros((4, 3, 3, 3), numpy.float32), numpy.zeros(4, numpy.float32))


def test_bad_deconvolution_inputs():
    x = numpy.zeros((1, 2, 3, 3))
    _raises(ValueError, ["deconvolution_2d", "(1, 2, 3, 3)", "(3, 2, 3, 3)", "channels"],
            F.deconvolution_2d, x, numpy.zeros((3, 2, 3, 3)))
    _raises(ValueError, ["deconvolution_2d", "outsize=(9, 9)", "(1, 2, 3, 3)"],
            F.deconvolution_2d, x, numpy.zeros((2, 2, 3, 3)), stride=2, outsize=(9, 9))
    _raises(ValueError, ["deconvolution_2d", "pad=(3, 3)"], F.deconvolution_2d, x, numpy.zeros((2, 2, 3, 3)), pad=3)
    _raises(ValueError, ["deconvolution_2d", "groups=3"], F.deconvolution_2d, x, numpy.zeros((2, 2, 3, 3)), groups=3)


@pytest.mark.parametrize("H, k, s, p, cover_all, expected", [
    (5, 3, 1, 0, False, 3), (5, 3, 2, 1, False, 3), (5, 2, 2, 0, False, 2), (5, 2, 2, 0, True, 3),
    (6, 3, 2, 0, True, 3),
])
def test_output_sizes(H, k, s, p, cover_all, expected):
    y = F.convolution_2d(numpy.ones((1, 1, H, H)), numpy.ones((1, 1, k, k)), stride=s, pad=p, cover_all=cover_all)
    assert y.shape == (1, 1, expected, expected)


def test_deconvolution_is_the_adjoint_of_convolution():
    rng = numpy.random.default_rng(0)
    x, W = rng.standard_normal((2, 4, 7, 6)), rng.standard_normal((6, 2, 3, 2))
    kwargs = dict(stride=(2, 1), pad=(1, 2), dilate=(1, 2), groups=2)
    y = F.convolution_2d(x, W, **kwargs)
    gy = rng.standard_normal(y.shape)
    gx = F.deconvolution_2d(gy, W, outsize=x.shape[2:], **kwargs)
    numpy.testing.assert_allclose((y.array * gy).sum(), (x * gx.array).sum(), rtol=1e-12)


def test_backward_gives_float32_gradients_and_works_without_weight_gradient():
    x = mg.Variable(numpy.ones((2, 3, 6, 6), numpy.float32))
    W = mg.Variable(numpy.ones((4, 3, 3, 3), numpy.float32), requires_grad=False)
    F.sum(F.convolution_2d(x, W, pad=1)).backward()
    assert x.grad.dtype == numpy.float32 and W.grad is None
    assert x.grad[0, 0, 2, 2] == 36.0 and x.grad[0, 0, 0, 0] == 16.0  # 4 filters x interior / corner taps


def test_im2col_view_and_col2im_are_adjoint():
    rng = numpy.random.default_rng(1)
    x = rng.standard_normal((2, 3, 5, 6))
    args = ((2, 3), (2, 1), (1, 0), (1, 2), (3, 2))
    col = im2col_array(x, *args)
    assert not col.flags.writeable and col.shape == (2, 3, 2, 3, 3, 2)
    gcol = rng.standard_normal(col.shape)
    gx = col2im_array(gcol, (5, 6), *args[1:4])
    numpy.testing.assert_allclose((col * gcol).sum(), (x * gx).sum(), rtol=1e-12)


def test_gather_fallback_matches_as_strided():
    x = numpy.arange(60.0).reshape(3, 4, 5)
    shape, strides = (2, 3, 3, 2), (x.strides[0], x.strides[1], x.strides[2] * 2, x.strides[1])
    expected = numpy.lib.stride_tricks.as_strided(x, shape, strides)
    numpy.testing.assert_array_equal(backend._strided_gather(numpy, x, shape, strides), expected)
