"""assert_allclose: passes within tolerance; the failure message says where and by how much."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad.testing import assert_allclose


def test_close_arrays_pass():
    assert_allclose(np.array([1.0, 2.0]), np.array([1.0, 2.0 + 1e-9]))
    assert_allclose(mg.Variable(np.array([1.0])), np.array([1.0]))
    assert_allclose(np.float32(1.0), 1.0)
    assert_allclose(np.array([np.nan, np.inf]), np.array([np.nan, np.inf]))


def test_message_names_worst_element_values_errors_and_count():
    x = np.zeros((3, 4))
    y = np.zeros((3, 4))
    y[1, 2] = 1.0
    y[2, 3] = 1e-3
    with pytest.raises(AssertionError) as info:
        assert_allclose(x, y, atol=1e-5, rtol=1e-4)
    message = str(info.value)
    assert "2 of 12 elements differ" in message
    assert "worst at index (1, 2)" in message
    assert "actual 0.0, expected 1.0" in message
    assert "absolute error 1.0" in message and "relative error 1.0" in message


def test_shape_mismatch_and_nan():
    with pytest.raises(AssertionError, match=r"shapes \(2,\) and \(3,\) differ"):
        assert_allclose(np.ones(2), np.ones(3))
    with pytest.raises(AssertionError, match="1 of 2 elements differ"):
        assert_allclose(np.array([1.0, np.nan]), np.array([1.0, 2.0]))


def test_verbose_prints_small_arrays_only():
    with pytest.raises(AssertionError, match="actual:"):
        assert_allclose(np.ones(3), np.zeros(3))
    with pytest.raises(AssertionError) as info:
        assert_allclose(np.ones(3), np.zeros(3), verbose=False)
    assert "actual:" not in str(info.value)
