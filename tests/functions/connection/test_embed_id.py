"""embed_id: bad ids, ignore_label, gradient accumulation over repeated ids."""

from __future__ import annotations

import numpy
import pytest

import minigrad as mg
import minigrad.functions as F


def test_repeated_ids_accumulate_and_ignored_ids_get_no_gradient():
    W = mg.Variable(numpy.arange(6.0).reshape(3, 2))
    y = F.embed_id(numpy.array([[1, 1], [-1, 2]]), W, ignore_label=-1)
    numpy.testing.assert_array_equal(y.array, [[[2, 3], [2, 3]], [[0, 0], [4, 5]]])
    F.sum(y).backward()
    numpy.testing.assert_array_equal(W.grad, [[0, 0], [2, 2], [1, 1]])


def test_out_of_range_ids():
    with pytest.raises(ValueError) as info:
        F.embed_id(numpy.array([0, 3, -1]), numpy.zeros((3, 2)))
    for word in ("embed_id", "[0, 3)", "(3, 2)", "[3, -1]"):
        assert word in str(info.value)
    with pytest.raises(ValueError, match=r"embed_id: .*ignore_label=-1; got \[-2\]"):
        F.embed_id(numpy.array([0, -2, -1]), numpy.zeros((3, 2)), ignore_label=-1)


def test_float_ids_and_bad_weights():
    with pytest.raises(TypeError, match="embed_id: x must have an integer dtype, got float64"):
        F.embed_id(numpy.array([0.0, 1.0]), numpy.zeros((3, 2)))
    with pytest.raises(ValueError, match=r"embed_id: W must have 2 dimensions, got shape \(3,\)"):
        F.embed_id(numpy.array([0, 1]), numpy.zeros(3))
    with pytest.raises(TypeError, match="embed_id: ignore_label"):
        F.embed_id(numpy.array([0, 1]), numpy.zeros((3, 2)), ignore_label=0.5)
