"""The ROI functions: hand-checked bins and samples, empty bins (0 or -inf as in Chainer), gradients reaching only
the pixels used, second order, the boxes' dtype and devices, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import check_backward, check_double_backward

X = np.arange(36.0).reshape(1, 1, 6, 6)
ONE = np.array([0], np.int32)


def test_pixel_bins_are_floor_to_ceil_blocks_of_the_rounded_box():
    # box rows 1..4 (3 pixels) in 2 bins: [1, 3) and [2, 4); columns 0..6 in 3 bins of 2
    y = F.roi_max_pooling_2d(X, np.array([[1.0, 0.0, 4.0, 6.0]]), ONE, (2, 3), 1.0).array[0, 0]
    np.testing.assert_array_equal(y, [[13.0, 15.0, 17.0], [19.0, 21.0, 23.0]])
    y = F.roi_average_pooling_2d(X, np.array([[1.0, 0.0, 4.0, 6.0]]), ONE, (2, 3), 1.0).array[0, 0]
    np.testing.assert_array_equal(y, [[9.5, 11.5, 13.5], [15.5, 17.5, 19.5]])


def test_spatial_scale_and_rounding_half_to_even():
    # (2.5, 1.0, 7.0, 9.0) * 0.5 -> (1.25, 0.5, 3.5, 4.5) -> rounded (1, 0, 4, 4)
    y = F.roi_max_pooling_2d(X, np.array([[2.5, 1.0, 7.0, 9.0]]), ONE, 1, 0.5).array
    assert float(y[0, 0, 0, 0]) == X[0, 0, 1:4, 0:4].max()


def test_roi_pooling_2d_has_inclusive_corners_and_its_batch_index_in_the_first_column():
    x = np.stack([X[0], -X[0]])
    y = F.roi_pooling_2d(x, np.array([[1.0, 0.0, 0.0, 1.0, 1.0]]), 1, 1, 1.0).array
    assert float(y[0, 0, 0, 0]) == max(-0.0, -1.0, -6.0, -7.0)     # rows and columns 0..1 of image 1


def test_bins_outside_the_image_are_zero_or_minus_infinity_as_in_chainer_and_get_no_gradient():
    box = np.array([[-4.0, -4.0, 2.0, 2.0]])   # the top half of the bins are above the image
    x = mg.Variable(X.copy())
    y_max = F.roi_max_pooling_2d(x, box, ONE, 2, 1.0)
    assert np.isneginf(y_max.array[0, 0, 0]).all() and y_max.array[0, 0, 1, 1] == X[0, 0, 1, 1]
    y_avg = F.roi_average_pooling_2d(x, box, ONE, 2, 1.0)
    assert (y_avg.array[0, 0, 0] == 0).all()
    F.sum(F.where(np.isfinite(y_max.array), y_max, np.zeros_like(y_max.array)) + y_avg).backward()
    assert np.isfinite(x.grad).all() and x.grad[0, 0, 2:].sum() == 0 and x.grad[0, 0, :, 2:].sum() == 0


def test_align_samples_bilinearly_and_reads_the_border_within_one_pixel():
    box = np.array([[0.0, 0.0, 2.0, 2.0]])
    # 2 x 2 samples at 0.5 and 1.5: the bilinear values 3.5, 4.5, 9.5, 10.5
    assert F.roi_average_align_2d(X, box, ONE, 1, 1.0, 2).array.item() == 7.0
    assert F.roi_max_align_2d(X, box, ONE, 1, 1.0, 2).array.item() == 10.5
    # one sample at (-0.5, 5.5): within a pixel of the corner (up to -1 and to 6), it reads the corner X[0, 5]
    assert F.roi_average_align_2d(X, np.array([[-1.0, 5.0, 0.0, 6.0]]), ONE, 1, 1.0, 1).array.item() == 5.0
    # samples more than a pixel out are skipped: they count as 0 in the average, and not at all in the max
    far = np.array([[-4.0, 0.0, 0.0, 1.0]])   # samples at -3 and -1 (the border, row 0)
    assert F.roi_average_align_2d(X, far, ONE, 1, 1.0, (2, 1)).array.item() == 0.25
    assert F.roi_max_align_2d(X, far, ONE, 1, 1.0, (2, 1)).array.item() == 0.5
    assert np.isneginf(F.roi_max_align_2d(X, np.array([[-9.0, 0.0, -8.0, 1.0]]), ONE, 1, 1.0).array).all()


def test_the_default_sampling_grid_is_the_box_size_over_the_bins_per_box():
    box = np.array([[0.0, 0.0, 4.0, 4.0]])
    np.testing.assert_array_equal(F.roi_average_align_2d(X, box, ONE, 2, 1.0).array,
                                  F.roi_average_align_2d(X, box, ONE, 2, 1.0, 2).array)


@pytest.mark.parametrize("op", [
    lambda x: F.roi_average_align_2d(x, np.array([[0.3, 0.6, 4.1, 3.7], [1.2, 1.0, 5.5, 5.9]]),
                                     np.array([1, 0]), (2, 3), 1.0),
    lambda x: F.roi_average_pooling_2d(x, np.array([[0.0, 0.0, 4.0, 5.0]]), np.array([1]), 2, 1.0),
])
def test_gradients_against_numerical_ones(op):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 2, 6, 6))
    gy = rng.standard_normal(op(x).shape)
    check_backward(op, (x,), gy)
    check_double_backward(op, (x,), gy, (rng.standard_normal(x.shape),))


def test_float16_input_with_float32_boxes_keeps_float16():
    y = F.roi_average_align_2d(X.astype(np.float16), np.array([[0.0, 0.0, 2.0, 2.0]], np.float32), ONE, 1, 1.0)
    assert y.dtype == np.float16


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.roi_max_pooling_2d(X, np.ones((1, 5)), ONE, 2, 1.0), ValueError,
     r"roi_max_pooling_2d: rois must have shape \(n_rois, 4\)"),
    (lambda: F.roi_max_pooling_2d(X, np.ones((1, 4)), np.array([1]), 2, 1.0), ValueError,
     r"batch indices must be in \[0, 1\)"),
    (lambda: F.roi_max_pooling_2d(X, np.ones((2, 4)), ONE, 2, 1.0), ValueError,
     r"roi_indices must be integers of shape \(2,\)"),
    (lambda: F.roi_average_pooling_2d(X, np.ones((1, 4)), ONE, 0, 1.0), ValueError, "outsize must be >= 1"),
    (lambda: F.roi_average_pooling_2d(X, np.ones((1, 4)), ONE, 2.0, 1.0), TypeError, "outsize must be an int"),
    (lambda: F.roi_average_align_2d(X, np.ones((1, 4)), ONE, 2, 0.0), ValueError,
     "spatial_scale must be a positive number"),
    (lambda: F.roi_max_align_2d(X, np.ones((1, 4)), ONE, 2, 1.0, 0), ValueError, "sampling_ratio must be >= 1"),
    (lambda: F.roi_max_align_2d(X, np.ones((1, 4)), ONE, 2, 1.0, (None, 0)), ValueError,
     "sampling_ratio must be >= 1"),
    (lambda: F.roi_max_align_2d(X, np.ones((1, 4)), ONE, 2, 1.0, (None, 1.5)), TypeError, "sampling_ratio"),
    (lambda: F.roi_max_align_2d(X[0], np.ones((1, 4)), ONE, 2, 1.0), ValueError, "x must have 4 dimensions"),
    (lambda: F.roi_max_align_2d(X, np.ones((1, 4), np.int32), ONE, 2, 1.0), TypeError,
     "rois must have a floating-point dtype"),
    (lambda: F.roi_pooling_2d(X, np.array([[0.5, 0, 0, 1, 1]]), 1, 1, 1.0), ValueError,
     r"roi_pooling_2d: the batch indices \(rois\[:, 0\]\) must be whole numbers"),
    (lambda: F.roi_pooling_2d(X, np.ones((1, 4)), 1, 1, 1.0), ValueError, r"rois must have shape \(n_rois, 5\)"),
])
def test_bad_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("op", [F.roi_average_align_2d, F.roi_max_align_2d])
def test_align_sampling_ratio_none_for_one_axis_is_per_box(op):
    """Chainer's (None, 3): the height's ratio from each box (ceil(box height / outsize)), the width's given."""
    rois = np.array([[0.5, 0.0, 4.5, 3.0], [1.0, 1.0, 2.0, 5.0]])  # heights 4 and 1 over outsize 2: 2 and 1
    indices = np.array([0, 0], np.int32)
    per_box = op(X, rois, indices, 2, 1.0, (None, 3)).array
    for k, ratio in enumerate((2, 1)):
        alone = op(X, rois[k:k + 1], indices[:1], 2, 1.0, (ratio, 3)).array
        np.testing.assert_array_equal(per_box[k:k + 1], alone)
