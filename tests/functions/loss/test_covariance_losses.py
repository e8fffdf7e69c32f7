"""decov and cross_covariance: hand-checked values and gradients, Chainer's reduce modes, edge cases, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


def _covariance_by_hand(a, b):
    return (a - a.mean(axis=0)).T @ (b - b.mean(axis=0)) / len(a)


_Y = np.array([[1.0, 2.0, 0.5], [0.0, -1.0, 1.5], [2.0, 0.5, -1.0], [-1.0, 1.0, 0.0]])
_Z = np.array([[0.5, 1.0], [1.5, -0.5], [0.0, 2.0], [-2.0, 0.0]])


def test_cross_covariance_values_and_gradient():
    c = _covariance_by_hand(_Y, _Z)
    matrix = F.cross_covariance(_Y, _Z, reduce="no")
    assert matrix.shape == (3, 2)
    np.testing.assert_allclose(matrix.array, c)
    y, z = mg.Variable(_Y), mg.Variable(_Z)
    loss = F.cross_covariance(y, z)
    np.testing.assert_allclose(loss.array, 0.5 * (c ** 2).sum())
    loss.backward()
    # L = |C|^2 / 2 with C = yc.T zc / N: dL/dy = zc C.T / N (zc's columns already sum to 0), and symmetrically
    np.testing.assert_allclose(y.grad, (_Z - _Z.mean(axis=0)) @ c.T / 4)
    np.testing.assert_allclose(z.grad, (_Y - _Y.mean(axis=0)) @ c / 4)


def test_decov_is_the_off_diagonal_self_covariance():
    c = _covariance_by_hand(_Y, _Y)
    np.fill_diagonal(c, 0.0)
    np.testing.assert_allclose(F.decov(_Y, reduce="no").array, c)
    h = mg.Variable(_Y)
    loss = F.decov(h)
    np.testing.assert_allclose(loss.array, 0.5 * (c ** 2).sum())
    loss.backward()
    np.testing.assert_allclose(h.grad, 2 * (_Y - _Y.mean(axis=0)) @ c / 4)  # C symmetric: both factors of h
    # the diagonal (variances) is not penalized: columns that are uncorrelated give 0 however large
    np.testing.assert_allclose(F.decov(np.array([[10.0, 1.0], [-10.0, 1.0], [10.0, -1.0], [-10.0, -1.0]])).array,
                               0.0)


def test_one_sample_has_no_covariance_and_float16_keeps_its_dtype():
    np.testing.assert_array_equal(F.cross_covariance(_Y[:1], _Z[:1], reduce="no").array, np.zeros((3, 2)))
    assert F.decov(_Y.astype(np.float16)).dtype == np.float16
    assert F.cross_covariance(_Y.astype(np.float16), _Z.astype(np.float16), reduce="no").dtype == np.float16


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.decov(np.zeros(3)), ValueError, r"decov: h must have 2 dimensions, got shape \(3,\)"),
    (lambda: F.decov(np.zeros((2, 2)), reduce="mean"), ValueError,
     r"decov: reduce must be one of 'half_squared_sum', 'no', got 'mean'"),
    (lambda: F.decov(np.zeros((0, 2))), ValueError, r"decov: h must hold at least one sample"),
    (lambda: F.decov(np.zeros((2, 2), dtype=np.int32)), TypeError, r"decov: h must have a floating-point dtype"),
    (lambda: F.cross_covariance(_Y, _Z[:3]), ValueError,
     r"cross_covariance: y and z must have the same batch size \(axis 0\), got shapes \(4, 3\) and \(3, 2\)"),
    (lambda: F.cross_covariance(_Y, _Z.astype(np.float32)), TypeError,
     r"cross_covariance: y and z must have the same dtype, got float64 and float32"),
    (lambda: F.cross_covariance(_Y, np.zeros(4)), ValueError, r"cross_covariance: z must have 2 dimensions"),
    (lambda: F.cross_covariance(_Y, _Z, reduce="sum"), ValueError, r"cross_covariance: reduce must be one of"),
    (lambda: F.cross_covariance(np.zeros((0, 2)), np.zeros((0, 1))), ValueError,
     r"cross_covariance: y must hold at least one sample"),
])
def test_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()
