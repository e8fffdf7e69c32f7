"""erf, erfc, erfinv, erfcinv, ndtr, ndtri, log_ndtr: float64 accuracy against Python's math module on wide
grids, the edge values, dtypes, gradients and errors (the registry sweep checks the rest)."""

from __future__ import annotations

import math
from decimal import Decimal, getcontext

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F

NAMES = ["erf", "erfc", "erfinv", "erfcinv", "ndtr", "ndtri", "log_ndtr"]
GRID = np.concatenate([np.linspace(-30.0, 30.0, 12001), np.geomspace(1e-300, 1.0, 200),
                       -np.geomspace(1e-300, 1.0, 200), [0.0, -0.0, 0.999999, 1.0, 1.000001, -1.0]])


def _relative_error(actual, expected):
    scale = np.where(expected == 0, 1.0, np.abs(expected))
    return np.abs(actual - expected) / scale


def test_erf_matches_math_erf_to_float64_rounding():
    expected = np.array([math.erf(v) for v in GRID])
    assert _relative_error(F.erf(GRID).array, expected).max() < 2e-15


def test_erfc_matches_math_erfc_relatively_down_to_the_smallest_normal():
    expected = np.array([math.erfc(v) for v in GRID])
    normal = expected >= np.finfo(np.float64).tiny
    assert _relative_error(F.erfc(GRID).array[normal], expected[normal]).max() < 5e-15
    np.testing.assert_array_less(F.erfc(GRID).array[~normal], 1e-307)


def _ndtr_exact(x: float) -> float:
    """ndtr(x) = erfc(t) / 2 at the exact t = -x / sqrt(2): math.erfc at the rounded t, moved by its slope."""
    getcontext().prec = 50
    t = -x / math.sqrt(2.0)
    offset = float(Decimal(-x) / Decimal(2).sqrt() - Decimal(t))
    return 0.5 * (math.erfc(t) - 2.0 / math.sqrt(math.pi) * math.exp(-t * t) * offset)


def test_ndtr_and_log_ndtr_match_an_exact_argument_reference():
    x = np.concatenate([np.linspace(-37.0, 8.0, 3001), [-1e-10, 1e-10]])
    expected = np.array([_ndtr_exact(v) for v in x])
    assert _relative_error(F.ndtr(x).array, expected).max() < 5e-15
    # log(1 - ndtr(-x)) for x > 0, where log(ndtr(x)) of the rounded ndtr(x) would lose the digits itself
    log_expected = np.array([math.log1p(-_ndtr_exact(-v)) if v > 0 else math.log(_ndtr_exact(v)) for v in x])
    np.testing.assert_allclose(F.log_ndtr(x).array, log_expected, rtol=2e-15, atol=1e-300)


def test_log_ndtr_far_tails():
    # left: log ndtr(x) = -x^2/2 - log(-x sqrt(2 pi)) + log(1 - 1/x^2 + 3/x^4 - ...) for x -> -inf
    x = np.array([-1e3, -1e5, -1e10, -1e100])
    inverse_square = (1 / x) ** 2
    expected = -0.5 * x ** 2 - np.log(-x * math.sqrt(2 * math.pi)) + np.log1p(-inverse_square + 3 * inverse_square ** 2)
    np.testing.assert_allclose(F.log_ndtr(x).array, expected, rtol=1e-15)
    # right: log(1 - ndtr(-x)), with ndtr(-x) far below float64's epsilon
    x = np.array([6.0, 10.0, 20.0])
    expected = np.array([math.log1p(-_ndtr_exact(-v)) for v in x])
    np.testing.assert_allclose(F.log_ndtr(x).array, expected, rtol=1e-14)


def _assert_brackets(function, targets, roots, ulps=12):
    """Each root is within a few units in the last place of the true one (relative error about 1e-15): the
    increasing function crosses the target between ``root - ulps * spacing`` and ``root + ulps * spacing``.
    (The widest misses are near erfinv(0.84) = 1, where erfc = 1 - erf keeps 3e-15 of relative error.)"""
    for target, root in zip(targets, roots):
        step = ulps * np.spacing(abs(root))
        assert function(root - step) <= target <= function(root + step), (target, root)


def test_erfinv_is_the_inverse_of_math_erf():
    y = np.concatenate([np.linspace(-1.0, 1.0, 2001)[1:-1], 1.0 - np.geomspace(1e-16, 0.5, 100),
                        np.geomspace(1e-300, 0.5, 100), -np.geomspace(1e-300, 0.5, 50)])
    _assert_brackets(math.erf, y, F.erfinv(y).array)


