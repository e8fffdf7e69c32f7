"""diagonal: numpy.diagonal's semantics for every offset and axis pair, gradients scatter back, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import check_backward, check_double_backward


@pytest.mark.parametrize("offset", [-4, -2, -1, 0, 1, 3, 4, 7])
@pytest.mark.parametrize("axis1, axis2", [(0, 1), (1, 0), (0, 2), (2, 1), (-1, -2)])
def test_matches_numpy_diagonal(offset, axis1, axis2):
    x = np.arange(60.0).reshape(3, 4, 5)
    y = F.diagonal(x, offset, axis1, axis2)
    np.testing.assert_array_equal(y.array, np.diagonal(x, offset, axis1, axis2))


def test_defaults_are_the_main_diagonal_of_the_first_two_axes():
    x = np.arange(9.0).reshape(3, 3)
    np.testing.assert_array_equal(F.diagonal(x).array, [0.0, 4.0, 8.0])
    np.testing.assert_array_equal(F.diagonal(x, offset=-1).array, [3.0, 7.0])


def test_gradient_lands_on_the_diagonal_only():
    x = mg.Variable(np.zeros((3, 4)))
    y = F.diagonal(x, offset=1)
    y.grad = np.array([1.0, 2.0, 3.0])
    y.backward()
    expected = np.zeros((3, 4))
    expected[0, 1], expected[1, 2], expected[2, 3] = 1.0, 2.0, 3.0
    np.testing.assert_array_equal(x.grad, expected)


def test_trace_by_diagonal_sum_and_second_order():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 3))
    np.testing.assert_allclose(F.sum(F.diagonal(x, 0, 1, 2), axis=1).array, np.trace(x, axis1=1, axis2=2))
    f = lambda v: F.diagonal(v, -1, 2, 1) ** 2  # noqa: E731
    gy = rng.standard_normal((2, 2))
    check_backward(f, (x,), gy, seed=0)
    check_double_backward(f, (x,), gy, (rng.standard_normal(x.shape),), seed=0)


def test_result_is_a_copy_and_non_contiguous_input():
    base = np.arange(32.0).reshape(4, 8)
    x = base[:, ::2]  # strided view (4, 4)
    y = F.diagonal(x)
    np.testing.assert_array_equal(y.array, [0.0, 10.0, 20.0, 30.0])
    y.array[0] = -1.0
    assert base[0, 0] == 0.0


def test_offset_past_the_edge_is_empty():
    y = F.diagonal(np.ones((2, 3)), offset=3)
    assert y.shape == (0,)


def test_float16_stays_float16():
    x = mg.Variable(np.eye(3, dtype=np.float16))
    y = F.diagonal(x)
    F.sum(y).backward()
    assert y.dtype == x.grad.dtype == np.float16


def test_errors_name_the_function_and_shape():
    with pytest.raises(ValueError, match=r"diagonal: x must have at least 2 dimensions, got shape \(3,\)"):
        F.diagonal(np.ones(3))
    with pytest.raises(ValueError, match=r"diagonal: axis1 and axis2 must be different axes, both are 1"):
        F.diagonal(np.ones((2, 3)), axis1=1, axis2=-1)
    with pytest.raises(ValueError, match=r"diagonal: axis2=2 is out of range for an input of shape \(2, 3\)"):
        F.diagonal(np.ones((2, 3)), axis2=2)
    with pytest.raises(TypeError, match="diagonal: offset must be an int, got float"):
        F.diagonal(np.ones((2, 3)), offset=1.0)
    with pytest.raises(TypeError, match="diagonal: x must be"):
        F.diagonal([[1.0]])
