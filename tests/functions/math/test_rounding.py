"""sign and floor are not differentiable: constant outputs, no graph, the right values."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


@pytest.mark.parametrize("name", ["sign", "floor"])
def test_output_is_a_constant_outside_the_graph(name):
    x = mg.Variable(np.array([-1.5, 0.0, 2.5], dtype=np.float32))
    y = getattr(F, name)(x)
    assert not y.requires_grad and y.creator is None
    assert y.dtype == np.float32


def test_values_match_numpy():
    x = np.array([-2.0, -1.5, -0.0, 0.0, 0.5, 3.0])
    np.testing.assert_array_equal(F.sign(x).array, np.sign(x))
    np.testing.assert_array_equal(F.floor(x).array, np.floor(x))


def test_used_as_a_constant_factor_it_gives_the_gradient_of_abs():
    x = mg.Variable(np.array([-2.0, 3.0]))
    F.sum(x * F.sign(x)).backward()
    np.testing.assert_array_equal(x.grad, [-1.0, 1.0])


def test_floor_of_integers_is_a_type_error():
    with pytest.raises(TypeError, match="floor: x must have a floating-point dtype"):
        F.floor(np.arange(3))
