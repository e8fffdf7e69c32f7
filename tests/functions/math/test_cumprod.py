"""F.cumprod: values with zeros and negatives, gradients at a zero (where dividing by x fails), errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import check_backward, check_double_backward


def test_running_products_along_an_axis_and_flattened():
    x = np.array([[2.0, -1.0, 0.0, 3.0], [0.5, 4.0, 2.0, -1.0]])
    np.testing.assert_array_equal(F.cumprod(x, axis=1).array, np.cumprod(x, axis=1))
    np.testing.assert_array_equal(F.cumprod(x, axis=-2).array, np.cumprod(x, axis=0))
    np.testing.assert_array_equal(F.cumprod(x).array, np.cumprod(x))
    assert F.cumprod(np.ones((2, 0)), axis=1).shape == (2, 0) and F.cumprod(np.ones((3, 1)), 1).shape == (3, 1)


def test_the_gradient_at_a_zero_is_the_product_of_the_others():
    x = mg.Variable(np.array([2.0, 0.0, 3.0]))
    F.sum(F.cumprod(x)).backward()
    # y = (x0, x0 x1, x0 x1 x2): d/dx1 = x0 + x0 x2 = 2 + 6
    np.testing.assert_array_equal(x.grad, [1.0, 8.0, 0.0])
    check_backward(F.cumprod, (np.array([1.5, 0.0, -2.0, 0.5]),), np.array([0.3, -1.0, 0.7, 1.1]))
    check_double_backward(F.cumprod, (np.array([1.5, 0.0, -2.0]),), np.array([0.3, -1.0, 0.7]),
                          (np.array([0.2, 0.4, -0.6]),))


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.cumprod(np.ones((2, 3)), axis=2), ValueError, "cumprod: axis=2 is out of range"),
    (lambda: F.cumprod(np.ones(3, np.int32)), TypeError, "cumprod: x must have a floating-point dtype"),
])
def test_bad_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()
