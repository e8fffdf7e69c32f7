"""swapaxes: semantics vs numpy.swapaxes and bad axes."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad.functions as F


@pytest.mark.parametrize("axis1, axis2", [(0, 1), (0, 2), (2, 0), (-1, 1), (1, 1)])
def test_swapaxes_matches_numpy(axis1, axis2):
    a = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(F.swapaxes(a, axis1, axis2).array, np.swapaxes(a, axis1, axis2))


def test_swapaxes_errors():
    with pytest.raises(ValueError, match=r"swapaxes: axis2=2 is out of range for an input of shape \(2, 1\)"):
        F.swapaxes(np.zeros((2, 1)), 0, 2)
    with pytest.raises(TypeError, match="swapaxes: axis1 must be an int"):
        F.swapaxes(np.zeros((2, 1)), None, 0)
