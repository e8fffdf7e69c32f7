"""decorrelated_batch_normalization and fixed_decorrelated_batch_normalization: whitened groups, Chainer's
eigh formula as reference, the running statistics, gradients against numerical derivatives (first and second
order; exact at equal eigenvalues), float16, and the argument errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import check_backward, check_double_backward


def _groups(a, groups):
    order = (1, 0) + tuple(range(2, a.ndim))
    return a.transpose(order).reshape(groups, a.shape[1] // groups, -1)


def _chainer_formula(x, groups, eps):
    """Chainer's test reference: V diag(w^-1/2) V^T (x - mean) from numpy.linalg.eigh, group by group."""
    out = []
    for rows in _groups(x, groups):
        centred = rows - rows.mean(axis=1, keepdims=True)
        w, v = np.linalg.eigh(centred @ centred.T / rows.shape[1] + eps * np.eye(len(rows)))
        out.append(v @ np.diag(w ** -0.5) @ v.T @ centred)
    order = (1, 0) + tuple(range(2, x.ndim))
    return np.stack(out).reshape((x.shape[1], x.shape[0]) + x.shape[2:]).transpose(order)


@pytest.mark.parametrize("shape, groups", [((6, 4), 2), ((5, 4, 3), 1), ((3, 6, 2, 2), 3)])
def test_each_group_is_centred_and_whitened(shape, groups):
    x = np.random.default_rng(0).uniform(-1, 1, shape) * np.arange(1, shape[1] + 1).reshape((1, -1) + (1,) *
                                                                                           (len(shape) - 2))
    y = F.decorrelated_batch_normalization(x, groups=groups, eps=0.0).array
    for rows in _groups(y, groups):
        np.testing.assert_allclose(rows.mean(axis=1), 0, atol=1e-13)
        np.testing.assert_allclose(rows @ rows.T / rows.shape[1], np.eye(len(rows)), atol=1e-12)
    np.testing.assert_allclose(F.decorrelated_batch_normalization(x, groups=groups, eps=0.3).array,
                               _chainer_formula(x, groups, 0.3), rtol=1e-12, atol=1e-13)


def test_running_statistics_and_float16():
    x = np.random.default_rng(1).uniform(-1, 1, (5, 4))
    mean, projection = np.full((2, 2), 1.0), np.zeros((2, 2, 2))
    F.decorrelated_batch_normalization(x, groups=2, eps=0.1, running_mean=mean, running_projection=projection,
                                       decay=0.75)
    np.testing.assert_allclose(mean, 0.75 + 0.25 * x.mean(axis=0).reshape(2, 2), rtol=1e-14)
    for g, rows in enumerate(_groups(x, 2)):
        centred = rows - rows.mean(axis=1, keepdims=True)
        w, v = np.linalg.eigh(centred @ centred.T / 5 + 0.1 * np.eye(2))
        np.testing.assert_allclose(projection[g], 0.25 * 5 / 4 * v @ np.diag(w ** -0.5) @ v.T, rtol=1e-12)
    y = F.decorrelated_batch_normalization(x.astype(np.float16), groups=2, eps=0.1)
    assert y.dtype == np.float16
    np.testing.assert_allclose(y.array, _chainer_formula(x.astype(np.float16).astype(np.float64), 2, 0.1),
                               atol=5e-3)


def test_gradients_against_numerical_derivatives():
    rng = np.random.default_rng(2)
    x = rng.uniform(-1, 1, (4, 4, 2))
    f = lambda x: F.decorrelated_batch_normalization(x, groups=2, eps=1e-2)  # noqa: E731
    check_backward(f, (x,), rng.standard_normal(x.shape))
    check_double_backward(f, (x,), rng.standard_normal(x.shape), (rng.standard_normal(x.shape),))


def test_the_gradient_is_exact_where_eigenvalues_are_equal():
    # a covariance of 0.5 I: every vector is an eigenvector; Chainer's gradient drops the part this misses
    x = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    rng = np.random.default_rng(3)
    check_backward(lambda x: F.decorrelated_batch_normalization(x, groups=1, eps=0.0), (x,),
                   rng.standard_normal(x.shape))


