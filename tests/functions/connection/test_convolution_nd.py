"""convolution_nd / deconvolution_nd: agreement with the 2-d functions, adjointness in 1-d and 3-d, errors."""

from __future__ import annotations

import numpy
import pytest

import minigrad as mg
import minigrad.functions as F


@pytest.mark.parametrize("kwargs", [
    {}, dict(stride=2, pad=1), dict(dilate=2, cover_all=True), dict(groups=2, stride=(1, 2), pad=(0, 1)),
])
def test_convolution_nd_with_two_axes_equals_convolution_2d(kwargs):
    rng = numpy.random.default_rng(0)
    x, W, b = rng.uniform(-1, 1, (2, 4, 7, 6)), rng.uniform(-1, 1, (6, 4 // kwargs.get("groups", 1), 3, 2)), \
        rng.uniform(-1, 1, 6)
    cover_all = kwargs.pop("cover_all", False)
    expected = F.convolution_2d(x, W, b, kwargs.get("stride", 1), kwargs.get("pad", 0), cover_all,
                                dilate=kwargs.get("dilate", 1), groups=kwargs.get("groups", 1))
    y = F.convolution_nd(x, W, b, cover_all=cover_all, **kwargs)
    numpy.testing.assert_array_equal(y.array, expected.array)


def test_deconvolution_nd_with_two_axes_equals_deconvolution_2d():
    rng = numpy.random.default_rng(1)
    x, W, b = rng.uniform(-1, 1, (2, 4, 3, 4)), rng.uniform(-1, 1, (4, 3, 3, 2)), rng.uniform(-1, 1, 6)
    expected = F.deconvolution_2d(x, W, b, 2, 1, dilate=(1, 2), groups=2)
    numpy.testing.assert_array_equal(F.deconvolution_nd(x, W, b, 2, 1, dilate=(1, 2), groups=2).array,
                                     expected.array)


@pytest.mark.parametrize("x_shape, W_shape, stride, pad", [
    ((2, 3, 9), (2, 3, 3), 2, 1), ((1, 2, 4, 5, 3), (3, 2, 2, 3, 2), (1, 2, 1), (1, 0, 1)),
])
def test_deconvolution_nd_is_the_adjoint_of_convolution_nd(x_shape, W_shape, stride, pad):
    """<conv(x), y> == <x, deconv(y)> for the same W: an identity a loop reference does not share."""
    rng = numpy.random.default_rng(2)
    x, W = rng.uniform(-1, 1, x_shape), rng.uniform(-1, 1, W_shape)
    y = F.convolution_nd(x, W, stride=stride, pad=pad)
    gy = rng.uniform(-1, 1, y.shape)
    W_view = W.swapaxes(0, 1).copy().swapaxes(0, 1)  # the same W, as a non-contiguous view
    back = F.deconvolution_nd(gy, W_view, stride=stride, pad=pad,
                              outsize=x_shape[2:])
    numpy.testing.assert_allclose(numpy.vdot(y.array, gy), numpy.vdot(x, back.array), rtol=1e-12)


def test_convolution_nd_gradient_of_a_3d_input_has_its_shape_and_float16_stays():
    x = mg.Variable(numpy.ones((1, 2, 3, 3, 3), numpy.float16))
    y = F.convolution_nd(x, numpy.ones((1, 2, 2, 2, 2), numpy.float16), pad=1)
    assert y.dtype == numpy.float16 and y.shape == (1, 1, 4, 4, 4)
    F.sum(y).backward()
    assert x.grad.shape == x.shape and x.grad.dtype == numpy.float16
    numpy.testing.assert_array_equal(x.grad, numpy.full(x.shape, 8.0, numpy.float16))  # every pixel in 8 windows


@pytest.mark.parametrize("func, x_shape, W_shape, kwargs, words", [
    (F.convolution_nd, (2, 3), (1, 3), {}, ["convolution_nd", "at least 3 dimensions", "(2, 3)"]),
    (F.convolution_nd, (1, 2, 5), (1, 2, 2, 2), {}, ["convolution_nd", "W", "(1, 2, 2, 2)", "(1, 2, 5)"]),
    (F.convolution_nd, (1, 2, 5, 5, 5), (1, 3, 2, 2, 2), {}, ["convolution_nd", "2 channels", "(1, 3, 2, 2, 2)"]),
    (F.convolution_nd, (1, 2, 5), (1, 2, 2), dict(stride=(1, 2)), ["convolution_nd", "stride", "a 1-tuple of an int"]),
    (F.convolution_nd, (1, 2, 5, 5, 5), (1, 2, 2, 2, 2), dict(pad=(1, 1)), ["convolution_nd", "pad", "(1, 1)"]),
    (F.deconvolution_nd, (1, 2, 3), (3, 2, 2), {}, ["deconvolution_nd", "2 channels", "(3, 2, 2)"]),
    (F.deconvolution_nd, (1, 2, 3), (2, 2, 2), dict(outsize=(9,)), ["deconvolution_nd", "outsize=(9,)"]),
    (F.deconvolution_nd, (1, 2, 3, 3), (2, 2, 2), {}, ["deconvolution_nd", "W", "(2, 2, 2)"]),
])
def test_bad_arguments(func, x_shape, W_shape, kwargs, words):
    with pytest.raises((TypeError, ValueError)) as info:
        func(numpy.ones(x_shape), numpy.ones(W_shape), **kwargs)
    for word in words:
        assert word in str(info.value)


@pytest.mark.parametrize("alias, nd_function, nd, W_shape", [
    (F.convolution_1d, F.convolution_nd, 1, (3, 2, 2)),
    (F.convolution_3d, F.convolution_nd, 3, (3, 2, 2, 1, 2)),
    (F.deconvolution_1d, F.deconvolution_nd, 1, (2, 3, 2)),
    (F.deconvolution_3d, F.deconvolution_nd, 3, (2, 3, 2, 1, 2)),
])
def test_the_fixed_dimension_aliases_are_the_nd_function_on_their_dimensions_only(alias, nd_function, nd, W_shape):
    rng = numpy.random.default_rng(nd)
    x = mg.Variable(rng.standard_normal((2, 2) + (3,) * nd))
    W = mg.Variable(rng.standard_normal(W_shape))
    y = alias(x, W, stride=2, pad=1)
    numpy.testing.assert_array_equal(y.array, nd_function(x.array, W.array, stride=2, pad=1).array)
    F.sum(y * y).backward()
    assert x.grad.shape == x.shape and W.grad.shape == W.shape
    other = 2 if nd == 1 else 1  # the same call on another number of spatial axes
    with pytest.raises(ValueError, match=rf"{alias.__name__}: x must have {nd + 2} dimensions, got shape"):
        alias(numpy.ones((1, 2) + (3,) * other), numpy.ones(W_shape[:2] + (2,) * other))
