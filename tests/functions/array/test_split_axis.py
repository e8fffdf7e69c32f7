"""split_axis: semantics vs numpy.split, outputs without a gradient, bad-input errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import check_backward, check_double_backward


@pytest.mark.parametrize("indices_or_sections, axis", [
    (3, 1), (1, 0), ([2, 4], 1), ([0, 2, 2, 6], -1), ([], 0), (np.array([1, 5]), 1), ([2], -2),
])
def test_split_axis_matches_numpy(indices_or_sections, axis):
    a = np.arange(12.0).reshape(2, 6)
    ys = F.split_axis(a, indices_or_sections, axis)
    expected = np.split(a, indices_or_sections, axis)
    assert isinstance(ys, tuple) and len(ys) == len(expected)
    for y, e in zip(ys, expected):
        np.testing.assert_array_equal(y.array, e)


def test_force_tuple():
    a = np.arange(4.0)
    y = F.split_axis(a, 1, 0, force_tuple=False)
    assert isinstance(y, mg.Variable) and y.shape == (4,)
    assert isinstance(F.split_axis(a, 1, 0), tuple)
    assert len(F.split_axis(a, 2, 0, force_tuple=False)) == 2


def test_outputs_without_gradient_count_as_zeros():
    x = mg.Variable(np.arange(10.0).reshape(2, 5))
    _, middle, _ = F.split_axis(x, [1, 3], axis=1)
    middle.grad = np.ones((2, 2))
    middle.backward()
    expected = np.zeros((2, 5))
    expected[:, 1:3] = 1.0
    np.testing.assert_array_equal(x.grad, expected)


def test_empty_pieces_are_differentiable():
    def f(x):
        return F.split_axis(x, [0, 2, 2], axis=0)[1]

    x = np.random.default_rng(1).uniform(-1, 1, (3, 2))
    check_backward(f, (x,), np.ones((2, 2)), seed=0)
    check_double_backward(f, (x,), np.ones((2, 2)), np.ones((3, 2)), seed=0)


def test_an_empty_array_of_indices_splits_nothing():
    x = np.arange(12.0).reshape(4, 3)
    ys = F.split_axis(x, np.array([]), 0)  # float64, as numpy.array([]) is: nothing to read as a float index
    assert len(ys) == 1
    np.testing.assert_array_equal(ys[0].array, np.split(x, np.array([]), 0)[0])
    with pytest.raises(TypeError, match="indices_or_sections must be an int or a sequence of ints"):
        F.split_axis(x, np.array([1.0]), 0)


def test_split_axis_errors():
    x = np.zeros((2, 5))
    with pytest.raises(ValueError, match=r"split_axis: indices_or_sections=\(1, 6\) has an index outside \[0, 5\] "
                                         r"for axis 1 of the input of shape \(2, 5\)"):
        F.split_axis(x, [1, 6], 1)
    with pytest.raises(ValueError, match="split_axis: .*outside"):
        F.split_axis(x, [-1], 1)
    with pytest.raises(ValueError, match=r"split_axis: indices_or_sections=\(3, 1\) must be sorted"):
        F.split_axis(x, [3, 1], 1)
    with pytest.raises(ValueError, match=r"split_axis: indices_or_sections=2 sections do not divide axis 1 of "
                                         r"length 5 \(input shape \(2, 5\)\)"):
        F.split_axis(x, 2, 1)
    with pytest.raises(ValueError, match="split_axis: indices_or_sections=0"):
        F.split_axis(x, 0, 1)
    with pytest.raises(TypeError, match="split_axis: indices_or_sections must be an int or a sequence of ints"):
        F.split_axis(x, 1.5, 1)
    with pytest.raises(TypeError, match="split_axis: indices_or_sections"):
        F.split_axis(x, [1.0], 1)
    with pytest.raises(ValueError, match=r"split_axis: axis=2 is out of range for an input of shape \(2, 5\)"):
        F.split_axis(x, 1, 2)
