"""batch_matmul: Chainer's deprecated batched product (2-D operands are batches of column vectors), errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


def _quiet(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return F.batch_matmul(*args, **kwargs)


def test_warns_deprecated_like_chainer():
    with pytest.warns(DeprecationWarning, match="batch_matmul is deprecated"):
        F.batch_matmul(np.ones((2, 3, 4)), np.ones((2, 4, 5)))


@pytest.mark.parametrize("transa, transb", [(False, False), (True, False), (False, True), (True, True)])
def test_3d_matches_matmul_and_a_loop(transa, transb):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 4, 2) if transa else (3, 2, 4))
    b = rng.standard_normal((3, 5, 4) if transb else (3, 4, 5))
    y = _quiet(a, b, transa=transa, transb=transb)
    looped = np.stack([(a[k].T if transa else a[k]) @ (b[k].T if transb else b[k]) for k in range(3)])
    np.testing.assert_allclose(y.array, looped, rtol=1e-13)
    np.testing.assert_array_equal(y.array, F.matmul(a, b, transa=transa, transb=transb).array)


def test_2d_operands_are_batches_of_column_vectors():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    inner = _quiet(a, b, transa=True)   # (4, 1, 3) @ (4, 3, 1): per-row dot products
    assert inner.shape == (4, 1, 1)
    np.testing.assert_allclose(inner.array[:, 0, 0], (a * b).sum(axis=1), rtol=1e-13)
    outer = _quiet(a, b, transb=True)   # (4, 3, 1) @ (4, 1, 3): per-row outer products
    assert outer.shape == (4, 3, 3)
    np.testing.assert_allclose(outer.array, a[:, :, None] * b[:, None, :], rtol=1e-13)
    # a 2-D operand is NOT a single matrix (as in matmul): (2, 3) by (2, 3, 4) is a batch of 2 columns of length 3
    mixed = _quiet(a[:2], rng.standard_normal((2, 1, 4)))
    assert mixed.shape == (2, 3, 4)


def test_gradients_reach_2d_operands_in_their_shape():
    a = mg.Variable(np.arange(6.0).reshape(2, 3))
    b = mg.Variable(np.ones((2, 3)))
    F.sum(_quiet(a, b, transa=True)).backward()
    np.testing.assert_array_equal(a.grad, np.ones((2, 3)))
    np.testing.assert_array_equal(b.grad, a.array)


def test_non_contiguous_inputs():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((4, 2, 3)).transpose(0, 2, 1)[::2]   # (2, 3, 2), strided
    b = np.asfortranarray(rng.standard_normal((2, 2, 5)))
    np.testing.assert_allclose(_quiet(a, b).array, np.ascontiguousarray(a) @ b, rtol=1e-13)


def test_float16_stays_float16():
    a = np.ones((2, 3, 4), np.float16)
    y = _quiet(mg.Variable(a), np.ones((2, 4, 1), np.float16))
    assert y.dtype == np.float16
    np.testing.assert_array_equal(y.array, np.full((2, 3, 1), 4.0, np.float16))


@pytest.mark.parametrize("a_shape, b_shape, kwargs, match", [
    ((2, 3, 4), (2, 3, 5), {}, r"shapes \(2, 3, 4\) \(transa=False\) and \(2, 3, 5\) \(transb=False\) are not aligned"),
    ((2, 3, 4), (3, 4, 5), {}, "batch sizes"),
    ((2, 3), (2, 4), {"transa": True}, r"\(2, 3\) \(transa=True\) and \(2, 4\)"),
    ((3,), (3,), {}, r"a must be a batch of matrices \(2-D or 3-D\), got shape \(3,\)"),
    ((2, 2, 3, 4), (2, 4, 1), {}, r"got shape \(2, 2, 3, 4\)"),
    ((2, 3, 4), (2, 3), {}, r"\(2, 3, 4\) and \(2, 3, 1\), the batch sizes and the inner lengths must match"),
])
def test_bad_shapes_name_the_function_and_shapes(a_shape, b_shape, kwargs, match):
    with pytest.raises(ValueError, match=match) as info:
        _quiet(np.ones(a_shape), np.ones(b_shape), **kwargs)
    assert str(info.value).startswith("batch_matmul: ")


def test_bad_dtypes():
    with pytest.raises(TypeError, match="batch_matmul: a must have a floating-point dtype, got int64"):
        _quiet(np.ones((2, 3, 4), np.int64), np.ones((2, 4, 1)))
    with pytest.raises(TypeError, match="batch_matmul: a and b must have the same dtype, got float32 and float64"):
        _quiet(np.ones((2, 3, 4), np.float32), np.ones((2, 4, 1)))
