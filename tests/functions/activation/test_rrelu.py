"""F.rrelu: random slopes in U(l, u) in training, their mean in test mode, the slopes' gradient, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


def test_training_draws_a_slope_per_element_in_l_u_and_uses_it_for_negative_inputs():
    x = np.concatenate([-np.ones(20000), np.ones(10)])
    y, r = F.rrelu(x, l=0.1, u=0.3, return_r=True)
    assert r.shape == x.shape and r.dtype == x.dtype
    assert 0.1 <= r.min() and r.max() < 0.3
    assert abs(r.mean() - 0.2) < 0.003 and abs(r.std() - 0.2 / np.sqrt(12)) < 0.003  # U(0.1, 0.3)
    np.testing.assert_array_equal(y.array, np.where(x >= 0, x, r * x))


def test_the_gradient_is_one_or_the_slope():
    x = mg.Variable(np.array([-2.0, -0.5, 0.0, 3.0], dtype=np.float32))
    r = np.array([0.15, 0.2, 0.25, 0.3], dtype=np.float32)
    F.sum(F.rrelu(x, r=r)).backward()
    np.testing.assert_array_equal(x.grad, np.array([0.15, 0.2, 1.0, 1.0], dtype=np.float32))
    assert x.grad.dtype == np.float32


def test_test_mode_uses_the_mean_slope_whatever_r_is_as_chainer_does():
    x = np.array([-1.0, 2.0])
    with mg.using_config("train", False):
        y, r = F.rrelu(x, l=0.2, u=0.4, r=np.array([0.9, 0.9]), return_r=True)
    np.testing.assert_allclose(y.array, [-0.3, 2.0])
    np.testing.assert_allclose(r, [0.3, 0.3])


@pytest.mark.parametrize("call, error, message", [
    (lambda x: F.rrelu(x, l=0.3, u=0.2), ValueError, r"rrelu: l and u must satisfy 0 <= l < u < 1, got l=0.3"),
    (lambda x: F.rrelu(x, u=1.0), ValueError, "rrelu: l and u must satisfy"),
    (lambda x: F.rrelu(x, l=-0.1), ValueError, "rrelu: l and u must satisfy"),
    (lambda x: F.rrelu(x, r=np.ones(2)), ValueError, r"rrelu: r must be an array of x's shape \(3,\), got \(2,\)"),
    (lambda x: F.rrelu(x, train=True), TypeError, r"rrelu: unexpected keyword argument\(s\) \['train'\]"),
    (lambda x: F.rrelu(x.astype(np.int32)), TypeError, "rrelu: x must have a floating-point dtype"),
])
def test_bad_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call(np.ones(3))
