"""moveaxis: semantics vs numpy.moveaxis and bad axes."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad.functions as F


@pytest.mark.parametrize("source, destination", [
    (0, -1), (-1, 0), (1, 1), ((0, 1), (2, 0)), ((0, 2), (0, 1)), ([2, 0, 1], [0, 1, 2]), ((), ()),
])
def test_moveaxis_matches_numpy(source, destination):
    a = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(F.moveaxis(a, source, destination).array, np.moveaxis(a, source, destination))


def test_moveaxis_errors():
    x = np.zeros((2, 1, 3))
    with pytest.raises(ValueError, match=r"moveaxis: source=\(0, 0\) repeats an axis \(input shape \(2, 1, 3\)\)"):
        F.moveaxis(x, (0, 0), (1, 2))
    with pytest.raises(ValueError, match=r"moveaxis: source \(0, 1\) and destination \(2,\) must name as many axes"):
        F.moveaxis(x, (0, 1), 2)
    with pytest.raises(ValueError, match=r"moveaxis: destination=3 is out of range for an input of shape \(2, 1, 3\)"):
        F.moveaxis(x, 0, 3)
