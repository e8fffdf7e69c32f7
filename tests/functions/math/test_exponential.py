"""log1p/expm1 accuracy near zero; the logarithms' bases."""

from __future__ import annotations

import numpy as np

import minigrad as mg
import minigrad.functions as F


def test_log1p_and_expm1_keep_tiny_values_that_naive_formulas_lose():
    x = np.array([1e-18, -3e-17])
    np.testing.assert_allclose(F.log1p(x).array, x, rtol=1e-15)
    np.testing.assert_allclose(F.expm1(x).array, x, rtol=1e-15)
    assert np.all(np.log(1 + x) == 0)  # what the naive formula would give


def test_log_bases():
    x = np.array([1.0, 2.0, 1024.0])
    np.testing.assert_allclose(F.log2(x).array, [0.0, 1.0, 10.0])
    np.testing.assert_allclose(F.log10(np.array([1000.0])).array, [3.0])


def test_second_derivative_of_log2_is_an_independent_closed_form():
    x = mg.Variable(np.array([0.5, 3.0]))
    y = F.log2(x)
    gx, = mg.grad([y], [x], [mg.Variable(np.ones(2))], enable_double_backprop=True)
    ggx, = mg.grad([gx], [x], [mg.Variable(np.ones(2))])
    np.testing.assert_allclose(ggx.array, -1 / (np.log(2) * x.array ** 2), rtol=1e-13)
