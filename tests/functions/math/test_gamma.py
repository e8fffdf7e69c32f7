"""lgamma, digamma, polygamma: float64 accuracy on wide grids (math.lgamma, series summed far out), the poles,
NaN, dtypes, the chain of gradients and the argument errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F

EULER_GAMMA = 0.5772156649015329


def _digamma_series(x, terms=4000):
    a, b = terms + x, terms + 1.0
    tail = (math.log(a / b) - 1 / (2 * a) + 1 / (2 * b) - 1 / (12 * a * a) + 1 / (12 * b * b)
            + 1 / (120 * a ** 4) - 1 / (120 * b ** 4))
    return -EULER_GAMMA + math.fsum(1 / (k + 1) - 1 / (k + x) for k in range(terms)) + tail


def _polygamma_series(n, x, terms=4000):
    a = x + terms
    tail = 1 / (n * a ** n) + 1 / (2 * a ** (n + 1)) + (n + 1) / (12 * a ** (n + 2))
    return (-1) ** (n + 1) * math.factorial(n) * (math.fsum((x + k) ** -(n + 1) for k in range(terms)) + tail)


def test_lgamma_matches_math_lgamma_on_a_wide_grid():
    x = np.concatenate([np.linspace(1e-3, 300.0, 30001), np.geomspace(1e-300, 1e300, 601),
                        np.linspace(-60.05, -0.05, 601), -np.geomspace(1e-300, 1e-3, 50)])
    expected = np.array([math.lgamma(v) for v in x])
    # near the zeros of lgamma (1, 2, and between the negative poles, where the reflection subtracts two
    # nearly equal logs) only absolute accuracy holds (math.lgamma's too): the atol covers those points
    np.testing.assert_allclose(F.lgamma(x).array, expected, rtol=3e-15, atol=1e-14)


def test_lgamma_keeps_relative_precision_at_its_zeros_1_and_2():
    zeta3 = 1.2020569031595942
    for zero, linear, quadratic, cubic in ((1.0, -EULER_GAMMA, math.pi ** 2 / 12, -zeta3 / 3),
                                           (2.0, 1 - EULER_GAMMA, (math.pi ** 2 / 6 - 1) / 2, -(zeta3 - 1) / 3)):
        z = (zero + np.array([1e-12, -1e-9, 3e-6, -2e-6])) - zero  # the offsets really passed; z^4 is negligible
        taylor = linear * z + quadratic * z ** 2 + cubic * z ** 3
        np.testing.assert_allclose(F.lgamma(zero + z).array, taylor, rtol=1e-14)


def test_lgamma_edges():
    y = F.lgamma(np.array([0.0, -0.0, -1.0, -7.0, np.inf, -np.inf, 1.0, 2.0, 1e308])).array
    np.testing.assert_array_equal(y, [np.inf] * 6 + [0.0, 0.0, np.inf])
    assert np.isnan(F.lgamma(np.array([np.nan])).array[0])
    np.testing.assert_allclose(F.lgamma(np.array([1e-300])).array, [math.log(1e300)], rtol=1e-15)


def test_digamma_matches_a_series_summed_far_out():
    x = np.concatenate([np.linspace(0.01, 40.0, 401), np.linspace(-9.95, -0.05, 100) + 0.013, [1e-8, 1e5]])
    expected = np.array([_digamma_series(v) for v in x])
    np.testing.assert_allclose(F.digamma(x).array, expected, rtol=1e-14, atol=1e-14)  # atol: the root 1.4616...


def test_digamma_edges():
    y = F.digamma(np.array([1.0, 0.0, -1.0, -3.0, np.inf, np.nan, 1e-300])).array
    assert math.isclose(y[0], -EULER_GAMMA, rel_tol=2e-15) and np.isnan(y[1:4]).all()
    assert y[4] == np.inf and np.isnan(y[5]) and math.isclose(y[6], -1e300, rel_tol=1e-15)  # psi(x) ~ -1/x


@pytest.mark.parametrize("n", [1, 2, 3, 6, 12])
def test_polygamma_matches_the_hurwitz_zeta_series(n):
    x = np.concatenate([np.linspace(0.05, 50.0, 100), np.linspace(-4.9, -0.1, 25) + 0.0123])
    expected = np.array([_polygamma_series(n, v) for v in x])
    np.testing.assert_allclose(F.polygamma(n, x).array, expected, rtol=1e-14)


def test_polygamma_special_values_poles_and_order_zero():
    np.testing.assert_allclose(F.polygamma(np.array([1, 2, 3]), np.ones(3)).array,
                               [math.pi ** 2 / 6, -2 * 1.2020569031595942, math.pi ** 4 / 15], rtol=1e-15)
    x = np.array([0.3, 2.5])
    np.testing.assert_array_equal(F.polygamma(0, x).array, F.digamma(x).array)
    poles = F.polygamma(np.array([1, 2]), np.array([-2.0, 0.0])).array
    assert poles[0] == np.inf and np.isnan(poles[1])


def test_polygamma_broadcasts_n_against_x():
    y = F.polygamma(np.array([[1], [2]]), np.array([0.5, 1.5, 3.0]))
    assert y.shape == (2, 3)
    np.testing.assert_allclose(y.array[1], [_polygamma_series(2, v) for v in (0.5, 1.5, 3.0)], rtol=1e-14)


def test_the_gradients_chain_lgamma_digamma_polygamma():
    x = mg.Variable(np.array([0.7, 2.5, -1.5]))
    gx, = mg.grad([F.sum(F.lgamma(x))], [x], enable_double_backprop=True)
    np.testing.assert_allclose(gx.array, [_digamma_series(v) for v in x.array], rtol=1e-14)
    F.sum(gx).backward()
    np.testing.assert_allclose(x.grad, [_polygamma_series(1, v) for v in x.array], rtol=1e-14)
    x = mg.Variable(np.array([1.5]))
    F.sum(F.polygamma(np.array([2]), x)).backward()
    np.testing.assert_allclose(x.grad, [_polygamma_series(3, 1.5)], rtol=1e-14)


@pytest.mark.parametrize("name", ["lgamma", "digamma"])
def test_dtype_kept_empty_and_integer_inputs(name):
    for dtype in (np.float16, np.float32):
        x = np.array([0.5, 3.25], dtype=dtype)
        y = getattr(F, name)(x).array
        assert y.dtype == dtype
        np.testing.assert_array_equal(y, getattr(F, name)(x.astype(np.float64)).array.astype(dtype))
    assert getattr(F, name)(np.empty((0, 2))).shape == (0, 2)
    with pytest.raises(TypeError, match=f"{name}: x must have a floating-point dtype"):
        getattr(F, name)(np.arange(3))


def test_polygamma_argument_errors():
    with pytest.raises(TypeError, match="polygamma: n must have an integer dtype"):
        F.polygamma(np.array([1.0]), np.ones(1))
    with pytest.raises(ValueError, match="polygamma: n must be non-negative"):
        F.polygamma(np.array([-1]), np.ones(1))
    with pytest.raises(ValueError, match=r"polygamma: n of shape \(2,\) does not broadcast with x of shape \(3,\)"):
        F.polygamma(np.array([1, 2]), np.ones(3))
    with pytest.raises(TypeError, match="polygamma: x must have a floating-point dtype"):
        F.polygamma(1, np.arange(3))
    with pytest.raises(TypeError, match="polygamma"):
        F.polygamma([1], np.ones(1))
    assert F.polygamma(np.array([1], dtype=np.int32), np.ones(1, dtype=np.float32)).dtype == np.float32
