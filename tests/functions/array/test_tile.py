"""tile: semantics vs numpy.tile, gradient accumulation, bad-input errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
@pytest.mark.parametrize("reps", [1, 2, 0, (2,), (1, 3), (2, 1, 2), np.int64(3), np.array([2, 1])])
def test_tile_matches_numpy(shape, reps):
    a = np.random.default_rng(0).standard_normal(shape)
    np.testing.assert_array_equal(F.tile(a, reps).array, np.tile(a, reps))


def test_tile_gradient_sums_the_copies():
    x = mg.Variable(np.zeros(2))
    y = F.tile(x, (2, 2))
    y.grad = np.arange(8.0).reshape(2, 4)
    y.backward()
    np.testing.assert_array_equal(x.grad, [0.0 + 2.0 + 4.0 + 6.0, 1.0 + 3.0 + 5.0 + 7.0])


def test_tile_errors():
    with pytest.raises(ValueError, match=r"tile: reps=\(2, -1\) has a negative count \(input shape \(2,\)\)"):
        F.tile(np.zeros(2), (2, -1))
    with pytest.raises(TypeError, match="tile: reps must be an int or a sequence of ints"):
        F.tile(np.zeros(2), 1.5)
    with pytest.raises(TypeError, match="tile: reps must be"):
        F.tile(np.zeros(2), (True,))
