"""cumsum: semantics vs numpy.cumsum (axis=None flattens), gradients, bad axes."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad.functions as F
from minigrad.testing import check_backward, check_double_backward


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_matches_numpy_and_numerical_gradients(axis):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4))
    y = F.cumsum(x, axis=axis)
    np.testing.assert_allclose(y.array, np.cumsum(x, axis=axis), rtol=1e-14)
    check_backward(lambda v: F.cumsum(v, axis=axis), (x,), rng.standard_normal(y.shape), seed=0)
    check_double_backward(lambda v: F.cumsum(v, axis=axis), (x,), rng.standard_normal(y.shape),
                          rng.standard_normal(x.shape), seed=0)


def test_bad_axes():
    with pytest.raises(ValueError, match="cumsum: axis=2 is out of range for an input with 2 dimensions"):
        F.cumsum(np.ones((2, 3)), axis=2)
    with pytest.raises(TypeError, match="cumsum: axis must be an int, got tuple"):
        F.cumsum(np.ones((2, 3)), axis=(0, 1))
