"""relu, leaky_relu, clipped_relu, relu6: values at and around the kinks, argument errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


def _grad(f, values):
    x = mg.Variable(np.array(values))
    F.sum(f(x)).backward()
    return x.grad


def test_gradients_at_the_kinks_are_the_chosen_one_sided_values():
    np.testing.assert_array_equal(_grad(F.relu, [-1.0, 0.0, 1.0]), [0.0, 0.0, 1.0])
    np.testing.assert_array_equal(_grad(F.leaky_relu, [-1.0, 0.0, 1.0]), [0.2, 1.0, 1.0])
    np.testing.assert_array_equal(_grad(lambda x: F.clipped_relu(x, 2.0), [-1.0, 0.0, 1.0, 2.0, 3.0]),
                                  [0.0, 0.0, 1.0, 0.0, 0.0])
    np.testing.assert_array_equal(_grad(F.relu6, [0.0, 5.9, 6.0, 6.1]), [0.0, 1.0, 0.0, 0.0])


def test_relu6_is_clipped_relu_at_six_and_keeps_float16():
    x = np.array([-3.0, 0.5, 5.5, 9.0], dtype=np.float16)
    y = F.relu6(x)
    assert y.dtype == np.float16
    np.testing.assert_array_equal(y.array, F.clipped_relu(x, 6.0).array)
    np.testing.assert_array_equal(y.array, np.array([0.0, 0.5, 5.5, 6.0], dtype=np.float16))


def test_second_derivative_is_zero_and_gradient_of_gradient_wrt_gy_is_the_slope():
    x = mg.Variable(np.array([-2.0, 3.0]))
    gy = mg.Variable(np.array([5.0, 7.0]))
    y = F.leaky_relu(x, slope=0.1)
    gx, = mg.grad([y], [x], [gy], enable_double_backprop=True)
    np.testing.assert_allclose(gx.array, [0.5, 7.0])
    ggy, ggx = mg.grad([F.sum(gx)], [gy, x])
    np.testing.assert_allclose(ggy.array, [0.1, 1.0])
    assert ggx is None  # the slope is a constant of the graph


def test_input_is_not_modified():
    x = np.array([-1.0, 2.0])
    F.relu(x)
    F.clipped_relu(x, 1.0)
    np.testing.assert_array_equal(x, [-1.0, 2.0])


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.relu(np.array([1, 2])), TypeError, r"relu: x must have a floating-point dtype, got int"),
    (lambda: F.relu([1.0, 2.0]), TypeError, r"relu: x must be a numpy.ndarray or cupy.ndarray, got list"),
    (lambda: F.leaky_relu(np.ones(2), slope="0.1"), TypeError, r"leaky_relu: slope must be a real number, got str"),
    (lambda: F.leaky_relu(np.ones(2), slope=np.inf), ValueError, r"leaky_relu: slope must be a finite number"),
    (lambda: F.clipped_relu(np.ones(2), z=0), ValueError, r"clipped_relu: z must be a positive number, got 0.0"),
    (lambda: F.clipped_relu(np.ones(2), z=np.ones(2)), TypeError, r"clipped_relu: z must be a real number"),
])
def test_bad_arguments_name_the_op_and_argument(call, error, message):
    with pytest.raises(error, match=message):
        call()
