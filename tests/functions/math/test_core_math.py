"""Arithmetic, matmul and sum: semantics and bad-input errors (gradients: the registry)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


def test_pow_var_var_gradients_match_closed_forms():
    a = mg.Variable(np.array([2.0, 3.0]))
    b = mg.Variable(np.array([3.0, 0.5]))
    F.sum(a ** b).backward()
    np.testing.assert_allclose(a.grad, b.array * a.array ** (b.array - 1))
    np.testing.assert_allclose(b.grad, np.log(a.array) * a.array ** b.array)


def test_absolute_gradient_is_the_sign():
    x = mg.Variable(np.array([-2.0, 3.0]))
    F.sum(abs(x)).backward()
    np.testing.assert_array_equal(x.grad, [-1.0, 1.0])


@pytest.mark.parametrize("shape_a, shape_b", [((2, 3), (4, 5)), ((3,), (4,)), ((2, 2, 3), (3, 3, 4))])
def test_matmul_misaligned_shapes_name_the_op_and_shapes(shape_a, shape_b):
    with pytest.raises(ValueError, match=r"matmul: shapes"):
        F.matmul(np.ones(shape_a), np.ones(shape_b))


def test_matmul_0dim_operand():
    with pytest.raises(ValueError, match="at least 1 dimension"):
        F.matmul(np.ones(()), np.ones(3))


def test_matmul_batched_broadcast_matches_numpy_and_reduces_gradients():
    rng = np.random.default_rng(0)
    a = mg.Variable(rng.standard_normal((2, 1, 3, 4)))
    b = mg.Variable(rng.standard_normal((5, 4, 2)))
    y = F.matmul(a, b)
    np.testing.assert_allclose(y.array, np.matmul(a.array, b.array))
    F.sum(y).backward()
    assert a.grad.shape == a.shape and b.grad.shape == b.shape
    # d sum(a@b) / d b[k, j, l] = sum over batch/rows of a[..., j]
    np.testing.assert_allclose(b.grad, np.broadcast_to(a.array.sum(axis=(0, 1, 2))[:, None] * 2 / 2, (5, 4, 2)))


def test_matmul_vector_cases():
    v = np.arange(3.0)
    m = np.arange(6.0).reshape(3, 2)
    np.testing.assert_allclose(F.matmul(v, m).array, v @ m)
    np.testing.assert_allclose(F.matmul(m.T, v).array, m.T @ v)
    assert F.matmul(v, v).shape == ()


@pytest.mark.parametrize("axis, pattern", [(2, "axis=2 is out of range"), ((0, 0), "repeats"), (1.5, "int")])
def test_sum_rejects_bad_axes(axis, pattern):
    with pytest.raises((ValueError, TypeError), match=pattern):
        F.sum(np.ones((2, 3)), axis=axis)


def test_sum_to_and_broadcast_to_reject_incompatible_shapes():
    with pytest.raises(ValueError, match=r"sum_to: cannot sum an input of shape \(2, 3\) to shape \(2,\)"):
        F.sum_to(np.ones((2, 3)), (2,))
    with pytest.raises(ValueError, match=r"broadcast_to: cannot broadcast an input of shape \(2, 3\)"):
        F.broadcast_to(np.ones((2, 3)), (3,))
    with pytest.raises(ValueError, match="negative"):
        F.broadcast_to(np.ones(3), (-1, 3))
