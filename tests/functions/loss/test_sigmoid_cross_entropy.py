"""sigmoid_cross_entropy: stability on large logits, ignored labels, reductions, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


def test_large_logits_are_stable_and_the_gradient_is_sigmoid_minus_t():
    x = mg.Variable(np.array([[-800.0, 800.0, 3.0, 0.5]]))
    t = np.array([[1, 0, -1, 1]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loss = F.sigmoid_cross_entropy(x, t)
        loss.backward()
    # 800 + 800 + (ignored) + log(1 + exp(-0.5)), over the 3 labels that count
    np.testing.assert_allclose(loss.array, (1600 + np.log1p(np.exp(-0.5))) / 3, rtol=1e-14)
    s = 1 / (1 + np.exp(-0.5))
    np.testing.assert_allclose(x.grad, [[-1 / 3, 1 / 3, 0.0, (s - 1) / 3]], rtol=1e-14, atol=1e-300)


def test_reduce_no_and_normalize_false():
    x = np.array([[0.0, 1.0], [2.0, -1.0]])
    t = np.array([[1, -1], [0, 1]])
    each = F.sigmoid_cross_entropy(x, t, reduce="no").array
    expected = np.array([[np.log(2), 0.0], [np.log1p(np.exp(2.0)), np.log1p(np.exp(1.0))]])
    np.testing.assert_allclose(each, expected, rtol=1e-14)
    np.testing.assert_allclose(F.sigmoid_cross_entropy(x, t, normalize=False).array, expected.sum() / 2)


def test_float16_sum_of_many_losses_does_not_overflow():
    x = np.full((100, 1000), -20.0, dtype=np.float16)
    loss = F.sigmoid_cross_entropy(x, np.ones((100, 1000), dtype=np.int32))
    assert loss.dtype == np.float16
    np.testing.assert_allclose(float(loss.array), 20.0, rtol=1e-3)


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.sigmoid_cross_entropy(np.ones((2, 2)), np.ones((2, 2))), TypeError,
     r"sigmoid_cross_entropy: t must hold integer labels \(0, 1, or -1 to ignore\), got dtype float64"),
    (lambda: F.sigmoid_cross_entropy(np.ones((2, 2)), np.array([[0, 2], [1, 1]])), ValueError,
     r"sigmoid_cross_entropy: t has labels outside \[0, 2\) or ignore_label=-1: \[2\]"),
    (lambda: F.sigmoid_cross_entropy(np.ones((2, 2)), np.array([0, 1])), ValueError,
     r"sigmoid_cross_entropy: x and t must have the same shape, got \(2, 2\) and \(2,\)"),
    (lambda: F.sigmoid_cross_entropy(np.ones(2), np.array([0, 1]), reduce="sum"), ValueError,
     r"sigmoid_cross_entropy: reduce must be one of 'mean', 'no', got 'sum'"),
])
def test_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()
