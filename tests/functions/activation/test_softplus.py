"""softplus: no overflow for large inputs, beta, the sigmoid derivative."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_large_inputs_do_not_overflow(dtype):
    x = np.array([-1e4, 0.0, 1e4]).astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = F.softplus(x)
    assert y.dtype == dtype
    np.testing.assert_allclose(y.array.astype(np.float64), [0.0, np.log(2), 1e4], rtol=1e-3)


def test_beta_sharpens_and_the_gradient_is_a_sigmoid_of_beta_x():
    x = mg.Variable(np.array([-1.0, 0.5]))
    y = F.softplus(x, beta=3.0)
    np.testing.assert_allclose(y.array, np.log1p(np.exp(3.0 * x.array)) / 3.0, rtol=1e-15)
    F.sum(y).backward()
    np.testing.assert_allclose(x.grad, 1 / (1 + np.exp(-3.0 * x.array)), rtol=1e-15)


@pytest.mark.parametrize("beta", [0.0, -1.0])
def test_beta_must_be_positive(beta):
    with pytest.raises(ValueError, match=rf"softplus: beta must be a positive number, got {beta}"):
        F.softplus(np.ones(2), beta=beta)


def test_beta_may_be_a_0d_numpy_array_as_chainer_tests_pass_it():
    # Chainer's test draws beta = numpy.random.uniform(1, 2, ()), a 0-d array; minigrad refused it
    x = np.array([-1.0, 0.5])
    np.testing.assert_allclose(F.softplus(x, beta=np.array(2.0)).array, F.softplus(x, beta=2.0).array)
    with pytest.raises(TypeError, match="softplus: beta must be a real number, got ndarray"):
        F.softplus(x, beta=np.array([2.0]))
