"""F.zeta: closed forms, the recurrence in q, agreement with polygamma, SciPy's domain, gradients in q
(numerical, first and second order) and the argument errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import check_backward, check_double_backward


def test_closed_forms_of_riemanns_zeta_and_q_one_half():
    x = np.array([2.0, 4.0, 2.0, 6.0])
    q = np.array([1.0, 1.0, 0.5, 1.0])
    expected = [math.pi ** 2 / 6, math.pi ** 4 / 90, math.pi ** 2 / 2, math.pi ** 6 / 945]
    np.testing.assert_allclose(F.zeta(x, q).array, expected, rtol=1e-15)


def test_the_recurrence_in_q_and_polygamma():
    rng = np.random.default_rng(0)
    x = rng.uniform(1.05, 40.0, 200)
    q = rng.uniform(0.01, 30.0, 200)
    # zeta(x, q) - zeta(x, q + 1) = q^-x
    np.testing.assert_allclose(F.zeta(x, q).array - F.zeta(x, q + 1).array, q ** -x, rtol=1e-12)
    # psi^(n)(q) = (-1)^(n+1) n! zeta(n + 1, q)
    n = np.array([1, 2, 5])
    q = np.array([0.3, 2.5, 7.0])
    expected = (-1.0) ** (n + 1) * np.array([math.factorial(k) for k in n]) * F.zeta(n + 1.0, q).array
    np.testing.assert_allclose(F.polygamma(n, q).array, expected, rtol=1e-13)


def test_scipys_domain_and_negative_q():
    y = F.zeta(np.array([0.5, 1.0, 2.0, 2.5, 3.0]), np.array([1.0, 2.0, -1.0, -1.5, -1.5])).array
    assert np.isnan(y[0]) and y[1] == np.inf and y[2] == np.inf and np.isnan(y[3])
    # an integer x takes a negative q: the terms (q + k)^-3 of the sum, k = 0, 1, then zeta(3, 0.5)
    np.testing.assert_allclose(y[4], (-1.5) ** -3 + (-0.5) ** -3 + 7 * 1.2020569031595942, rtol=1e-14)
    # large x: the first term is the value
    np.testing.assert_allclose(F.zeta(np.array([300.0]), np.array([1.5])).array, [1.5 ** -300], rtol=1e-14)


def test_the_gradient_is_minus_x_zeta_of_x_plus_one_and_x_gets_none():
    q = mg.Variable(np.array([1.0, 2.5]))
    F.sum(F.zeta(np.array([2.0, 3.5]), q)).backward()
    np.testing.assert_allclose(q.grad, [-2 * 1.2020569031595942, -3.5 * F.zeta(4.5, np.array([2.5])).array[0]],
                               rtol=1e-14)
    x = mg.Variable(np.array([2.0, 3.0]), requires_grad=False)
    assert F.zeta(x, q).shape == (2,)
    check_backward(lambda q: F.zeta(np.array([[1.5], [4.0]]), q), (np.array([0.7, 1.3, 2.9]),),
                   np.array([[0.3, -1.0, 0.5], [1.2, 0.4, -0.7]]))
    check_double_backward(lambda q: F.zeta(2.5, q), (np.array([0.7, 1.3, -0.5]) + 1.0,), np.array([0.3, -1.0, 0.5]),
                          (np.array([0.2, 0.6, -0.4]),))


def test_dtypes_follow_q():
    assert F.zeta(2, np.array([1.0], np.float16)).dtype == np.float16
    assert F.zeta(np.array([2.0]), np.array([1.0], np.float32)).dtype == np.float32


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.zeta(mg.Variable(np.array([2.0])), np.ones(1)), TypeError, "zeta: x is not differentiable"),
    (lambda: F.zeta(2.0, np.ones(2, np.int32)), TypeError, "zeta: q must have a floating-point dtype"),
    (lambda: F.zeta(np.ones(3), np.ones(2)), ValueError, r"zeta: x of shape \(3,\) does not broadcast"),
    (lambda: F.zeta(np.array(["a"]), np.ones(1)), TypeError, "zeta: x must be a real number or array"),
    (lambda: F.zeta(3, np.array([-1e9 - 0.5])), ValueError, "zeta: q must be >= -10000"),
])
def test_bad_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()
