"""F.spatial_pyramid_pooling_2d: hand-checked levels, one output length for any input size, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad.functions as F


def test_each_level_is_the_max_of_its_bins_flattened_after_the_coarser_levels():
    x = np.arange(2 * 16.0).reshape(1, 2, 4, 4)
    y = F.spatial_pyramid_pooling_2d(x, 2, "max").array.ravel()
    np.testing.assert_array_equal(y, [15, 31, 5, 7, 13, 15, 21, 23, 29, 31])   # level 0 (both channels), level 1


@pytest.mark.parametrize("size", [(4, 4), (6, 8), (8, 7), (9, 12)])
def test_the_output_length_does_not_depend_on_the_input_size(size):
    y = F.spatial_pyramid_pooling_2d(np.random.default_rng(0).random((2, 3) + size), 3, "max")
    assert y.shape == (2, 3 * (1 + 4 + 16), 1, 1) and np.isfinite(y.array).all()


@pytest.mark.parametrize("call, error, message", [
    (lambda x: F.spatial_pyramid_pooling_2d(x, 2), ValueError, "pooling must be 'max'"),
    (lambda x: F.spatial_pyramid_pooling_2d(x, 0, "max"), ValueError, "pyramid_height must be >= 1"),
    (lambda x: F.spatial_pyramid_pooling_2d(x, 2.0, "max"), TypeError, "pyramid_height must be an int"),
    (lambda x: F.spatial_pyramid_pooling_2d(x, 4, "max"), ValueError,
     r"level 2's 4 x 4 bins of x of shape \(1, 1, 5, 5\) would have a window over padding only"),
    (lambda x: F.spatial_pyramid_pooling_2d(x[0], 1, "max"), ValueError, "x must have 4 dimensions"),
])
def test_bad_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call(np.ones((1, 1, 5, 5)))
