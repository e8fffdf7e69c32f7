"""The axis argument of every reduction: None, an int or a tuple of ints, as in NumPy and Chainer."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad.functions as F

REDUCTIONS = {"sum": F.sum, "prod": F.prod, "max": F.max, "min": F.min, "logsumexp": F.logsumexp, "mean": F.mean}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_a_list_of_axes_is_a_type_error_as_in_numpy(name):
    x = np.ones((3, 2, 4))
    with pytest.raises(TypeError, match=rf"{name}: axis must be None, an int or a tuple of ints, got list \[0\]"):
        REDUCTIONS[name](x, axis=[0])
    with pytest.raises(TypeError):
        np.sum(x, axis=[0])  # the reference: NumPy refuses it too


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_a_tuple_holding_a_non_int_is_a_type_error_before_any_range_check(name):
    """Chainer's test_invalid_axis_type_in_tuple: (1, 'x') on a 1-d input is a TypeError, not the ValueError
    that axis 1 alone would give."""
    with pytest.raises(TypeError, match=rf"{name}: axis must be None, an int or a tuple of ints, got \(1, 'x'\)"):
        REDUCTIONS[name](np.ones(1), axis=(1, "x"))
    with pytest.raises(ValueError, match=rf"{name}: axis=1 is out of range for an input with 1 dimensions"):
        REDUCTIONS[name](np.ones(1), axis=(1,))
