"""deformable_convolution_2d_sampler: zero offsets give convolution_2d (Chainer's test's geometries), whole-pixel
offsets shift the taps, a half-pixel offset interpolates, points outside read zeros, gradients for every input
against numerical derivatives (first and second order), and the argument errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad.functions as F
from minigrad.testing import check_backward, check_double_backward


@pytest.mark.parametrize("kh, kw, sy, sx, ph, pw", [(1, 1, 1, 1, 1, 1), (2, 2, 2, 2, 2, 2), (1, 2, 2, 1, 1, 2),
                                                    (1, 2, 3, 4, 1, 2), (1, 2, 3, 4, 4, 5), (3, 3, 2, 2, 1, 1)])
def test_zero_offsets_are_convolution_2d(kh, kw, sy, sx, ph, pw):
    rng = np.random.default_rng(0)
    x, W, b = rng.uniform(size=(2, 3, 9, 9)), rng.normal(size=(2, 3, kh, kw)), rng.uniform(size=2)
    offset = np.zeros((2, 2 * kh * kw, (9 + 2 * ph - kh) // sy + 1, (9 + 2 * pw - kw) // sx + 1))
    np.testing.assert_allclose(F.deformable_convolution_2d_sampler(x, offset, W, b, (sy, sx), (ph, pw)).array,
                               F.convolution_2d(x, W, b, (sy, sx), (ph, pw)).array, rtol=1e-13, atol=1e-13)


def test_offsets_move_each_tap_and_interpolate():
    x = np.arange(20.0).reshape(1, 1, 4, 5)
    W = np.array([[[[1.0, 10.0]]]])  # taps (0, 0) and (0, 1)
    offset = np.zeros((1, 4, 4, 4))
    offset[0, 1] = 1.0    # tap (0, 1) one pixel further right: it reads column j + 2
    offset[0, 2] = 1.0    # tap (0, 0) one pixel down: row i + 1
    y = F.deformable_convolution_2d_sampler(x, offset, W).array[0, 0]
    padded = np.pad(x[0, 0], ((0, 1), (0, 1)))
    expected = padded[1:5, 0:4] + 10 * np.concatenate([x[0, 0][:, 2:], np.zeros((4, 1))], axis=1)
    np.testing.assert_array_equal(y, expected)
    offset = np.zeros((1, 2, 4, 5))
    offset[0, 1, 1, 2] = -0.25  # a quarter pixel up from (1, 2): 7 - 0.25 * 5
    offset[0, 0, 3, 4] = 3.0    # far outside on the right: zero
    y = F.deformable_convolution_2d_sampler(x, offset, np.ones((1, 1, 1, 1))).array[0, 0]
    assert y[1, 2] == pytest.approx(5.75) and y[3, 4] == 0.0 and y[0, 0] == 0.0 and y[2, 3] == 13.0


def test_gradients_reach_x_offset_W_and_b():
    rng = np.random.default_rng(1)
    args = (rng.uniform(-1, 1, (1, 2, 3, 3)), rng.integers(-1, 1, (1, 8, 2, 2)) + rng.uniform(0.2, 0.8, (1, 8, 2, 2)),
            rng.uniform(-1, 1, (3, 2, 2, 2)), rng.uniform(-1, 1, 3))
    f = lambda x, o, W, b: F.deformable_convolution_2d_sampler(x, o, W, b)  # noqa: E731
    check_backward(f, args, rng.standard_normal((1, 3, 2, 2)))
    check_double_backward(f, args, rng.standard_normal((1, 3, 2, 2)), tuple(rng.standard_normal(a.shape)
                                                                             for a in args))


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.deformable_convolution_2d_sampler(np.ones((1, 1, 3, 3)), np.zeros((1, 2, 3, 3)),
                                                 np.ones((1, 1, 2, 2))), ValueError,
     r"offset must have shape \(1, 8, 2, 2\)"),
    (lambda: F.deformable_convolution_2d_sampler(np.ones((1, 2, 3, 3)), np.zeros((1, 2, 3, 3)),
                                                 np.ones((1, 1, 1, 1))), ValueError, r"W of shape \(1, 1, 1, 1\)"),
    (lambda: F.deformable_convolution_2d_sampler(np.ones((1, 1, 3, 3)), np.zeros((1, 2, 3, 3), np.float32),
                                                 np.ones((1, 1, 1, 1))), TypeError, "offset has dtype float32"),
    (lambda: F.deformable_convolution_2d_sampler(np.ones((1, 1, 1, 3)), np.zeros((1, 2, 1, 3)),
                                                 np.ones((1, 1, 1, 1))), ValueError, "at least 2 pixels"),
    (lambda: F.deformable_convolution_2d_sampler(np.ones((1, 1, 3, 3)), np.zeros((1, 2, 3, 3)),
                                                 np.ones((1, 1, 1, 1)), np.ones(2)), ValueError, r"b must have"),
    (lambda: F.deformable_convolution_2d_sampler(np.ones((1, 1, 3, 3)), np.zeros((1, 2, 3, 3)),
                                                 np.ones((1, 1, 1, 1)), stride=0), ValueError, "stride must be >= 1"),
    (lambda: F.deformable_convolution_2d_sampler(np.ones((1, 1, 3, 3)), np.zeros((1, 2, 3, 3)),
                                                 np.ones((1, 1, 1, 1)), pad=1.5), TypeError, "pad must be an int"),
])
def test_bad_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()
