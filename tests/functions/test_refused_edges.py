"""Edges minigrad refuses where Chainer returns something (docs/reference/differences-from-chainer.rst, "No empty
result from a geometry, and no recomputation of nothing"): each is a clear error naming the op; and the boolean
index that NumPy takes although it matches no axis."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


def test_unpooling_to_an_empty_axis_is_refused_naming_the_geometry():
    with pytest.raises(ValueError, match=r"unpooling_nd: x of shape \(2, 3, 3, 2\) with ksize=\(1, 1\), "
                                         r"stride=\(1, 1\), pad=\(1, 1\) gives an output of size \(1, 0\)"):
        F.unpooling_nd(np.ones((2, 3, 3, 2)), 1, stride=1, pad=1, cover_all=True)
    assert F.unpooling_nd(np.ones((2, 3, 3, 2)), 1, stride=1, pad=0).shape == (2, 3, 3, 2)  # the same, unpadded


def test_a_boolean_index_must_match_the_axes_it_indexes_except_an_empty_one_as_in_numpy():
    x = np.ones((4, 3, 2))
    with pytest.raises(IndexError):
        x[np.array([True, False])]  # the reference: NumPy refuses it too
    with pytest.raises(IndexError, match=r"get_item: invalid index for an input of shape \(4, 3, 2\): boolean "
                                         r"index of shape \(2,\) does not match the indexed dimensions \(4,\)"):
        F.get_item(x, np.array([True, False]))
    empty = np.array([], dtype=bool)  # NumPy takes it as an empty index (Chainer's tests use it)
    assert F.get_item(x, empty).shape == x[empty].shape == (0, 3, 2)
    assert F.get_item(x, np.array([True, False, True, False])).shape == (2, 3, 2)


def test_forget_needs_an_input_to_recompute_from():
    with pytest.raises(ValueError, match="forget: give at least one input after func"):
        F.forget(lambda: mg.Variable(np.ones(2)))
