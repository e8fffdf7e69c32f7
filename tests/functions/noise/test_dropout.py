"""dropout: training vs test mode, the mask (statistics, reuse in backward, user-given), errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


def test_test_mode_returns_the_input_itself():
    x = mg.Variable(np.ones(3))
    with mg.using_config("train", False):
        assert F.dropout(x, 0.9) is x
        y, mask = F.dropout(x, 0.9, return_mask=True)
    assert y is x and mask is None


def test_training_drops_about_ratio_and_scales_the_rest():
    x = np.ones((200, 100), dtype=np.float32)
    y, mask = F.dropout(x, 0.3, return_mask=True)
    assert y.dtype == np.float32 and mask.dtype == np.float32
    kept = y.array != 0
    assert abs(kept.mean() - 0.7) < 0.02  # 20,000 draws: the standard error is 0.003
    np.testing.assert_allclose(y.array[kept], 1 / 0.7, rtol=1e-6)
    np.testing.assert_array_equal(y.array, x * mask)


def test_backward_uses_the_forward_mask_and_a_given_mask_is_reproducible():
    rng = np.random.default_rng(0)
    x = mg.Variable(rng.standard_normal((4, 5)))
    y, mask = F.dropout(x, 0.5, return_mask=True)
    F.sum(y * 3.0).backward()
    np.testing.assert_array_equal(x.grad, 3.0 * mask)
    again = F.dropout(x, mask=mask)
    np.testing.assert_array_equal(again.array, y.array)


def test_ratio_zero_keeps_everything():
    x = np.arange(6.0)
    np.testing.assert_array_equal(F.dropout(x, 0.0).array, x)


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.dropout(np.ones(3), 1.0), ValueError, r"dropout: ratio must be in \[0, 1\), got 1.0"),
    (lambda: F.dropout(np.ones(3), -0.1), ValueError, r"dropout: ratio must be in \[0, 1\), got -0.1"),
    (lambda: F.dropout(np.ones(3), "0.5"), TypeError, r"dropout: ratio must be a real number, got str"),
    (lambda: F.dropout(np.ones(3), train=False), TypeError,
     r"dropout: unexpected keyword argument\(s\) \['train'\]; use minigrad.using_config"),
    (lambda: F.dropout(np.ones(3), mask=np.ones(4)), ValueError,
     r"dropout: mask must be an array of x's shape \(3,\), got \(4,\)"),
    (lambda: F.dropout(np.arange(3)), TypeError, r"dropout: x must have a floating-point dtype, got int"),
])
def test_bad_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()
