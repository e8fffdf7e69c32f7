"""elu and selu: values, no overflow on large inputs, the selu constants."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


def test_large_positive_inputs_do_not_overflow_the_unused_exponential():
    x = np.array([-1e4, 1e4, 6e4], dtype=np.float16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = F.elu(x)
    np.testing.assert_array_equal(y.array, np.array([-1.0, 1e4, 6e4], dtype=np.float16))


def test_selu_uses_the_self_normalizing_constants():
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    x = np.array([-1.5, 0.5])
    expected = [scale * alpha * math.expm1(-1.5), scale * 0.5]
    np.testing.assert_allclose(F.selu(x).array, expected, rtol=1e-15)
    np.testing.assert_allclose(F.selu(x, alpha=1.0, scale=2.0).array, 2 * F.elu(x).array, rtol=1e-15)


def test_elu_second_derivative_on_the_negative_side_is_alpha_exp_x():
    x = mg.Variable(np.array([-2.0, -0.5, 1.0]))
    gx, = mg.grad([F.sum(F.elu(x, alpha=0.7))], [x], enable_double_backprop=True)
    np.testing.assert_allclose(gx.array, [0.7 * math.exp(-2.0), 0.7 * math.exp(-0.5), 1.0], rtol=1e-14)
    ggx, = mg.grad([F.sum(gx)], [x])
    np.testing.assert_allclose(ggx.array, [0.7 * math.exp(-2.0), 0.7 * math.exp(-0.5), 0.0], rtol=1e-14)


def test_bad_alpha():
    with pytest.raises(TypeError, match=r"elu: alpha must be a real number, got NoneType"):
        F.elu(np.ones(2), alpha=None)
    with pytest.raises(ValueError, match=r"selu: scale must be a finite number, got nan"):
        F.selu(np.ones(2), scale=float("nan"))
