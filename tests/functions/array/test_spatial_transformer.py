"""F.spatial_transformer_grid / _sampler: the identity transform reproduces the image, a shift moves it with
zeros coming in, gradients reach x, the grid and theta (against numerical ones), errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import check_backward, check_double_backward

RNG = np.random.default_rng(0)
IDENTITY = np.array([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])


def test_the_identity_transform_samples_every_pixel_back():
    x = RNG.standard_normal((1, 3, 4, 5))
    y = F.spatial_transformer_sampler(x, F.spatial_transformer_grid(IDENTITY, (4, 5)))
    np.testing.assert_allclose(y.array, x, rtol=1e-12, atol=1e-12)


def test_a_shift_by_one_pixel_moves_the_image_and_brings_in_zeros():
    x = RNG.standard_normal((1, 1, 3, 3))
    theta = IDENTITY.copy()
    theta[0, 0, 2] = 1.0          # x coordinates + 1: one pixel of a 3-pixel-wide image (2 / (3 - 1))
    y = F.spatial_transformer_sampler(x, F.spatial_transformer_grid(theta, (3, 3))).array
    np.testing.assert_allclose(y[0, 0, :, :2], x[0, 0, :, 1:], atol=1e-12)
    np.testing.assert_allclose(y[0, 0, :, 2], 0.0, atol=1e-12)


def test_gradients_reach_x_and_theta_through_the_grid():
    x = RNG.standard_normal((2, 2, 4, 4))
    theta = 0.7 * IDENTITY + np.random.default_rng(1).uniform(-0.2, 0.2, (2, 2, 3))   # points off pixel centres

    def transform(x, theta):
        return F.spatial_transformer_sampler(x, F.spatial_transformer_grid(theta, (3, 3)))

    gy = RNG.standard_normal((2, 2, 3, 3))
    check_backward(transform, (x, theta), gy)
    check_double_backward(transform, (x, theta), gy, (RNG.standard_normal(x.shape), RNG.standard_normal(theta.shape)))


def test_points_far_outside_read_zero_and_give_the_grid_no_gradient():
    grid = mg.Variable(np.full((1, 2, 1, 1), 5.0))
    y = F.spatial_transformer_sampler(np.ones((1, 1, 3, 3)), grid)
    F.sum(y).backward()
    assert y.array.item() == 0.0 and (grid.grad == 0).all()


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.spatial_transformer_grid(np.ones((1, 3, 3)), (2, 2)), ValueError, r"theta must have shape \(n, 2, 3\)"),
    (lambda: F.spatial_transformer_grid(IDENTITY, 4), TypeError, "output_shape must be a pair"),
    (lambda: F.spatial_transformer_grid(IDENTITY, (0, 2)), ValueError, "output_shape must be >= 1"),
    (lambda: F.spatial_transformer_grid(IDENTITY, (2, 2), use_cudnn=True), TypeError, "unexpected keyword"),
    (lambda: F.spatial_transformer_sampler(np.ones((1, 1, 3, 3)), np.ones((2, 2, 1, 1))), ValueError,
     r"grid must have shape \(1, 2, out_h, out_w\)"),
    (lambda: F.spatial_transformer_sampler(np.ones((1, 1, 3, 3)), np.ones((1, 2, 1, 1), np.float32)), TypeError,
     "grid must have x's dtype float64"),
])
def test_bad_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()
