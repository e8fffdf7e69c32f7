"""logsumexp: stable for large values, exact at -inf, softmax gradient."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import check_backward, check_double_backward


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_large_values_do_not_overflow(dtype):
    x = np.array([[1e4, 1e4 + 1.0, 1e4 - 2.0], [-1e4, -1e4, -1e4]], dtype=dtype)
    v = mg.Variable(x)
    y = F.logsumexp(v, axis=1)
    shift = x.astype(np.float64).max(axis=1)
    expected = shift + np.log(np.exp(x.astype(np.float64) - shift[:, None]).sum(axis=1))
    np.testing.assert_allclose(y.array, expected, rtol=1e-6)
    F.sum(y).backward()
    softmax = np.exp(x - expected[:, None].astype(dtype))
    np.testing.assert_allclose(v.grad, softmax / softmax.sum(axis=1, keepdims=True), rtol=1e-5)
    assert np.isfinite(v.grad).all()


def test_large_values_pass_numerical_checks():
    x = np.random.default_rng(0).uniform(700.0, 705.0, (3, 4))  # exp(x) overflows float64 here
    gy = np.random.default_rng(1).standard_normal(4)
    check_backward(lambda v: F.logsumexp(v, axis=0), (x,), gy, seed=0)
    check_double_backward(lambda v: F.logsumexp(v, axis=0), (x,), gy, np.ones((3, 4)), seed=0)


@pytest.mark.filterwarnings("ignore:divide by zero encountered in log")  # log(0) = -inf is the answer
def test_minus_infinity_entries_and_groups():
    x = np.array([[0.0, -np.inf], [-np.inf, -np.inf]])
    np.testing.assert_array_equal(F.logsumexp(x, axis=1).array, [0.0, -np.inf])


@pytest.mark.parametrize("axis", [None, 0, (1, 2), -1])
def test_matches_naive_formula_on_small_values(axis):
    x = np.random.default_rng(2).standard_normal((2, 3, 4))
    np.testing.assert_allclose(F.logsumexp(x, axis=axis).array, np.log(np.exp(x).sum(axis=axis)), rtol=1e-14)


def test_bad_arguments():
    with pytest.raises(ValueError, match="logsumexp: axis=2 is out of range"):
        F.logsumexp(np.ones((2, 3)), axis=2)
    with pytest.raises(ValueError, match=r"logsumexp: cannot reduce over an empty axis \(input shape \(2, 0\)"):
        F.logsumexp(np.ones((2, 0)), axis=1)
    with pytest.raises(TypeError, match="logsumexp: x must have a floating-point dtype"):
        F.logsumexp(np.arange(3))
