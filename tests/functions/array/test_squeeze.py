"""squeeze: semantics vs numpy.squeeze and bad axes."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad.functions as F


@pytest.mark.parametrize("axis", [None, 0, 2, -1, (0, 2), (-1, 0)])
def test_squeeze_matches_numpy(axis):
    a = np.arange(3.0).reshape(1, 3, 1)
    np.testing.assert_array_equal(F.squeeze(a, axis).array, np.squeeze(a, axis))


def test_squeeze_without_unit_axes_is_unchanged():
    assert F.squeeze(np.zeros((2, 3))).shape == (2, 3)


def test_squeeze_errors():
    with pytest.raises(ValueError, match=r"squeeze: axis 0 of the input of shape \(2, 1\) has length 2, not 1"):
        F.squeeze(np.zeros((2, 1)), 0)
    with pytest.raises(ValueError, match=r"squeeze: axis=2 is out of range for an input of shape \(2, 1\)"):
        F.squeeze(np.zeros((2, 1)), 2)
    with pytest.raises(ValueError, match=r"squeeze: axis=\(1, -1\) repeats an axis"):
        F.squeeze(np.zeros((2, 1)), (1, -1))
