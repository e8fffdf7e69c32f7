"""average and mean: semantics vs NumPy, weights, and bad arguments."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import check_backward


@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_mean_and_unweighted_average_match_numpy(axis, keepdims):
    x = np.random.default_rng(0).standard_normal((2, 3, 4))
    expected = np.mean(x, axis=axis, keepdims=keepdims)
    np.testing.assert_allclose(F.mean(x, axis=axis, keepdims=keepdims).array, expected, rtol=1e-14)
    np.testing.assert_allclose(F.average(x, axis=axis, keepdims=keepdims).array, expected, rtol=1e-14)


def test_weighted_average_gradients_reach_x_and_weights():
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((3, 4)), rng.uniform(0.5, 2.0, 4)
    np.testing.assert_allclose(F.average(x, axis=1, weights=w).array, np.average(x, axis=1, weights=w))
    check_backward(lambda a, b: F.average(a, axis=1, weights=b), (x, w), rng.standard_normal(3), seed=0)


def test_weights_of_x_shape_with_keepdims():
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal((2, 3)), rng.uniform(0.5, 2.0, (2, 3))
    y = F.average(x, axis=0, weights=w, keepdims=True)
    np.testing.assert_allclose(y.array, np.average(x, axis=0, weights=w, keepdims=True))


@pytest.mark.parametrize("axis, weights", [(1, np.ones(2)), ((0, 1), np.ones(3)), (None, np.ones(3))])
def test_weights_that_do_not_fit_name_the_shapes(axis, weights):
    with pytest.raises(ValueError, match=r"average: weights of shape \(\d,\) do not fit x of shape \(2, 3\)"):
        F.average(np.ones((2, 3)), axis=axis, weights=weights)


def test_weights_summing_to_zero_are_an_error():
    with pytest.raises(ValueError, match="average: weights sum to zero"):
        F.average(np.ones((2, 3)), axis=1, weights=np.array([1.0, -1.0, 0.0]))


def test_bad_inputs_name_the_right_op():
    with pytest.raises(TypeError, match="mean: x must have a floating-point dtype"):
        F.mean(np.arange(3))
    with pytest.raises(TypeError, match="average: weights must have a floating-point dtype"):
        F.average(np.ones(3), weights=np.arange(3))
    with pytest.raises(ValueError, match="mean: axis=3 is out of range"):
        F.mean(np.ones((2, 3)), axis=3)
    with pytest.raises(ValueError, match="mean: cannot average over an empty axis"):
        F.mean(np.ones((2, 0)), axis=1)


def test_mean_keeps_float16():
    x = mg.Variable(np.ones((2, 3), dtype=np.float16))
    y = F.mean(x)
    y.backward()
    assert y.dtype == x.grad.dtype == np.float16


@pytest.mark.parametrize("call", [lambda x: F.mean(x), lambda x: F.mean(x, axis=0), lambda x: F.average(x)],
                         ids=["mean", "mean axis=0", "average"])
def test_a_long_float16_mean_is_summed_in_float32_as_numpy_does(call):
    # 100,000 ones sum to more than float16's largest value (65504): summed in float16 the mean is inf
    data = np.full((100000, 2), 1.5, dtype=np.float16)
    x = mg.Variable(data)
    y = call(x)
    expected = np.mean(data, axis=0 if y.ndim else None)
    assert y.dtype == np.float16 and np.isfinite(y.array).all()
    np.testing.assert_array_equal(y.array, expected)
    F.sum(y).backward()
    assert x.grad.dtype == np.float16
    # 1/n is below float16's normal range here: the gradient, divided in float32, is its nearest float16
    np.testing.assert_array_equal(x.grad, np.float16(np.float32(1) / np.float32(data.size // y.size)))


def test_a_float16_weighted_average_multiplies_and_sums_in_float32():
    # 300 * 300 is past float16's largest value (65504): multiplied in float16 the average is inf
    x = mg.Variable(np.array([300.0, 100.0, 200.0], dtype=np.float16))
    w = mg.Variable(np.array([300.0, 200.0, 100.0], dtype=np.float16))
    y = F.average(x, weights=w)
    expected = np.average(x.array.astype(np.float64), weights=w.array.astype(np.float64))
    assert y.dtype == np.float16
    np.testing.assert_allclose(y.array, expected, rtol=1e-3)
    y.backward()
    assert x.grad.dtype == w.grad.dtype == np.float16
    np.testing.assert_allclose(x.grad, w.array.astype(np.float64) / 600.0, rtol=1e-3)
    np.testing.assert_allclose(w.grad, (x.array.astype(np.float64) - expected) / 600.0, rtol=1e-2, atol=1e-4)
