"""gelu and the erf/erfc it is built on (NumPy has no erf): accuracy over the whole real line."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.functions.activation.gelu import erf_array, erfc_array


def _grid():
    dense = np.linspace(-30.0, 30.0, 24001)
    tiny = np.geomspace(1e-300, 1.0, 400)
    # both sides of the switch between the series and the continued fraction
    switch = 2.0 + np.array([-1e-9, -1e-15, 0.0, 1e-15, 1e-9])
    return np.concatenate([dense, tiny, -tiny, switch, -switch, [0.0, -0.0, 1e10, -1e10]])


def test_erf_matches_math_erf_to_1e12_relative_everywhere():
    x = _grid()
    expected = np.array([math.erf(v) for v in x])
    got = erf_array(x)
    nonzero = expected != 0
    assert np.all(got[~nonzero] == 0)
    assert np.max(np.abs(got[nonzero] / expected[nonzero] - 1)) < 1e-12


def test_erfc_is_relatively_accurate_in_the_tails():
    x = _grid()
    expected = np.array([math.erfc(v) for v in x])
    got = erfc_array(x)
    normal = expected > np.finfo(np.float64).tiny  # below that only subnormal precision exists
    assert np.max(np.abs(got[normal] / expected[normal] - 1)) < 1e-12
    assert np.all(np.abs(got[~normal] - expected[~normal]) < 1e-300)


def test_erf_special_values_and_dtypes():
    x = np.array([np.inf, -np.inf, np.nan, 0.0])
    np.testing.assert_array_equal(erf_array(x), [1.0, -1.0, np.nan, 0.0])
    np.testing.assert_array_equal(erfc_array(x), [0.0, 2.0, np.nan, 1.0])
    for dtype in (np.float16, np.float32):
        values = np.array([-1.0, 0.25, 2.5], dtype=dtype)
        out = erf_array(values)
        assert out.dtype == dtype
        np.testing.assert_allclose(out, [math.erf(float(v)) for v in values], rtol=np.finfo(dtype).eps)


def test_gelu_is_relatively_accurate_deep_in_the_left_tail():
    x = np.array([-5.0, -10.0, -20.0, -35.0])
    expected = [v * 0.5 * math.erfc(-v / math.sqrt(2)) for v in x]
    got = F.gelu(x).array
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    assert np.all(got < 0)  # not rounded to zero where 1 + erf(x) would cancel


def test_gelu_first_and_second_derivatives_match_the_closed_forms():
    x = mg.Variable(np.linspace(-4, 4, 17))
    gx, = mg.grad([F.sum(F.gelu(x))], [x], enable_double_backprop=True)
    v = x.array
    pdf = np.exp(-v * v / 2) / math.sqrt(2 * math.pi)
    cdf = np.array([0.5 * math.erfc(-t / math.sqrt(2)) for t in v])
    np.testing.assert_allclose(gx.array, cdf + v * pdf, rtol=1e-13, atol=1e-15)
    ggx, = mg.grad([F.sum(gx)], [x])
    np.testing.assert_allclose(ggx.array, (2 - v * v) * pdf, rtol=1e-12, atol=1e-15)


def test_gelu_refuses_integer_input():
    with pytest.raises(TypeError, match=r"gelu: x must have a floating-point dtype, got int64"):
        F.gelu(np.arange(3, dtype=np.int64))
