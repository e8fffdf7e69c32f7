"""select_item: semantics, gradient, bad-input errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8])
def test_select_item_picks_one_per_row(dtype):
    a = np.arange(12.0).reshape(4, 3)
    t = np.array([2, 0, 1, 2], dtype=dtype)
    np.testing.assert_array_equal(F.select_item(a, t).array, [2.0, 3.0, 7.0, 11.0])
    np.testing.assert_array_equal(F.select_item(a, mg.Variable(t)).array, [2.0, 3.0, 7.0, 11.0])


def test_select_item_gradient_is_one_hot():
    x = mg.Variable(np.zeros((3, 2)))
    y = F.select_item(x, np.array([1, 1, 0]))
    y.grad = np.array([1.0, 2.0, 3.0])
    y.backward()
    np.testing.assert_array_equal(x.grad, [[0.0, 1.0], [0.0, 2.0], [3.0, 0.0]])


def test_select_item_empty_batch():
    assert F.select_item(np.zeros((0, 3)), np.zeros(0, np.int32)).shape == (0,)


def test_select_item_errors():
    x = np.zeros((2, 3))
    with pytest.raises(ValueError, match=r"select_item: t has values outside \[0, 3\) \(min 0, max 3\) "
                                         r"for x of shape \(2, 3\)"):
        F.select_item(x, np.array([0, 3]))
    with pytest.raises(ValueError, match=r"select_item: t has values outside \[0, 3\) \(min -1"):
        F.select_item(x, np.array([-1, 0]))
    with pytest.raises(TypeError, match="select_item: t must have an integer dtype, got float64"):
        F.select_item(x, np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match=r"select_item: x must have shape \(B, K\) and t shape \(B,\); "
                                         r"got x of shape \(2, 3\) and t of shape \(3,\)"):
        F.select_item(x, np.array([0, 1, 2]))
    with pytest.raises(ValueError, match=r"x of shape \(2, 3, 1\)"):
        F.select_item(np.zeros((2, 3, 1)), np.array([0, 1]))
    with pytest.raises(TypeError, match="select_item: t must be a numpy.ndarray"):
        F.select_item(x, [0, 1])
