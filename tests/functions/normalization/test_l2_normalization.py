"""normalize: unit norms, eps semantics (added to the norm), zero vectors, axes."""

from __future__ import annotations

import numpy
import pytest

import minigrad.functions as F


def test_rows_get_unit_norm_and_eps_is_added_to_the_norm():
    x = numpy.array([[3.0, 4.0], [0.0, 0.0]])
    numpy.testing.assert_allclose(F.normalize(x, eps=1.0).array, [[0.5, 4 / 6], [0.0, 0.0]])
    y = F.normalize(numpy.random.default_rng(0).standard_normal((3, 4, 5)), axis=(0, 2)).array
    numpy.testing.assert_allclose((y ** 2).sum(axis=(0, 2)), numpy.ones(4), rtol=1e-4)


def test_bad_axis_and_dtype():
    with pytest.raises(ValueError, match="normalize: axis=2 is out of range"):
        F.normalize(numpy.zeros((2, 3)), axis=2)
    with pytest.raises(TypeError, match="normalize: x must have a floating-point dtype"):
        F.normalize(numpy.zeros((2, 3), numpy.int64))
