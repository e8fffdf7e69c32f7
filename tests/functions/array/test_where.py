"""where: semantics vs numpy.where, broadcast gradients, bad-input errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


@pytest.mark.parametrize("shapes", [((2, 3), (2, 3), (2, 3)), ((2, 1, 3), (4, 1), (3,)), ((3,), (2, 3), ())])
def test_where_matches_numpy(shapes):
    rng = np.random.default_rng(0)
    c = rng.uniform(size=shapes[0]) < 0.5
    a, b = rng.standard_normal(shapes[1]), rng.standard_normal(shapes[2])
    np.testing.assert_array_equal(F.where(c, a, b).array, np.where(c, a, b))


def test_where_gradients_reduce_over_broadcast_axes():
    c = np.array([[True, False, True], [False, False, True]])
    x = mg.Variable(np.zeros(3))
    y = mg.Variable(np.zeros((2, 1)))
    out = F.where(c, x, y)
    assert out.shape == (2, 3)
    out.grad = np.arange(1.0, 7.0).reshape(2, 3)
    out.backward()
    np.testing.assert_array_equal(x.grad, [1.0, 0.0, 3.0 + 6.0])
    np.testing.assert_array_equal(y.grad, [[2.0], [4.0 + 5.0]])


def test_condition_larger_than_both_operands():
    x, y = mg.Variable(np.array([1.0])), mg.Variable(np.array([2.0]))
    out = F.where(np.array([True, True, False]), x, y)
    out.grad = np.ones(3)
    out.backward()
    assert x.grad.tolist() == [2.0] and y.grad.tolist() == [1.0]


def test_python_scalar_takes_the_other_dtype():
    x = mg.Variable(np.ones(2, np.float32))
    assert F.where(np.array([True, False]), x, 0.0).dtype == np.float32
    np.testing.assert_array_equal(F.where(np.array([True, False]), 2.0, x).array, [2.0, 1.0])


def test_condition_variable_gets_no_gradient():
    c = mg.Variable(np.array([True, False]))
    x = mg.Variable(np.ones(2))
    out = F.where(c, x, x * 2)
    assert out.requires_grad and not c.requires_grad


def test_where_errors():
    with pytest.raises(TypeError, match=r"where: condition must be a boolean array, got dtype int64 \(shape \(2,\)\)"):
        F.where(np.array([1, 0]), np.zeros(2), np.zeros(2))
    with pytest.raises(TypeError, match="where: condition must be a boolean"):
        F.where(np.array([0.5, 1.0]), np.zeros(2), np.zeros(2))
    with pytest.raises(ValueError, match=r"where: operands could not be broadcast together: "
                                         r"shapes \(2,\), \(3,\), \(2,\)"):
        F.where(np.array([True, False]), np.zeros(3), np.zeros(2))
    with pytest.raises(TypeError, match="where: y must be a numpy.ndarray"):
        F.where(np.array([True]), 1.0, 2.0)