def test_the_second_order_is_exact_with_fewer_samples_than_channels():
    """5 samples of 8 channels (Chainer's test of the link): the eigenvalue eps four times over. Written with a
    differentiable eigendecomposition, the second order dropped the terms of equal eigenvalues and failed
    check_double_backward; a third order says it is not implemented instead of being silently wrong."""
    rng = np.random.default_rng(4)
    x = rng.uniform(-1, 1, (5, 8))
    f = lambda x: F.decorrelated_batch_normalization(x, groups=1, eps=0.5)  # noqa: E731
    check_double_backward(f, (x,), rng.standard_normal(x.shape), (rng.standard_normal(x.shape),))
    xv = mg.Variable(x)
    gx, = mg.grad([F.sum(f(xv) ** 3)], [xv], enable_double_backprop=True)
    ggx, = mg.grad([F.sum(gx ** 3)], [xv], enable_double_backprop=True)
    with pytest.raises(NotImplementedError, match="third derivative"):
        mg.grad([F.sum(ggx ** 3)], [xv])


def test_fixed_statistics_values_and_gradients_for_all_inputs():
    x = np.array([[1.0, 2.0, 0.0, 1.0], [3.0, 6.0, 1.0, 1.0]])
    mean = np.array([[1.0, 2.0], [0.0, 1.0]])
    projection = np.array([[[1.0, 0.0], [1.0, 1.0]], [[2.0, 0.0], [0.0, -1.0]]])
    y = F.fixed_decorrelated_batch_normalization(x, mean, projection, groups=2)
    np.testing.assert_array_equal(y.array, [[0.0, 0.0, 0.0, 0.0], [2.0, 6.0, 2.0, 0.0]])
    rng = np.random.default_rng(4)
    args = (rng.uniform(-1, 1, (3, 4, 2)), rng.uniform(-1, 1, (2, 2)), rng.uniform(-1, 1, (2, 2, 2)))
    f = lambda x, m, p: F.fixed_decorrelated_batch_normalization(x, m, p, groups=2)  # noqa: E731
    check_backward(f, args, rng.standard_normal((3, 4, 2)))
    check_double_backward(f, args, rng.standard_normal((3, 4, 2)), tuple(rng.standard_normal(a.shape) for a in args))


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.decorrelated_batch_normalization(np.ones((4, 6)), groups=4), ValueError,
     r"decorrelated_batch_normalization: the 6 channels of x \(shape \(4, 6\)\) do not split into groups=4"),
    (lambda: F.decorrelated_batch_normalization(np.ones(4), groups=1), ValueError, "at least 2 dimensions"),
    (lambda: F.decorrelated_batch_normalization(np.ones((3, 2)), groups=1, eps=-1.0), ValueError,
     "eps must be a non-negative number"),
    (lambda: F.decorrelated_batch_normalization(np.ones((3, 2)), groups=1, decay=1.5), ValueError,
     r"decay must be in \[0, 1\]"),
    (lambda: F.decorrelated_batch_normalization(np.ones((3, 2)), groups=2.0), TypeError, "groups must be an int"),
    (lambda: F.decorrelated_batch_normalization(np.ones((0, 2)), groups=1), ValueError, "no samples"),
    (lambda: F.decorrelated_batch_normalization(np.ones((3, 2)), groups=1, running_mean=np.zeros(2)), ValueError,
     r"running_mean must be a float array of shape \(1, 2\)"),
    (lambda: F.decorrelated_batch_normalization(np.ones((3, 2)), groups=1, running_projection=mg.Variable(
        np.zeros((1, 2, 2)))), TypeError, "running_projection must be an array"),
    (lambda: F.fixed_decorrelated_batch_normalization(np.ones((3, 2)), np.zeros((1, 2)), np.eye(2), groups=1),
     ValueError, r"projection must have shape \(1, 2, 2\)"),
    (lambda: F.fixed_decorrelated_batch_normalization(np.ones((3, 2)), np.zeros((1, 2), np.float32),
                                                      np.ones((1, 2, 2)), groups=1), ValueError, "x's dtype float64"),
])
def test_bad_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()
