"""erfcx, arctanh, batch_l2_norm_squared, fixed_batch_renormalization and flip's Chainer form: values against
math / numpy, the tails, and the deprecation Chainer gives."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


def test_erfcx_is_exp_x2_erfc_and_finite_in_the_right_tail():
    x = np.array([-3.0, -0.5, 0.0, 0.7, 4.0, 12.0])
    np.testing.assert_allclose(F.erfcx(x).array, [math.exp(t * t) * math.erfc(t) for t in x], rtol=1e-13)
    far = F.erfcx(np.array([30.0, 1e3, 1e8], np.float32)).array
    np.testing.assert_allclose(far, 1 / (np.array([30.0, 1e3, 1e8]) * math.sqrt(math.pi)), rtol=1e-3)
    v = mg.Variable(np.array([0.7]))
    F.sum(F.erfcx(v)).backward()
    np.testing.assert_allclose(v.grad, 2 * 0.7 * math.exp(0.49) * math.erfc(0.7) - 2 / math.sqrt(math.pi))


def test_arctanh_inverts_tanh_and_its_gradient_is_one_over_one_minus_x_squared():
    x = mg.Variable(np.array([-0.9, 0.0, 0.3]))
    y = F.arctanh(x)
    np.testing.assert_allclose(np.tanh(y.array), x.array, rtol=1e-14, atol=1e-15)
    F.sum(y).backward()
    np.testing.assert_allclose(x.grad, 1 / (1 - x.array ** 2))


def test_batch_l2_norm_squared_sums_every_axis_but_the_first():
    x = np.arange(12.0).reshape(2, 3, 2)
    np.testing.assert_array_equal(F.batch_l2_norm_squared(x).array, (x ** 2).reshape(2, -1).sum(axis=1))
    np.testing.assert_array_equal(F.batch_l2_norm_squared(np.array([3.0, -2.0])).array, [9.0, 4.0])
    with pytest.raises(ValueError, match="batch_l2_norm_squared: x must have a batch axis"):
        F.batch_l2_norm_squared(np.float64(1.0))


def test_fixed_batch_renormalization_is_fixed_batch_normalization_and_deprecated_as_in_chainer():
    rng = np.random.default_rng(0)
    args = (rng.standard_normal((3, 2)), rng.random(2) + 0.5, rng.standard_normal(2), rng.standard_normal(2),
            rng.random(2) + 0.5)
    with pytest.warns(DeprecationWarning, match="fixed_batch_renormalization is deprecated"):
        y = F.fixed_batch_renormalization(*args, eps=1e-3)
    np.testing.assert_array_equal(y.array, F.fixed_batch_normalization(*args, eps=1e-3).array)


def test_flip_takes_chainers_argument_name():
    np.testing.assert_array_equal(F.flip(a=np.array([[1.0, 2.0]]), axis=1).array, [[2.0, 1.0]])
