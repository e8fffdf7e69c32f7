"""F.local_convolution_2d and L.LocalConvolution2D: unshared filters position by position, the reduction to
convolution_2d when every position has the same filters, gradients, the link's sizes, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
import minigrad.links as L
from minigrad.testing import check_backward

RNG = np.random.default_rng(0)


def test_with_one_filter_bank_repeated_everywhere_it_is_convolution_2d():
    x, W, b = RNG.standard_normal((2, 3, 5, 6)), RNG.standard_normal((4, 3, 2, 3)), RNG.standard_normal(4)
    y = F.convolution_2d(x, W, b, stride=(2, 1)).array
    out_h, out_w = y.shape[2:]
    W_local = np.broadcast_to(W[:, None, None], (4, out_h, out_w, 3, 2, 3))
    b_local = np.broadcast_to(b[:, None, None], (4, out_h, out_w))
    np.testing.assert_allclose(F.local_convolution_2d(x, W_local, b_local, stride=(2, 1)).array, y, rtol=1e-12)


def test_each_position_uses_only_its_own_filters():
    x = mg.Variable(RNG.standard_normal((1, 1, 3, 3)))
    W = mg.Variable(np.zeros((1, 2, 2, 1, 2, 2)))
    y = F.local_convolution_2d(x, W)
    F.sum(y[0, 0, 1, 0]).backward()          # position (1, 0): window rows 1..2, columns 0..1
    assert np.count_nonzero(W.grad) == 4 and np.count_nonzero(W.grad[:, 1, 0]) == 4
    np.testing.assert_array_equal(W.grad[0, 1, 0, 0], x.array[0, 0, 1:3, 0:2])


def test_fewer_positions_than_windows_use_the_first_ones_and_w_may_have_another_dtype():
    x = RNG.standard_normal((1, 2, 5, 5)).astype(np.float32)
    W = RNG.standard_normal((2, 2, 3, 2, 2, 2))
    y = F.local_convolution_2d(x, W)
    assert y.shape == (1, 2, 2, 3) and y.dtype == np.float32
    full = F.local_convolution_2d(x, np.pad(W, ((0, 0), (0, 2), (0, 1), (0, 0), (0, 0), (0, 0)))).array
    np.testing.assert_allclose(y.array, full[:, :, :2, :3], rtol=1e-6)


def test_gradients_against_numerical_ones():
    args = (RNG.standard_normal((2, 2, 4, 3)), RNG.standard_normal((2, 2, 1, 2, 3, 3)), RNG.standard_normal((2, 2, 1)))
    check_backward(lambda x, W, b: F.local_convolution_2d(x, W, b), args, RNG.standard_normal((2, 2, 2, 1)))


def test_the_link_sizes_its_parameters_from_the_first_input_with_the_stride_counted():
    layer = L.LocalConvolution2D(None, 3, ksize=(2, 3), stride=2)
    y = layer(np.ones((2, 4, 7, 8), np.float32))
    assert layer.W.shape == (3, 3, 3, 4, 2, 3) and layer.b.shape == (3, 3, 3) and y.shape == (2, 3, 3, 3)
    eager = L.LocalConvolution2D(4, 3, in_size=7, ksize=2, nobias=True, initialW=1.0)
    assert eager.W.shape == (3, 6, 6, 4, 2, 2) and eager.b is None
    np.testing.assert_allclose(eager(np.ones((1, 4, 7, 7), np.float32)).array, 16.0)


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.local_convolution_2d(np.ones((1, 2, 3, 3)), np.ones((1, 2, 2, 3, 2, 2))), ValueError,
     r"x has 2 channels but W of shape \(1, 2, 2, 3, 2, 2\) takes 3"),
    (lambda: F.local_convolution_2d(np.ones((1, 2, 3, 3)), np.ones((1, 3, 2, 2, 2, 2))), ValueError,
     r"has \(3, 2\) output positions but x of shape \(1, 2, 3, 3\) has \(2, 2\) windows"),
    (lambda: F.local_convolution_2d(np.ones((1, 2, 3, 3)), np.ones((1, 2, 2, 2, 2, 2)), np.ones(1)), ValueError,
     r"b must have shape \(1, 2, 2\)"),
    (lambda: F.local_convolution_2d(np.ones((1, 2, 3, 3)), np.ones((1, 2, 2, 2, 2)),), ValueError,
     "W must have 6 dimensions"),
    (lambda: F.local_convolution_2d(np.ones((1, 2, 3, 3)), np.ones((1, 2, 2, 2, 2, 2)), stride=0), ValueError,
     "stride must be >= 1"),
    (lambda: F.local_convolution_2d(np.ones((1, 2, 3, 3), np.float32), np.ones((1, 2, 2, 2, 2, 2)),
                                    np.ones((1, 2, 2))), TypeError, "b must have x's dtype float32"),
    (lambda: L.LocalConvolution2D(2, 3), TypeError, "LocalConvolution2D: ksize is required"),
    (lambda: L.LocalConvolution2D(2, 3, in_size=2, ksize=3), ValueError, "does not fit an input of size"),
])
def test_bad_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()
