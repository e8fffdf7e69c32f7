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


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.accuracy(np.ones((2, 3)), np.array([0.0, 1.0])), TypeError,
     r"accuracy: t must hold integer class labels, got dtype float64"),
    (lambda: F.accuracy(np.ones((2, 3)), np.array([0, 1, 2])), ValueError,
     r"accuracy: t must have shape \(2,\) for y of shape \(2, 3\), got \(3,\)"),
    (lambda: F.accuracy(np.ones(3), np.array([0])), ValueError, r"accuracy: y must have shape \(N, C\)"),
    (lambda: F.accuracy(np.ones((2, 3)), np.array([0, 1]), ignore_label=0.5), TypeError,
     r"accuracy: ignore_label must be an int or None, got float"),
])
def test_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()