def test_erfcinv_is_the_inverse_of_math_erfc_down_to_subnormals():
    z = np.concatenate([np.geomspace(1e-320, 1.0, 400), np.linspace(0.0, 2.0, 1001)[1:-1],
                        2.0 - np.geomspace(1e-15, 0.5, 100)])
    _assert_brackets(lambda v: -math.erfc(v), -z, F.erfcinv(z).array)


def test_ndtri_is_the_inverse_of_ndtr():
    p = np.concatenate([np.geomspace(1e-300, 0.5, 200), 1.0 - np.geomspace(1e-16, 0.5, 100)])
    _assert_brackets(_ndtr_exact, p, F.ndtri(p).array)
    np.testing.assert_allclose(F.ndtri(np.array([0.975, 0.5, 0.025])).array, [1.959963984540054, 0.0,
                                                                                 -1.959963984540054], rtol=1e-15)


@pytest.mark.parametrize("name, x, expected", [
    ("erf", [np.inf, -np.inf, 0.0, -0.0], [1.0, -1.0, 0.0, -0.0]),
    ("erfc", [np.inf, -np.inf, 0.0], [0.0, 2.0, 1.0]),
    ("erfinv", [1.0, -1.0, 1.5, -1.0000001, 0.0], [np.inf, -np.inf, np.nan, np.nan, 0.0]),
    ("erfcinv", [0.0, 2.0, 1.0, -0.5, 2.5], [np.inf, -np.inf, 0.0, np.nan, np.nan]),
    ("ndtr", [np.inf, -np.inf, 0.0], [1.0, 0.0, 0.5]),
    ("ndtri", [0.0, 1.0, 0.5, -0.1, 1.1], [-np.inf, np.inf, 0.0, np.nan, np.nan]),
    ("log_ndtr", [np.inf, -np.inf, 0.0], [0.0, -np.inf, math.log(0.5)]),
])
def test_edge_values(name, x, expected):
    np.testing.assert_array_equal(getattr(F, name)(np.array(x)).array, expected)


@pytest.mark.parametrize("name", NAMES)
def test_nan_in_nan_out_and_the_dtype_kept(name):
    assert np.isnan(getattr(F, name)(np.array([np.nan, 0.5])).array[0])
    for dtype in (np.float16, np.float32):
        x = np.array([0.25, 0.5, 0.75], dtype=dtype)
        y = getattr(F, name)(x).array
        assert y.dtype == dtype
        np.testing.assert_array_equal(y, getattr(F, name)(x.astype(np.float64)).array.astype(dtype))


@pytest.mark.parametrize("name", NAMES)
def test_empty_and_strided_inputs(name):
    assert getattr(F, name)(np.empty((0, 3))).shape == (0, 3)
    x = np.linspace(0.05, 0.95, 12).reshape(3, 4)
    np.testing.assert_array_equal(getattr(F, name)(x.T).array, getattr(F, name)(x.T.copy()).array)


@pytest.mark.parametrize("name", NAMES)
def test_integer_input_is_a_type_error(name):
    with pytest.raises(TypeError, match=f"{name}: x must have a floating-point dtype"):
        getattr(F, name)(np.arange(3))


def test_gradients_are_the_textbook_derivatives():
    x = mg.Variable(np.array([-2.0, 0.3, 1.5]))
    F.sum(F.erf(x) + 2 * F.erfc(x)).backward()
    np.testing.assert_allclose(x.grad, [-2 / math.sqrt(math.pi) * math.exp(-v * v) for v in x.array], rtol=1e-15)
    # the inverse's slope is the reciprocal of math.erf's at the root
    y = mg.Variable(np.array([-0.9, 0.2, 0.999]))
    root = F.erfinv(y)
    F.sum(root).backward()
    np.testing.assert_allclose(y.grad, [math.sqrt(math.pi) / 2 * math.exp(r * r) for r in root.array], rtol=1e-14)


def test_log_ndtr_gradient_is_pdf_over_cdf_even_where_both_underflow():
    x = mg.Variable(np.array([-20.0, -1.0, 3.0, -1e4]))
    F.sum(F.log_ndtr(x)).backward()
    pdf_over_cdf = [math.exp(-v * v / 2) / math.sqrt(2 * math.pi) / _ndtr_exact(v) for v in x.array[:3]]
    np.testing.assert_allclose(x.grad[:3], pdf_over_cdf, rtol=1e-13)
    np.testing.assert_allclose(x.grad[3], 1e4 * (1 + 1e-8), rtol=1e-12)  # Mills ratio: -x (1 + 1/x^2 + ...)


def test_second_derivative_of_erf():
    x = mg.Variable(np.array([0.5, -1.25]))
    gx, = mg.grad([F.sum(F.erf(x))], [x], enable_double_backprop=True)
    F.sum(gx).backward()
    np.testing.assert_allclose(x.grad, -4 * x.array / math.sqrt(math.pi) * np.exp(-x.array ** 2), rtol=1e-14)
