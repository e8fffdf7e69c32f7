"""concat: semantics vs numpy.concatenate, gradients of mixed inputs, bad-input errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_concat_matches_numpy(axis):
    rng = np.random.default_rng(0)
    shapes = [[2, 3, 4]] * 3
    for i, shape in enumerate(shapes):
        shapes[i] = list(shape)
        shapes[i][axis] = i + 1
    arrays = [rng.standard_normal(s) for s in shapes]
    np.testing.assert_array_equal(F.concat(arrays, axis=axis).array, np.concatenate(arrays, axis=axis))


def test_concat_default_axis_is_one():
    a, b = np.zeros((2, 1)), np.ones((2, 2))
    assert F.concat((a, b)).shape == (2, 3)


def test_concat_gradient_goes_to_each_piece_and_skips_constants():
    x = mg.Variable(np.arange(2.0).reshape(2, 1))
    constant = np.ones((2, 2))
    y = F.concat([x, constant, x], axis=1)
    y.grad = np.arange(8.0).reshape(2, 4)
    y.backward()
    # x appears in columns 0 and 3: its gradient is the sum of those columns.
    np.testing.assert_array_equal(x.grad, [[0.0 + 3.0], [4.0 + 7.0]])


def test_concat_single_input_is_a_copy():
    a = np.arange(3.0)
    y = F.concat([a], axis=0)
    np.testing.assert_array_equal(y.array, a)
    y.array[0] = 5.0
    assert a[0] == 0.0


def test_concat_mismatched_shapes():
    with pytest.raises(ValueError, match=r"concat: xs\[1\] has shape \(3, 3\).*xs\[0\] of shape \(2, 3\).*axis 1"):
        F.concat((np.zeros((2, 3)), np.zeros((3, 3))))
    with pytest.raises(ValueError, match=r"concat: xs\[2\] has shape \(2,\)"):
        F.concat((np.zeros((2, 3)), np.zeros((2, 1)), np.zeros(2)))


def test_concat_invalid_axis():
    with pytest.raises(ValueError, match=r"concat: axis=2 is out of range for an input of shape \(2, 3\)"):
        F.concat((np.zeros((2, 3)), np.zeros((2, 3))), axis=2)
    with pytest.raises(TypeError, match="concat: axis must be an int"):
        F.concat((np.zeros((2, 3)), np.zeros((2, 3))), axis=1.0)
    with pytest.raises(ValueError, match=r"concat: axis=0 is out of range for an input of shape \(\)"):
        F.concat((np.zeros(()), np.zeros(())), axis=0)


def test_concat_bad_xs():
    with pytest.raises(TypeError, match="concat: every array in xs must have the same dtype, got float64, float32"):
        F.concat((np.zeros((2, 3)), np.zeros((2, 3), np.float32)))
    with pytest.raises(TypeError, match="concat: xs must be a list or tuple"):
        F.concat(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="concat: xs is empty"):
        F.concat([])
    with pytest.raises(TypeError, match=r"concat: xs\[1\] must be a numpy.ndarray"):
        F.concat([np.zeros(2), [1.0, 2.0]], axis=0)
