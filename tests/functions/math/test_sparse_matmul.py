"""F.sparse_matmul: sparse @ dense and dense @ sparse against numpy.matmul (every transposition, batches,
padding, mixed dtypes), gradients against numerical ones (the sparse values' only at their entries), errors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import check_backward, check_double_backward
from minigrad.utils import CooMatrix, to_coo

RNG = np.random.default_rng(0)


def _sparse(shape):
    x = RNG.uniform(0.5, 1.0, shape)
    x[x < 0.75] = 0
    return x


def _t(x, transpose):
    return np.swapaxes(x, -1, -2) if transpose else x


@pytest.mark.parametrize("batch, transa, transb", list(itertools.product([(), (3,)], [False, True], [False, True])))
def test_both_ways_round_match_the_dense_product(batch, transa, transb):
    a, b = _sparse(batch + (2, 4)), RNG.uniform(-1, 1, batch + (4, 3))
    c = F.sparse_matmul(to_coo(_t(a, transa), ldnz=9), _t(b, transb), transa=transa, transb=transb)
    np.testing.assert_allclose(c.array, a @ b, rtol=1e-12)
    d, s = RNG.uniform(-1, 1, batch + (2, 4)), _sparse(batch + (4, 3))
    c = F.sparse_matmul(_t(d, transa), to_coo(_t(s, transb)), transa=transa, transb=transb)
    np.testing.assert_allclose(c.array, d @ s, rtol=1e-12)


def test_the_values_gradient_is_the_dense_gradient_at_the_entries_and_zero_for_padding():
    a = CooMatrix(np.array([2.0, 3.0, 7.0]), np.array([0, 1, -1]), np.array([1, 0, -1]), (2, 2),
                  requires_grad=True)
    b = mg.Variable(np.array([[1.0, 2.0], [3.0, 4.0]]))
    g = np.array([[1.0, -1.0], [0.5, 2.0]])
    c = F.sparse_matmul(a, b)
    c.grad = g
    c.backward()
    dense_grad = g @ b.array.T   # d(sum g * (A @ B)) / dA
    np.testing.assert_allclose(a.data.grad, [dense_grad[0, 1], dense_grad[1, 0], 0.0])
    np.testing.assert_allclose(b.grad, a.to_dense().T @ g)


@pytest.mark.parametrize("transa, transb", list(itertools.product([False, True], [False, True])))
def test_gradients_of_both_node_kinds_against_numerical_ones(transa, transb):
    sp = to_coo(_t(_sparse((3, 4)), transa), ldnz=10)
    b = RNG.uniform(-1, 1, (4, 2))

    def product(values, dense):
        return F.sparse_matmul(CooMatrix(values, sp.row, sp.col, sp.shape), dense, transa=transa, transb=transb)

    gy = RNG.uniform(-1, 1, (3, 2))
    check_backward(product, (sp.data.array, _t(b, transb)), gy)
    check_double_backward(product, (sp.data.array, _t(b, transb)), gy,
                          (RNG.uniform(-1, 1, sp.data.shape), RNG.uniform(-1, 1, _t(b, transb).shape)))


@pytest.mark.parametrize("a_dtype, b_dtype", [(np.float16, np.float32), (np.float32, np.float64),
                                              (np.float64, np.float16)])
def test_mixed_dtypes_give_the_common_type_and_each_its_own_gradient(a_dtype, b_dtype):
    a, b = _sparse((2, 3)).astype(a_dtype), RNG.uniform(-1, 1, (3, 2)).astype(b_dtype)
    sp = to_coo(a, requires_grad=True)
    bv = mg.Variable(b)
    c = F.sparse_matmul(sp, bv)
    assert c.dtype == np.result_type(a_dtype, b_dtype)
    np.testing.assert_allclose(c.array, a.astype(np.float64) @ b.astype(np.float64), rtol=2e-3, atol=2e-3)
    F.sum(c).backward()
    assert sp.data.grad.dtype == a_dtype and bv.grad.dtype == b_dtype


def test_float16_sums_in_float32():
    a = to_coo(np.full((1, 3000), 1.0, np.float16))
    c = F.sparse_matmul(a, np.full((3000, 1), 1.0, np.float16))
    assert c.dtype == np.float16 and float(c.array[0, 0]) == 3000.0   # float16 running sums stall at 2048


S = to_coo(np.eye(3))


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.sparse_matmul(np.ones((3, 3)), np.ones((3, 3))), ValueError,
     "sparse_matmul: exactly one of a and b must be a minigrad.utils.CooMatrix .* got ndarray and ndarray"),
    (lambda: F.sparse_matmul(S, S), ValueError, "exactly one of a and b"),
    (lambda: F.sparse_matmul(S, np.ones((2, 3))), ValueError,
     r"sparse_matmul: the inner sizes differ: the sparse matrix of shape \(3, 3\) has 3, b of shape \(2, 3\) has 2"),
    (lambda: F.sparse_matmul(np.ones((3, 2)), S), ValueError, "inner sizes differ"),
    (lambda: F.sparse_matmul(S, np.ones((1, 3, 3))), ValueError, "b must have 2 dimensions for one sparse matrix"),
    (lambda: F.sparse_matmul(to_coo(np.ones((2, 3, 3))), np.ones((3, 3, 3))), ValueError,
     "b has a batch of 3 matrices, the sparse operand 2"),
    (lambda: F.sparse_matmul(S, np.ones((3, 3), np.int32)), TypeError, "sparse_matmul: b must have a floating-point"),
    (lambda: F.sparse_matmul(to_coo(np.eye(3, dtype=np.int32)), np.ones((3, 3))), TypeError,
     "the sparse matrix's data must have a floating-point"),
    (lambda: F.sparse_matmul(S, np.ones((3, 3)), transa="False"), TypeError, "sparse_matmul: transa must be a bool"),
])
def test_bad_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()
