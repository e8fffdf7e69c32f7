"""F.gumbel_softmax: samples on the simplex whose argmax follows pi (the Gumbel-max trick), given noise, tau, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


def test_samples_lie_on_the_simplex_and_their_argmax_follows_pi():
    np.random.seed(0)
    pi = np.array([0.6, 0.3, 0.1])
    log_pi = np.tile(np.log(pi), (20000, 1))
    y, g = F.gumbel_softmax(log_pi, tau=0.1, return_g=True)
    np.testing.assert_allclose(y.array.sum(axis=1), 1.0)
    np.testing.assert_allclose(y.array, F.softmax((log_pi + g) / 0.1).array)
    frequencies = np.bincount(y.array.argmax(axis=1), minlength=3) / len(log_pi)
    np.testing.assert_allclose(frequencies, pi, atol=0.015)  # argmax(log pi + g) ~ Categorical(pi)


def test_the_noise_is_standard_gumbel():
    np.random.seed(1)
    _, g = F.gumbel_softmax(np.zeros((50000, 2)), return_g=True)
    assert abs(g.mean() - np.euler_gamma) < 0.02 and abs(g.var() - np.pi ** 2 / 6) < 0.05


def test_gradients_reach_log_pi_and_a_variable_temperature():
    log_pi = mg.Variable(np.log(np.array([[0.5, 0.3, 0.2]])))
    tau = mg.Variable(np.array([[0.7]]))
    g = np.array([[0.1, -0.4, 0.3]])
    y = F.gumbel_softmax(log_pi, tau, g=g)
    (y[0, 0] * 1.0).backward()
    p = y.array[0]
    expected = p[0] * (np.eye(3)[0] - p) / 0.7  # d softmax_0 / d log_pi
    np.testing.assert_allclose(log_pi.grad[0], expected)
    z = (log_pi.array + g)[0] / 0.7
    np.testing.assert_allclose(tau.grad[0, 0], -(expected * z).sum(), rtol=1e-12)


def test_a_0dim_input_gives_the_constant_one_as_in_chainer():
    y, g = F.gumbel_softmax(np.array(0.3), return_g=True)
    assert float(y.array) == 1.0 and y.creator is None and g is None


@pytest.mark.parametrize("kwargs, error, message", [
    ({"tau": 0.0}, ValueError, "gumbel_softmax: tau must be positive, got 0.0"),
    ({"axis": 2}, ValueError, "gumbel_softmax: axis=2 is out of range"),
    ({"g": np.zeros(3)}, ValueError, r"gumbel_softmax: g must be an array of log_pi's shape \(2, 3\)"),
    ({"noise": 1}, TypeError, r"gumbel_softmax: unexpected keyword argument\(s\) \['noise'\]"),
])
def test_bad_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        F.gumbel_softmax(np.zeros((2, 3)), **kwargs)
