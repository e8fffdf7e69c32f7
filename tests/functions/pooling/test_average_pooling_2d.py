"""average_pooling_2d: padding counted as zeros (Chainer), gradient spreading, errors."""

from __future__ import annotations

import numpy
import pytest

import minigrad as mg
import minigrad.functions as F


def test_padding_counts_as_zeros_in_the_average():
    y = F.average_pooling_2d(numpy.full((1, 1, 3, 3), 9.0), 3, stride=1, pad=1)
    numpy.testing.assert_array_equal(y.array[0, 0], [[4, 6, 4], [6, 9, 6], [4, 6, 4]])


def test_gradient_is_spread_evenly_over_each_window():
    x = mg.Variable(numpy.zeros((1, 1, 3, 3)))
    y = F.average_pooling_2d(x, 2, stride=1)
    y.grad = numpy.full(y.shape, 4.0)
    y.backward()
    numpy.testing.assert_array_equal(x.grad[0, 0], [[1, 2, 1], [2, 4, 2], [1, 2, 1]])


def test_bad_arguments():
    with pytest.raises(ValueError, match=r"average_pooling_2d: x must have 4 dimensions, got shape \(4, 4\)"):
        F.average_pooling_2d(numpy.zeros((4, 4)), 2)
    with pytest.raises(ValueError, match=r"average_pooling_2d: ksize=\(3, 3\) is bigger than the padded input"):
        F.average_pooling_2d(numpy.zeros((1, 1, 2, 2)), 3)
    with pytest.raises(ValueError, match="average_pooling_2d: stride must be >= 1"):
        F.average_pooling_2d(numpy.zeros((1, 1, 2, 2)), 2, stride=0)
