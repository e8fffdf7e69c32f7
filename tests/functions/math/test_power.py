"""sqrt, rsqrt, square: values and the behaviour at the edge of the domain."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


def test_rsqrt_is_one_over_sqrt():
    x = np.array([0.25, 4.0, 9.0], dtype=np.float32)
    np.testing.assert_array_equal(F.rsqrt(x).array, np.array([2.0, 0.5, 1 / 3], dtype=np.float32))


def test_square_gradient_is_two_x():
    x = mg.Variable(np.array([-3.0, 0.0, 2.0]))
    F.sum(F.square(x)).backward()
    np.testing.assert_array_equal(x.grad, [-6.0, 0.0, 4.0])


def test_sqrt_of_negative_is_nan_like_numpy():
    with pytest.warns(RuntimeWarning):
        assert np.isnan(F.sqrt(np.array([-1.0])).array).all()
