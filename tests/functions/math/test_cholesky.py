"""F.cholesky: a hand-checked factor, L L^T = A, the symmetric gradient against numerical derivatives (first
and second order), float16 through float32, and the matrices it refuses."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import check_backward, check_double_backward


def _spd(n, seed=0):
    b = np.random.default_rng(seed).standard_normal((n, n))
    return b @ b.T + n * np.eye(n)


def test_the_factor_is_lower_triangular_and_reproduces_a():
    np.testing.assert_array_equal(F.cholesky(np.array([[4.0, 2.0], [2.0, 5.0]])).array, [[2.0, 0.0], [1.0, 2.0]])
    a = _spd(4)
    lower = F.cholesky(a).array
    np.testing.assert_array_equal(lower, np.tril(lower))
    np.testing.assert_allclose(lower @ lower.T, a, rtol=1e-14)
    assert F.cholesky(a.astype(np.float16)).dtype == np.float16


def test_the_gradient_for_a_symmetric_perturbation():
    # L = sqrt(a) for 1x1: dL/da = 1 / (2 sqrt(a))
    a = mg.Variable(np.array([[4.0]]))
    F.sum(F.cholesky(a)).backward()
    np.testing.assert_allclose(a.grad, [[0.25]])
    symmetric = lambda a: F.cholesky(0.5 * (a + a.T))  # noqa: E731 (the checker perturbs a in every direction)
    rng = np.random.default_rng(1)
    check_backward(symmetric, (_spd(3),), rng.standard_normal((3, 3)))
    check_double_backward(symmetric, (_spd(3),), rng.standard_normal((3, 3)), (rng.standard_normal((3, 3)),))
    a = mg.Variable(_spd(3))
    F.sum(F.cholesky(a) * rng.standard_normal((3, 3))).backward()
    np.testing.assert_allclose(a.grad, a.grad.T, rtol=1e-14)  # the gradient is symmetric, as Chainer's


@pytest.mark.parametrize("a, message", [
    (np.array([[1.0, 2.0], [0.0, 5.0]]), "cholesky: a is not symmetric"),
    (np.array([[1.0, 2.0], [2.0, 1.0]]), "cholesky: a is not positive definite"),
    (np.ones((2, 3)), r"cholesky: a must be a square matrix \(n, n\), got shape \(2, 3\)"),
    (np.ones((2, 2, 2)), "cholesky: a must be a square matrix"),
])
def test_refused_matrices(a, message):
    with pytest.raises(ValueError, match=message):
        F.cholesky(a)


def test_rounding_asymmetry_is_accepted_and_nan_passes_through():
    a = _spd(3)
    a[0, 1] += 1e-15
    np.testing.assert_allclose(F.cholesky(a).array, np.linalg.cholesky(a), rtol=1e-12)
    assert np.isnan(F.cholesky(np.array([[np.nan, 1.0], [1.0, 2.0]])).array).any()
