"""gaussian: the reparameterised sample's distribution, its fixed-eps form, its gradients and its errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


def test_samples_have_the_requested_mean_and_variance_in_training_and_test_mode():
    np.random.seed(0)
    mean = np.full(200_000, 3.0)
    ln_var = np.full(200_000, np.log(0.25))  # standard deviation 0.5
    for train in (True, False):  # Chainer's gaussian samples in both modes
        with mg.using_config("train", train):
            z = F.gaussian(mean, ln_var).array
        assert abs(z.mean() - 3.0) < 0.01 and abs(z.std() - 0.5) < 0.01  # 0.5 / sqrt(2e5) ~ 0.001
        assert abs(((z - 3.0) / 0.5) ** 4).mean() - 3.0 < 0.1  # a normal's fourth moment, not a uniform's


def test_a_given_eps_is_used_and_returned_and_a_drawn_one_is_returned():
    mean, ln_var = np.array([1.0, -2.0, 0.0]), np.array([0.0, np.log(9.0), -2.0])
    eps = np.array([0.5, -1.0, 2.0])
    z, used = F.gaussian(mean, ln_var, eps=eps, return_eps=True)
    np.testing.assert_allclose(z.array, [1.5, -5.0, 2.0 * np.exp(-1.0)])
    assert used is eps
    z, drawn = F.gaussian(mean, ln_var, return_eps=True)
    np.testing.assert_allclose(z.array, mean + np.exp(ln_var / 2) * drawn)


def test_gradients_are_one_for_mean_and_half_the_noise_term_for_ln_var():
    mean, ln_var = mg.Variable(np.array([0.5, 1.0])), mg.Variable(np.array([0.2, -0.4]))
    eps = np.array([1.5, -0.5])
    F.sum(F.gaussian(mean, ln_var, eps=eps)).backward()
    np.testing.assert_allclose(mean.grad, [1.0, 1.0])
    np.testing.assert_allclose(ln_var.grad, 0.5 * np.exp(ln_var.array / 2) * eps)


def test_float16_in_float16_out_and_a_strided_mean():
    mean = np.arange(8.0, dtype=np.float16)[::2]
    z = F.gaussian(mean, np.zeros(4, np.float16), eps=np.ones(4))
    assert z.dtype == np.float16
    np.testing.assert_array_equal(z.array, mean + 1)


@pytest.mark.parametrize("kwargs, error, message", [
    ({"ln_var": np.zeros(2)}, ValueError, "mean and ln_var must have the same shape"),
    ({"ln_var": np.zeros(3, np.float32)}, TypeError, "same dtype"),
    ({"eps": np.zeros(2)}, ValueError, "eps must be an array of mean's shape (3,)"),
    ({"eps": [0.0, 0.0, 0.0]}, ValueError, "eps must be an array"),
    ({"noise": np.zeros(3)}, TypeError, "unexpected keyword argument(s) ['noise']"),
    ({"ln_var": np.zeros(3, np.int64)}, TypeError, "gaussian"),
])
def test_bad_arguments_name_the_function_and_the_shapes(kwargs, error, message):
    arguments = {"mean": np.zeros(3), "ln_var": np.zeros(3), **kwargs}
    with pytest.raises(error) as info:
        F.gaussian(arguments.pop("mean"), arguments.pop("ln_var"), **arguments)
    assert message in str(info.value) and "gaussian" in str(info.value)
