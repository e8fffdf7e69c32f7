"""sigmoid, hard_sigmoid, swish: saturation without overflow, swish's beta broadcasting, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_sigmoid_saturates_without_overflow(dtype):
    x = np.array([-1e4, -30.0, 0.0, 30.0, 1e4]).astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = F.sigmoid(x)
    assert y.dtype == dtype
    np.testing.assert_allclose(y.array.astype(np.float64), [0.0, 0.0, 0.5, 1.0, 1.0], atol=1e-7)


def test_hard_sigmoid_values_and_slope():
    x = mg.Variable(np.array([-3.0, -1.0, 0.0, 2.0, 3.0]))
    y = F.hard_sigmoid(x)
    np.testing.assert_allclose(y.array, [0.0, 0.3, 0.5, 0.9, 1.0])
    F.sum(y).backward()
    np.testing.assert_allclose(x.grad, [0.0, 0.2, 0.2, 0.2, 0.0])


def test_swish_beta_broadcasts_from_axis_one_and_its_gradient_is_summed_back():
    rng = np.random.default_rng(0)
    x = mg.Variable(rng.uniform(-2, 2, size=(2, 3, 4)))
    beta = mg.Variable(rng.uniform(0.5, 2, size=(3,)))
    y = F.swish(x, beta)
    b = beta.array[None, :, None]
    expected = x.array / (1 + np.exp(-b * x.array))
    np.testing.assert_allclose(y.array, expected, rtol=1e-14)
    F.sum(y).backward()
    s = 1 / (1 + np.exp(-b * x.array))
    np.testing.assert_allclose(beta.grad, (x.array ** 2 * s * (1 - s)).sum(axis=(0, 2)), rtol=1e-12)
    np.testing.assert_allclose(x.grad, s + b * x.array * s * (1 - s), rtol=1e-12)


def test_swish_with_two_dimensional_beta():
    x = np.ones((2, 3, 4))
    beta = np.full((3, 4), 0.0)
    np.testing.assert_allclose(F.swish(x, beta).array, 0.5 * x)


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.swish(np.ones((2, 3)), np.ones(2)), ValueError,
     r"swish: beta must have shape x.shape\[1:1 \+ beta.ndim\]; got beta of shape \(2,\) for x of shape \(2, 3\)"),
    (lambda: F.swish(np.ones(3), np.ones(3)), ValueError, r"swish: beta must have shape"),
    (lambda: F.swish(np.ones((2, 3)), np.ones(3, dtype=np.float32)), TypeError,
     r"swish: beta must have x's dtype float64, got float32"),
    (lambda: F.swish(np.ones((2, 3)), np.ones(3, dtype=np.int32)), TypeError,
     r"swish: beta must have a floating-point dtype"),
    (lambda: F.sigmoid(np.ones(2, dtype=bool)), TypeError, r"sigmoid: x must have a floating-point dtype, got bool"),
])
def test_bad_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()
