"""repeat: semantics vs numpy.repeat, gradient accumulation, bad-input errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


@pytest.mark.parametrize("repeats, axis", [
    (2, None), (0, None), (3, 0), (2, 1), (2, -1), ((1, 0, 2), 1), ((2, 1), 0), ([3], 1), (np.array([0, 1, 2]), 1),
    (tuple(range(6)), None), (True, None), (False, 1), ((True,) * 6, None), ((True, False, True), 1),
])
def test_repeat_matches_numpy(repeats, axis):
    a = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(F.repeat(a, repeats, axis).array, np.repeat(a, repeats, axis))


def test_repeat_of_a_scalar_array():
    np.testing.assert_array_equal(F.repeat(np.array(2.0), 3).array, [2.0, 2.0, 2.0])


@pytest.mark.parametrize("repeats", [2, (2, 0, 1)])
def test_repeat_gradient_sums_the_copies(repeats):
    x = mg.Variable(np.zeros(3))
    y = F.repeat(x, repeats)
    gy = np.arange(1.0, y.size + 1)
    y.grad = gy
    y.backward()
    counts = np.broadcast_to(repeats, (3,))
    bounds = np.concatenate([[0], np.cumsum(counts)])
    expected = [gy[bounds[i]:bounds[i + 1]].sum() for i in range(3)]
    np.testing.assert_array_equal(x.grad, expected)


def test_repeat_errors():
    with pytest.raises(ValueError, match=r"repeat: 2 repeats for axis 0 of length 3 \(input shape \(3,\)\)"):
        F.repeat(np.zeros(3), (1, 2))
    with pytest.raises(ValueError, match=r"repeat: repeats=\(-1,\) has a negative count"):
        F.repeat(np.zeros(3), -1)
    with pytest.raises(TypeError, match="repeat: repeats must be an int or a sequence of ints"):
        F.repeat(np.zeros(3), 1.5)
    with pytest.raises(ValueError, match=r"repeat: axis=2 is out of range for an input of shape \(3, 1\)"):
        F.repeat(np.zeros((3, 1)), 2, axis=2)
