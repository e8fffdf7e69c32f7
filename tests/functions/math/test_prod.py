"""prod: the gradient is exact where x has zeros (never y / x), to first and second order."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import check_backward, check_double_backward


def _products_of_others(x):
    """Independent reference: for each i, the product of all x[j] with j != i (naive loop)."""
    out = np.empty_like(x)
    for i in range(x.size):
        out[i] = np.prod(np.delete(x, i))
    return out


@pytest.mark.parametrize("n", [1, 2, 3, 5, 7, 8])
@pytest.mark.parametrize("zeros", [0, 1, 2, 3])
def test_gradient_with_zeros_equals_the_products_of_the_others(n, zeros):
    rng = np.random.default_rng(n * 10 + zeros)
    x = rng.uniform(0.5, 1.5, n) * rng.choice([-1, 1], n)
    x[rng.permutation(n)[:zeros]] = 0.0
    v = mg.Variable(x)
    F.prod(v).backward()
    np.testing.assert_allclose(v.grad, _products_of_others(x), rtol=1e-14, atol=0)


@pytest.mark.parametrize("zero_positions", [[(0, 1)], [(1, 0), (1, 2)], [(0, 0), (1, 1), (2, 2)]])
def test_zeros_pass_first_and_second_order_numerical_checks(zero_positions):
    rng = np.random.default_rng(3)
    x = rng.uniform(0.5, 1.5, (3, 5))
    for position in zero_positions:
        x[position] = 0.0
    for axis, keepdims in itertools.product([None, 0, 1, (0, 1)], [False, True]):
        y_shape = np.prod(x, axis=axis, keepdims=keepdims).shape

        def f(v, axis=axis, keepdims=keepdims):
            return F.prod(v, axis=axis, keepdims=keepdims)

        gy = rng.standard_normal(y_shape)
        check_backward(f, (x,), gy, seed=0)
        check_double_backward(f, (x,), gy, rng.standard_normal(x.shape), seed=1)


def test_long_product_gradient_matches_reference():
    rng = np.random.default_rng(4)
    x = rng.uniform(0.9, 1.1, 1000)
    x[[10, 500]] = 0.0
    v = mg.Variable(x)
    F.prod(v).backward()
    np.testing.assert_allclose(v.grad, _products_of_others(x), rtol=1e-12, atol=0)


def test_forward_matches_numpy_and_keeps_float16():
    x = np.random.default_rng(5).uniform(0.5, 1.5, (2, 3, 4)).astype(np.float16)
    np.testing.assert_array_equal(F.prod(x, axis=(0, 2)).array, np.prod(x, axis=(0, 2)))
    assert F.prod(x).dtype == np.float16


def test_bad_axis():
    with pytest.raises(ValueError, match="prod: axis=-4 is out of range for an input with 3 dimensions"):
        F.prod(np.ones((2, 3, 4)), axis=-4)
