"""accuracy: values, ignore_label, no gradient, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


def test_fraction_of_correct_argmax_in_the_scores_dtype_without_gradient():
    y = mg.Variable(np.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7], [0.6, 0.4]], dtype=np.float32))
    acc = F.accuracy(y, np.array([1, 1, 1, 0]))
    assert acc.dtype == np.float32 and acc.shape == ()
    assert acc.array == np.float32(0.75)
    assert not acc.requires_grad and acc.creator is None


def test_ignore_label_leaves_labels_out_and_all_ignored_gives_zero():
    y = np.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]])
    assert F.accuracy(y, np.array([1, -1, 0]), ignore_label=-1).array == 0.5
    assert F.accuracy(y, np.array([-1, -1, -1]), ignore_label=-1).array == 0.0


def test_spatial_scores_compare_along_axis_one():
    y = np.zeros((1, 3, 2))
    y[0, 2, 0] = 1.0
    y[0, 1, 1] = 1.0
    assert F.accuracy(y, np.array([[2, 0]])).array == 0.5


def test_trailing_axes_of_size_one_may_be_left_out_of_t():
    rng = np.random.default_rng(0)
    y = rng.uniform(-1, 1, (10, 3, 5, 1, 1))
    t = rng.integers(0, 3, (10, 5))
    expected = (y[..., 0, 0].argmax(axis=1) == t).mean()
    assert F.accuracy(y, t).array == expected
    assert F.accuracy(y[:, :, :1], t[:, :1]).array == (y[:, :, 0, 0, 0].argmax(axis=1) == t[:, 0]).mean()
    ignored = F.accuracy(y, t, ignore_label=0).array
    assert ignored == (y[..., 0, 0].argmax(axis=1) == t)[t != 0].mean()


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.accuracy(np.ones((2, 3)), np.array([0.0, 1.0])), TypeError,
     r"accuracy: t must hold integer class labels, got dtype float64"),
    (lambda: F.accuracy(np.ones((2, 3)), np.array([0, 1, 2])), ValueError,
     r"accuracy: t must have shape \(2,\) for y of shape \(2, 3\) \(axes of size 1 at the end may be left out\), "
     r"got \(3,\)"),
    (lambda: F.accuracy(np.ones((2, 3, 2)), np.array([0, 1])), ValueError,  # an axis of size 2 cannot be left out
     r"accuracy: t must have shape \(2, 2\) for y of shape \(2, 3, 2\)"),
    (lambda: F.accuracy(np.ones(3), np.array([0])), ValueError, r"accuracy: y must have shape \(N, C\)"),
    (lambda: F.accuracy(np.ones((2, 3)), np.array([0, 1]), ignore_label=0.5), TypeError,
     r"accuracy: ignore_label must be an int or None, got float"),
])
def test_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()
