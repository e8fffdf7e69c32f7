"""inv, batch_inv, det, batch_det: cross-checks, Chainer's shapes and errors, singular inputs, dtypes, views."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import check_backward, check_double_backward


def _near_identity(rng, shape, noise=0.3):
    return np.eye(shape[-1]) + rng.uniform(-noise, noise, size=shape)


def _lu_det(a):
    """Determinant by Doolittle LU with partial pivoting, written out: the sign of the row swaps times prod(diag U)."""
    u, sign = a.astype(np.float64).copy(), 1.0
    n = len(u)
    for col in range(n):
        pivot = col + int(np.argmax(np.abs(u[col:, col])))
        if pivot != col:
            u[[col, pivot]], sign = u[[pivot, col]], -sign
        for row in range(col + 1, n):
            u[row] -= u[row, col] / u[col, col] * u[col]
    return sign * np.prod(np.diag(u))


def test_det_of_2x2_and_3x3_by_hand():
    a = np.array([[3.0, 8.0], [4.0, 6.0]])
    assert F.det(a).array == pytest.approx(3 * 6 - 8 * 4)
    b = np.array([[6.0, 1.0, 1.0], [4.0, -2.0, 5.0], [2.0, 8.0, 7.0]])
    by_hand = 6 * (-2 * 7 - 5 * 8) - 1 * (4 * 7 - 5 * 2) + 1 * (4 * 8 - (-2) * 2)  # cofactors along row 0
    assert by_hand == -306
    assert F.det(b).array == pytest.approx(by_hand)
    assert _lu_det(b) == pytest.approx(by_hand)


def test_batch_det_matches_lu_and_eigenvalue_products():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 5, 5))
    d = F.batch_det(a)
    assert d.shape == (4,)
    np.testing.assert_allclose(d.array, [_lu_det(m) for m in a], rtol=1e-10)
    np.testing.assert_allclose(d.array, np.prod(np.linalg.eigvals(a), axis=-1).real, rtol=1e-8)
    assert F.det(a[1]).shape == ()
    np.testing.assert_allclose(F.det(a[1]).array, d.array[1], rtol=1e-12)


def test_inverse_times_matrix_is_identity_both_sides():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 4, 4)) + 4 * np.eye(4)
    y = F.batch_inv(a).array
    np.testing.assert_allclose(y @ a, np.broadcast_to(np.eye(4), a.shape), atol=1e-12)
    np.testing.assert_allclose(a @ y, np.broadcast_to(np.eye(4), a.shape), atol=1e-12)
    np.testing.assert_allclose(F.inv(a[2]).array, y[2], rtol=1e-12)


def test_gradients_are_the_textbook_formulas():
    rng = np.random.default_rng(2)
    a = mg.Variable(_near_identity(rng, (3, 3)))
    F.det(a).backward()
    np.testing.assert_allclose(a.grad, np.linalg.det(a.array) * np.linalg.inv(a.array).T, rtol=1e-12)
    a.cleargrad()
    gy = rng.standard_normal((3, 3))
    y = F.inv(a)
    y.grad = gy
    y.backward()
    inv_t = np.linalg.inv(a.array).T
    np.testing.assert_allclose(a.grad, -inv_t @ gy @ inv_t, rtol=1e-12)


@pytest.mark.parametrize("func, shape", [(F.inv, (3, 3)), (F.batch_inv, (2, 3, 3)),
                                         (F.det, (3, 3)), (F.batch_det, (2, 3, 3))])
def test_first_and_second_order(func, shape):
    rng = np.random.default_rng(3)
    x = _near_identity(rng, shape)
    out_shape = func(x).shape
    gy = rng.standard_normal(out_shape)
    check_backward(func, (x,), gy, seed=0)
    check_double_backward(func, (x,), gy, (rng.standard_normal(shape),), seed=0)


@pytest.mark.parametrize("func, shape", [(F.inv, (3, 3)), (F.det, (3, 3)),
                                         (F.batch_inv, (2, 3, 3)), (F.batch_det, (2, 3, 3))])
def test_non_contiguous_inputs(func, shape):
    rng = np.random.default_rng(4)
    x = _near_identity(rng, shape)
    transposed = np.ascontiguousarray(np.swapaxes(x, -1, -2)).swapaxes(-1, -2)
    strided = np.zeros(shape[:-1] + (2 * shape[-1],))
    strided[..., ::2] = x
    for view in (transposed, strided[..., ::2]):
        assert not view.flags.c_contiguous
        np.testing.assert_allclose(func(view).array, func(x).array, rtol=1e-13)


@pytest.mark.parametrize("func, shape", [(F.inv, (3, 3)), (F.batch_inv, (2, 3, 3)),
                                         (F.det, (3, 3)), (F.batch_det, (2, 3, 3))])
def test_float16_computes_in_float32_and_stays_float16(func, shape):
    x = _near_identity(np.random.default_rng(5), shape, 0.1).astype(np.float16)
    v = mg.Variable(x)
    y = func(v)
    F.sum(y).backward()
    assert y.dtype == v.grad.dtype == np.float16
    np.testing.assert_allclose(y.array, func(x.astype(np.float32)).array, rtol=2e-3, atol=2e-3)


def test_singular_inverse_is_a_clear_value_error():
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(ValueError, match=r"inv: input has a singular matrix, which has no inverse \(shape \(2, 2\)"):
        F.inv(singular)
    with pytest.raises(ValueError, match=r"batch_inv: input has a singular matrix.*shape \(2, 2, 2\)"):
        F.batch_inv(np.stack([np.eye(2), singular]))


def test_singular_det_is_zero_but_has_no_gradient_as_in_chainer():
    singular = mg.Variable(np.array([[1.0, 2.0], [2.0, 4.0]]))
    y = F.det(singular)
    assert y.array == 0.0
    with pytest.raises(ValueError, match=r"det \(backward\): input has a singular matrix"):
        y.backward()


def test_empty_batch():
    assert F.batch_inv(np.zeros((0, 3, 3))).shape == (0, 3, 3)
    assert F.batch_det(np.zeros((0, 3, 3))).shape == (0,)


@pytest.mark.parametrize("func, shape, what", [
    (F.inv, (2, 3), r"inv: a must be a square matrix \(n, n\), got shape \(2, 3\)"),
    (F.inv, (2, 3, 3), r"inv: a must be a square matrix \(n, n\), got shape \(2, 3, 3\)"),
    (F.det, (3,), r"det: a must be a square matrix \(n, n\), got shape \(3,\)"),
    (F.batch_inv, (3, 3), r"batch_inv: a must be a batch of square matrices \(m, n, n\), got shape \(3, 3\)"),
    (F.batch_det, (2, 3, 4), r"batch_det: a must be a batch of square matrices \(m, n, n\), got shape \(2, 3, 4\)"),
])
def test_shape_errors_name_the_function_and_shape(func, shape, what):
    with pytest.raises(ValueError, match=what):
        func(np.ones(shape))


@pytest.mark.parametrize("func", [F.inv, F.det])
def test_integer_input_is_refused(func):
    with pytest.raises(TypeError, match=f"{func.__name__}: a must have a floating-point dtype, got int64"):
        func(np.eye(2, dtype=np.int64))
