"""softmax and log_softmax: stability on large inputs, axes, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_large_scores_neither_overflow_nor_lose_the_small_probabilities(dtype):
    x = np.array([[1000.0, 990.0, -1000.0]]).astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = F.softmax(x)
        log_y = F.log_softmax(x)
    assert y.dtype == dtype and log_y.dtype == dtype
    np.testing.assert_allclose(y.array.astype(np.float64).sum(axis=1), 1.0, rtol=1e-3)
    np.testing.assert_allclose(log_y.array.astype(np.float64), [[-4.54e-5, -10.0000454, -2000.0]],
                               rtol=2e-3, atol=1e-4)


def test_the_default_axis_is_one_and_any_axis_works():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4))
    np.testing.assert_allclose(F.softmax(x).array.sum(axis=1), np.ones((2, 4)))
    np.testing.assert_allclose(F.softmax(x, axis=-1).array.sum(axis=-1), np.ones((2, 3)))
    np.testing.assert_allclose(np.exp(F.log_softmax(x, axis=0).array).sum(axis=0), np.ones((3, 4)))


def test_gradients_match_the_closed_forms():
    rng = np.random.default_rng(1)
    x = mg.Variable(rng.standard_normal((2, 3)))
    gy = rng.standard_normal((2, 3))
    y = F.softmax(x)
    gx, = mg.grad([y], [x], [mg.Variable(gy)])
    s = y.array
    np.testing.assert_allclose(gx.array, s * (gy - (s * gy).sum(axis=1, keepdims=True)), rtol=1e-13)
    gx, = mg.grad([F.log_softmax(x)], [x], [mg.Variable(gy)])
    np.testing.assert_allclose(gx.array, gy - s * gy.sum(axis=1, keepdims=True), rtol=1e-13)


@pytest.mark.parametrize("function", [F.softmax, F.log_softmax])
def test_bad_axis_names_the_op(function):
    name = function.__name__
    with pytest.raises(ValueError, match=rf"{name}: axis=2 is out of range for an input with 2 dimensions"):
        function(np.ones((2, 3)), axis=2)
    with pytest.raises(ValueError, match=rf"{name}: axis=1 is out of range for an input with 1 dimensions"):
        function(np.ones(3))
    with pytest.raises(TypeError, match=rf"{name}: axis must be an int, got float"):
        function(np.ones((2, 3)), axis=1.0)
