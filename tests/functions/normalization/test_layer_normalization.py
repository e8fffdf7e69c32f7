"""layer_normalization: per-row statistics, bad shapes."""

from __future__ import annotations

import numpy
import pytest

import minigrad.functions as F


def test_each_row_is_normalized_then_scaled_and_shifted():
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((4, 6)) * 3 + 5
    y = F.layer_normalization(x, numpy.full(6, 2.0), numpy.full(6, -1.0)).array
    numpy.testing.assert_allclose(y.mean(axis=1), -numpy.ones(4), atol=1e-12)
    numpy.testing.assert_allclose(y.std(axis=1), 2 * numpy.ones(4), rtol=1e-5)


def test_bad_inputs():
    with pytest.raises(ValueError, match=r"layer_normalization: gamma must have shape \(3,\) .*\(2, 3\).*got \(2,\)"):
        F.layer_normalization(numpy.zeros((2, 3)), numpy.ones(2), numpy.zeros(3))
    with pytest.raises(ValueError, match=r"layer_normalization: x must have 2 dimensions, got shape \(2, 3, 4\)"):
        F.layer_normalization(numpy.zeros((2, 3, 4)), numpy.ones(3), numpy.zeros(3))
    with pytest.raises(TypeError, match="layer_normalization: beta has dtype float32"):
        F.layer_normalization(numpy.zeros((2, 3)), numpy.ones(3), numpy.zeros(3, numpy.float32))
