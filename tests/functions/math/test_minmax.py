"""maximum/minimum, clip, max/min, argmax/argmin: where the gradient goes, ties, and bad arguments."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import check_backward


def test_maximum_sends_the_gradient_to_the_larger_operand_and_reduces_broadcasts():
    x0 = mg.Variable(np.array([[1.0, 5.0], [4.0, 0.0]]))
    x1 = mg.Variable(np.array([3.0, 2.0]))
    y = F.maximum(x0, x1)
    np.testing.assert_array_equal(y.array, [[3.0, 5.0], [4.0, 2.0]])
    y.grad = np.array([[1.0, 2.0], [3.0, 4.0]])
    y.backward()
    np.testing.assert_array_equal(x0.grad, [[0.0, 2.0], [3.0, 0.0]])
    np.testing.assert_array_equal(x1.grad, [1.0, 4.0])


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_a_tie_sends_the_whole_gradient_to_the_first_operand(name):
    x0, x1 = mg.Variable(np.array([2.0])), mg.Variable(np.array([2.0]))
    F.sum(getattr(F, name)(x0, x1)).backward()
    assert (x0.grad[0], x1.grad[0]) == (1.0, 0.0)


def test_minimum_with_a_scalar_keeps_the_dtype():
    x = mg.Variable(np.array([-1.0, 1.0], dtype=np.float16))
    y = F.minimum(x, 0.5)
    assert y.dtype == np.float16
    np.testing.assert_array_equal(y.array, [-1.0, 0.5])


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_unbroadcastable_operands_name_the_op_and_shapes(name):
    with pytest.raises(ValueError, match=rf"^{name}: .*\(2, 3\), \(4,\)"):
        getattr(F, name)(np.ones((2, 3)), np.ones(4))


def test_clip_gradient_is_one_inside_including_the_bounds_and_zero_outside():
    x = mg.Variable(np.array([-2.0, -1.0, 0.3, 1.0, 2.0]))
    y = F.clip(x, -1.0, 1.0)
    np.testing.assert_array_equal(y.array, [-1.0, -1.0, 0.3, 1.0, 1.0])
    F.sum(y).backward()
    np.testing.assert_array_equal(x.grad, [0.0, 1.0, 1.0, 1.0, 0.0])


def test_clip_with_one_bound():
    x = np.array([-2.0, 0.0, 2.0])
    np.testing.assert_array_equal(F.clip(x, None, 1.0).array, [-2.0, 0.0, 1.0])
    np.testing.assert_array_equal(F.clip(x, -1.0, None).array, [-1.0, 0.0, 2.0])


def test_clip_keeps_float16():
    assert F.clip(np.ones(2, dtype=np.float16), 0.0, 0.5).dtype == np.float16


@pytest.mark.parametrize("x_min, x_max, error, pattern", [
    (1.0, 0.0, ValueError, r"clip: x_min \(1.0\) must not be greater than x_max \(0.0\)"),
    (None, None, ValueError, "clip: x_min and x_max cannot both be None"),
    ("0", 1.0, TypeError, "clip: x_min must be a real number or None, got str"),
    (0.0, np.ones(2), TypeError, "clip: x_max must be a real number or None, got ndarray"),
    (float("nan"), 1.0, ValueError, "clip: x_min must not be NaN"),
])
def test_clip_bad_bounds(x_min, x_max, error, pattern):
    with pytest.raises(error, match=pattern):
        F.clip(np.zeros(3), x_min, x_max)


def test_clip_of_integers_is_a_type_error():
    with pytest.raises(TypeError, match="clip: x must have a floating-point dtype, got int64"):
        F.clip(np.arange(3), 0, 1)


@pytest.mark.parametrize("name, pick", [("max", np.argmax), ("min", np.argmin)])
def test_max_and_min_send_the_gradient_to_one_element_per_group_even_with_ties(name, pick):
    x = mg.Variable(np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0], [5.0, -1.0, -1.0]]))
    y = getattr(F, name)(x, axis=1)
    np.testing.assert_array_equal(y.array, getattr(np, name)(x.array, axis=1))
    y.grad = np.array([1.0, 2.0, 3.0])
    y.backward()
    expected = np.zeros((3, 3))
    expected[np.arange(3), pick(x.array, axis=1)] = [1.0, 2.0, 3.0]  # the first extreme element only
    np.testing.assert_array_equal(x.grad, expected)


def test_max_over_several_axes_matches_numpy_and_its_numerical_gradient():
    rng = np.random.default_rng(0)
    x = rng.permutation(24).reshape(2, 3, 4).astype(np.float64) / 10
    y = F.max(x, axis=(0, 2), keepdims=True)
    np.testing.assert_array_equal(y.array, x.max(axis=(0, 2), keepdims=True))
    check_backward(lambda v: F.max(v, axis=(2, 0)), (x,), rng.standard_normal(3), seed=1)
    check_backward(lambda v: F.min(v, axis=(-1,)), (x,), rng.standard_normal((2, 3)), seed=2)


@pytest.mark.parametrize("name", ["max", "min"])
def test_max_bad_axes(name):
    f = getattr(F, name)
    with pytest.raises(ValueError, match=rf"{name}: axis=2 is out of range for an input with 2 dimensions"):
        f(np.ones((2, 3)), axis=2)
    with pytest.raises(ValueError, match=rf"{name}: axis=\(0, -2\) repeats an axis"):
        f(np.ones((2, 3)), axis=(0, -2))
    with pytest.raises(TypeError, match=rf"{name}: axis must be an int, got float"):
        f(np.ones((2, 3)), axis=1.0)
    with pytest.raises(ValueError, match=rf"{name}: cannot reduce over an empty axis \(input shape \(2, 0\)"):
        f(np.ones((2, 0)), axis=1)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_argmax_is_int32_without_gradient_and_matches_numpy(name):
    x = mg.Variable(np.array([[1.0, 4.0, 4.0], [3.0, 2.0, 3.0]]))
    for axis in (None, 0, 1, -1):
        y = getattr(F, name)(x, axis=axis)
        np.testing.assert_array_equal(y.array, getattr(np, name)(x.array, axis=axis))
        assert y.dtype == np.int32 and not y.requires_grad and y.creator is None


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_argmax_bad_axes(name):
    f = getattr(F, name)
    with pytest.raises(TypeError, match=rf"{name}: axis must be an int, got tuple"):
        f(np.ones((2, 3)), axis=(0, 1))
    with pytest.raises(ValueError, match=rf"{name}: axis=-3 is out of range"):
        f(np.ones((2, 3)), axis=-3)
    with pytest.raises(ValueError, match=rf"{name}: cannot search an empty input \(shape \(0, 3\)"):
        f(np.ones((0, 3)), axis=0)
