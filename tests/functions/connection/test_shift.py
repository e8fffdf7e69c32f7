"""F.shift: hand-checked offsets, the leftover channels, the gradient as the opposite shift, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


def test_a_3x3_grid_moves_each_channel_group_and_keeps_the_centre_group_last():
    x = np.zeros((1, 9, 3, 3))
    x[0, :, 1, 1] = np.arange(1.0, 10.0)     # one pixel in the middle of each channel
    y = F.shift(x).array[0]
    # group g moves by (g // 3 - 1, g % 3 - 1); the centre group (4) and the last (8) trade offsets
    offsets = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (1, 1), (0, 1), (1, -1), (1, 0), (0, 0)]
    for channel, (ky, kx) in enumerate(offsets):
        expected = np.zeros((3, 3))
        expected[1 + ky, 1 + kx] = channel + 1
        np.testing.assert_array_equal(y[channel], expected, err_msg=f"channel {channel}")


def test_leftover_channels_join_the_last_group_and_stay_put_and_dilate_scales_the_step():
    x = np.arange(11.0 * 7).reshape(1, 11, 1, 7) / 10       # 5 groups of 2 channels, 1 left over
    y = F.shift(x, ksize=(1, 5), dilate=(1, 2)).array[0, :, 0]
    for channel in (0, 1):                                    # group 0: offset -2, times 2 pixels
        np.testing.assert_array_equal(y[channel, :3], x[0, channel, 0, 4:])
        np.testing.assert_array_equal(y[channel, 3:], 0.0)
    np.testing.assert_array_equal(y[8:], x[0, 8:, 0])        # the last group and the leftover: the centre's 0


def test_the_gradient_is_the_opposite_shift():
    rng = np.random.default_rng(0)
    x = mg.Variable(rng.standard_normal((2, 9, 4, 5)))
    g = rng.standard_normal((2, 9, 4, 5))
    y = F.shift(x, ksize=3, dilate=(1, 2))
    y.grad = g
    y.backward()
    np.testing.assert_array_equal(x.grad, F.shift(g, ksize=3, dilate=(-1, -2)).array)


@pytest.mark.parametrize("call, error, message", [
    (lambda x: F.shift(x, ksize=2), ValueError, r"shift: ksize must be odd in both axes, got \(2, 2\)"),
    (lambda x: F.shift(x, ksize=5), ValueError, r"at least kh \* kw = 25 channels, got shape \(1, 9, 3, 3\)"),
    (lambda x: F.shift(x, dilate=0), ValueError, "shift: dilate must be non-zero"),
    (lambda x: F.shift(x, dilate=1.5), TypeError, "shift: dilate must be an int or a pair of ints"),
    (lambda x: F.shift(x[0]), ValueError, "shift: x must have 4 dimensions"),
    (lambda x: F.shift(x.astype(np.int32)), TypeError, "shift: x must have a floating-point dtype"),
])
def test_bad_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call(np.ones((1, 9, 3, 3)))
