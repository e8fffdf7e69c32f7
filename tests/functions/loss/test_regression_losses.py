"""mean_squared_error, mean_absolute_error, squared_error, huber_loss: values, float16, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


def test_values_and_gradients():
    a = mg.Variable(np.array([[1.0, -2.0], [0.5, 3.0]]))
    b = mg.Variable(np.array([[0.0, 1.0], [0.5, 1.0]]))
    d = a.array - b.array
    np.testing.assert_allclose(F.mean_squared_error(a, b).array, (d ** 2).mean())
    np.testing.assert_allclose(F.squared_error(a, b).array, d ** 2)
    np.testing.assert_allclose(F.mean_absolute_error(a, b).array, abs(d).mean())
    F.mean_squared_error(a, b).backward()
    np.testing.assert_allclose(a.grad, d / 2)
    np.testing.assert_allclose(b.grad, -d / 2)


def test_float16_losses_accumulate_without_overflow():
    # 10,000 squared errors of 100**2: the sum (1e8) overflows float16, the mean (1e4) does not
    x = np.full((100, 100), 100.0, dtype=np.float16)
    zero = np.zeros_like(x)
    mse = F.mean_squared_error(x, zero)
    mae = F.mean_absolute_error(x, zero)
    assert mse.dtype == mae.dtype == np.float16
    np.testing.assert_allclose(float(mse.array), 1e4, rtol=1e-3)
    np.testing.assert_allclose(float(mae.array), 100.0, rtol=1e-3)
    # many small errors: a float16 running sum would stall far below the true mean
    small = np.full(40000, 0.01, dtype=np.float16)
    np.testing.assert_allclose(float(F.mean_absolute_error(small, np.zeros_like(small)).array), 0.01, rtol=1e-3)


def test_huber_loss_matches_the_piecewise_definition():
    x = mg.Variable(np.array([[0.5, 3.0, -2.0], [0.0, -0.25, 1.5]]))
    t = np.zeros((2, 3))
    y = F.huber_loss(x, t, delta=1.0)
    np.testing.assert_allclose(y.array, [0.125 + 2.5 + 1.5, 0.0 + 0.03125 + 1.0])
    F.sum(y).backward()
    np.testing.assert_allclose(x.grad, [[0.5, 1.0, -1.0], [0.0, -0.25, 1.0]])
    each = F.huber_loss(x, t, delta=2.0, reduce="no")
    np.testing.assert_allclose(each.array, [[0.125, 4.0, 2.0], [0.0, 0.03125, 1.125]])


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.mean_squared_error(np.ones((2, 3)), np.ones((3, 2))), ValueError,
     r"mean_squared_error: x0 and x1 must have the same shape, got \(2, 3\) and \(3, 2\)"),
    (lambda: F.mean_absolute_error(np.ones(2), np.ones(2, dtype=np.float32)), TypeError,
     r"mean_absolute_error: x0 and x1 must have the same dtype, got float64 and float32"),
    (lambda: F.squared_error(np.ones(2), np.ones(2, dtype=np.int64)), TypeError,
     r"squared_error: x1 must have a floating-point dtype, got int64"),
    (lambda: F.huber_loss(np.ones((2, 2)), np.ones((2, 1)), 1.0), ValueError,
     r"huber_loss: x and t must have the same shape, got \(2, 2\) and \(2, 1\)"),
    (lambda: F.huber_loss(np.ones((2, 2)), np.ones((2, 2)), 0.0), ValueError,
     r"huber_loss: delta must be a positive number, got 0.0"),
    (lambda: F.huber_loss(np.ones(2), np.ones(2), 1.0), ValueError,
     r"huber_loss: reduce='sum_along_second_axis' needs x with at least 2 dimensions, got shape \(2,\)"),
    (lambda: F.huber_loss(np.ones((2, 2)), np.ones((2, 2)), 1.0, reduce="mean"), ValueError,
     r"huber_loss: reduce must be one of 'sum_along_second_axis', 'no', got 'mean'"),
])
def test_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()
