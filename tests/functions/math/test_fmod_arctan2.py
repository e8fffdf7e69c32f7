"""ceil, fix, cbrt, fmod and arctan2: values at the edges, Chainer's semantics, broadcasting and errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


@pytest.mark.parametrize("name", ["ceil", "fix"])
def test_rounding_outputs_are_constants_of_the_input_dtype(name):
    x = mg.Variable(np.array([-1.5, 0.0, 2.5], dtype=np.float16))
    y = getattr(F, name)(x)
    assert not y.requires_grad and y.creator is None and y.dtype == np.float16


def test_ceil_and_fix_values_against_python_math():
    values = [-2.5, -1.0, -0.5, -0.0, 0.0, 0.3, 1.0, 2.7, 1e300, -1e300]
    x = np.array(values)
    np.testing.assert_array_equal(F.ceil(x).array, [float(math.ceil(v)) for v in values])
    np.testing.assert_array_equal(F.fix(x).array, [float(math.trunc(v)) for v in values])
    assert np.isnan(F.fix(np.array([np.nan])).array[0]) and F.ceil(np.array([-np.inf])).array[0] == -np.inf


@pytest.mark.parametrize("name", ["ceil", "fix", "cbrt"])
def test_integer_input_is_a_type_error(name):
    with pytest.raises(TypeError, match=f"{name}: x must have a floating-point dtype"):
        getattr(F, name)(np.arange(3))


def test_cbrt_is_the_real_cube_root_and_its_gradient():
    x = mg.Variable(np.array([-27.0, -0.125, 8.0, 1e-300]))
    y = F.cbrt(x)
    np.testing.assert_allclose(y.array, [-3.0, -0.5, 2.0, 1e-100], rtol=1e-15)
    F.sum(y).backward()
    np.testing.assert_allclose(x.grad[:3], [1 / 27.0, 4 / 3.0, 1 / 12.0], rtol=1e-14)


def test_fmod_takes_the_sign_of_x_unlike_python_modulo():
    x = np.array([5.5, -5.5, 5.5, -5.5, 1.0])
    d = np.array([2.0, 2.0, -2.0, -2.0, 0.5])
    np.testing.assert_array_equal(F.fmod(x, d).array, [math.fmod(a, b) for a, b in zip(x, d)])


def test_fmod_gradients_and_broadcasting():
    x = mg.Variable(np.array([[5.5, -3.25], [0.75, 7.0]]))
    d = mg.Variable(np.array([2.0, -1.5]))
    F.sum(F.fmod(x, d)).backward()
    np.testing.assert_array_equal(x.grad, np.ones((2, 2)))
    # d/dd (x - d * trunc(x / d)) = -trunc(x / d), summed over the broadcast rows
    np.testing.assert_array_equal(d.grad, [-(2.0 + 0.0), -(2.0 + -4.0)])


def test_fmod_with_a_scalar_keeps_float32():
    y = F.fmod(np.array([3.5], dtype=np.float32), 2.0)
    assert y.dtype == np.float32 and y.array[0] == 1.5


def test_fmod_errors_name_the_function_and_the_argument():
    with pytest.raises(TypeError, match="fmod: divisor must have a floating-point dtype"):
        F.fmod(np.ones(2), np.ones(2, dtype=np.int32))
    with pytest.raises(ValueError, match="fmod"):
        F.fmod(np.ones((2, 3)), np.ones((4,)))


def test_arctan2_quadrants_and_edges_against_math_atan2():
    pairs = [(1.0, 1.0), (1.0, -1.0), (-1.0, -1.0), (-1.0, 1.0), (0.0, -1.0), (-0.0, -1.0), (0.0, 0.0),
             (1.0, 0.0), (np.inf, 1.0), (2.0, np.inf)]
    y = F.arctan2(np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])).array
    np.testing.assert_allclose(y, [math.atan2(a, b) for a, b in pairs], rtol=1e-15, atol=0)
    assert np.isnan(F.arctan2(np.array([np.nan]), np.array([1.0])).array[0])


def test_arctan2_gradient_is_that_of_the_polar_angle():
    x1 = mg.Variable(np.array([3.0, -1.0]))
    x2 = mg.Variable(np.array([[4.0], [2.0]]))  # broadcasts to (2, 2)
    F.sum(F.arctan2(x1, x2)).backward()
    r2 = x1.array ** 2 + x2.array ** 2
    np.testing.assert_allclose(x1.grad, (x2.array / r2).sum(axis=0), rtol=1e-14)
    np.testing.assert_allclose(x2.grad, (-x1.array / r2).sum(axis=1, keepdims=True), rtol=1e-14)


def test_arctan2_errors_name_the_function_and_the_argument():
    with pytest.raises(TypeError, match="arctan2: x2 must have a floating-point dtype"):
        F.arctan2(np.ones(2), np.arange(2))
    with pytest.raises(TypeError, match="arctan2"):
        F.arctan2([1.0], np.ones(1))
