"""expand_dims: semantics vs numpy.expand_dims and bad axes."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad.functions as F


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_expand_dims_matches_numpy(axis):
    a = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(F.expand_dims(a, axis).array, np.expand_dims(a, axis))


def test_expand_dims_errors():
    with pytest.raises(ValueError, match=r"expand_dims: axis=3 is out of range for an input of shape \(2, 1\) "
                                         r"\(valid: -3 to 2\)"):
        F.expand_dims(np.zeros((2, 1)), 3)
    with pytest.raises(ValueError, match="expand_dims: axis=-4"):
        F.expand_dims(np.zeros((2, 1)), -4)
    with pytest.raises(TypeError, match="expand_dims: axis must be an int, got tuple"):
        F.expand_dims(np.zeros((2, 1)), (0, 1))
