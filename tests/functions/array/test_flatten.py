"""flatten: semantics vs numpy.ravel and its gradient's shape."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 0, 4)])
def test_flatten_matches_numpy(shape):
    a = np.arange(float(np.prod(shape))).reshape(shape)
    np.testing.assert_array_equal(F.flatten(a).array, a.ravel())


def test_flatten_of_a_transposed_input_uses_c_order():
    x = mg.Variable(np.arange(6.0).reshape(2, 3))
    y = F.flatten(x.T)
    np.testing.assert_array_equal(y.array, [0.0, 3.0, 1.0, 4.0, 2.0, 5.0])
    y.grad = np.arange(6.0)
    y.backward()
    np.testing.assert_array_equal(x.grad, [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]])
