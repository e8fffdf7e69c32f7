"""pad: every mode vs numpy.pad, gradients for awkward widths, bad-input errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import check_backward, check_double_backward

WIDTHS = [0, 1, (2, 0), ((0, 3), (1, 1)), ((5, 4), (2, 7))]


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect"])
@pytest.mark.parametrize("pad_width", WIDTHS)
@pytest.mark.parametrize("shape", [(3, 4), (1, 2), (2, 1)])
def test_pad_matches_numpy(mode, pad_width, shape):
    a = np.random.default_rng(0).standard_normal(shape)
    np.testing.assert_array_equal(F.pad(a, pad_width, mode).array, np.pad(a, pad_width, mode))


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect"])
def test_a_zero_dim_input_has_nothing_to_pad_as_in_numpy(mode):
    x = mg.Variable(np.array(2.0))
    y = F.pad(x, 1, mode)
    np.testing.assert_array_equal(y.array, np.pad(np.array(2.0), 1, mode))
    assert y.array is not x.array
    check_backward(lambda v: F.pad(v, 1, mode), np.array(2.0), np.array(0.5))


def test_constant_values_and_dtype():
    a = np.arange(3, dtype=np.float16)
    y = F.pad(a, 1, "constant", constant_values=-2.5)
    assert y.dtype == np.float16
    np.testing.assert_array_equal(y.array, [-2.5, 0.0, 1.0, 2.0, -2.5])


@pytest.mark.parametrize("constant_values", [-1.5, (2, -3.0), ((1.0, 2.0), (3.0, 4.0)), [[7.0], [8.0]], np.float32(5)])
def test_constant_values_per_side_match_numpy(constant_values):
    a = np.random.default_rng(1).standard_normal((2, 3))
    widths = ((1, 2), (2, 1))  # corners too: where two paddings meet, the later axis's value wins
    y = F.pad(a, widths, "constant", constant_values=constant_values)
    np.testing.assert_array_equal(y.array, np.pad(a, widths, "constant", constant_values=constant_values))


def test_constant_values_per_side_by_hand():
    y = F.pad(np.ones((1, 2)), ((1, 0), (1, 2)), "constant", constant_values=((5.0, 6.0), (7.0, 8.0)))
    np.testing.assert_array_equal(y.array, [[7.0, 5.0, 5.0, 8.0, 8.0],
                                            [7.0, 1.0, 1.0, 8.0, 8.0]])


def test_constant_values_get_no_gradient_and_leave_the_gradient_of_x_alone():
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, (2, 3))
    gy = rng.uniform(-1, 1, (4, 5))

    def f(v):
        return F.pad(v, ((1, 1), (0, 2)), "constant", constant_values=((1.0, -2.0), (3.0, 4.0)))

    check_backward(f, (x,), gy, seed=0)
    check_double_backward(f, (x,), gy, rng.uniform(-1, 1, (2, 3)), seed=0)


def test_edge_gradient_piles_onto_edges():
    x = mg.Variable(np.zeros(3))
    y = F.pad(x, (2, 1), "edge")
    y.grad = np.arange(1.0, 7.0)
    y.backward()
    np.testing.assert_array_equal(x.grad, [1.0 + 2.0 + 3.0, 4.0, 5.0 + 6.0])


def test_reflect_gradient_piles_onto_mirrored_elements():
    x = mg.Variable(np.zeros(3))
    y = F.pad(x, (2, 1), "reflect")  # copies x[2], x[1], then x[0..2], then x[1]
    y.grad = np.arange(1.0, 7.0)
    y.backward()
    np.testing.assert_array_equal(x.grad, [3.0, 2.0 + 4.0 + 6.0, 1.0 + 5.0])


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect"])
@pytest.mark.parametrize("shape, pad_width", [((1, 3), ((2, 3), (4, 0))), ((2, 2, 2), 3)])
def test_pad_gradients_with_wide_widths(mode, shape, pad_width):
    rng = np.random.default_rng(2)
    x = rng.uniform(-1, 1, shape)
    gy = rng.uniform(-1, 1, np.pad(x, pad_width, mode).shape)

    def f(v):
        return F.pad(v, pad_width, mode)

    check_backward(f, (x,), gy, seed=0)
    check_double_backward(f, (x,), gy, rng.uniform(-1, 1, shape), seed=0)


def test_pad_errors():
    x = np.zeros((3, 2))
    with pytest.raises(ValueError, match="pad: unknown mode 'wrap'; minigrad supports constant, edge, reflect"):
        F.pad(x, 1, "wrap")
    with pytest.raises(ValueError, match=r"pad: pad_width -1 has a negative width \(input shape \(3, 2\)\)"):
        F.pad(x, -1, "edge")
    with pytest.raises(ValueError, match="pad: pad_width .* has a negative width"):
        F.pad(x, ((1, 1), (0, -2)), "constant")
    with pytest.raises(TypeError, match="pad: pad_width must be an int"):
        F.pad(x, 1.5, "edge")
    with pytest.raises(ValueError, match=r"pad: pad_width .* does not fit an input of shape \(3, 2\)"):
        F.pad(x, ((1, 1), (1, 1), (1, 1)), "edge")
    with pytest.raises(ValueError, match=r"pad: mode 'reflect' cannot pad axis 0 of length 0 \(input shape \(0, 2\)\)"):
        F.pad(np.zeros((0, 2)), 1, "reflect")
    with pytest.raises(TypeError, match="pad: mode 'edge' takes no keyword argument constant_values"):
        F.pad(x, 1, "edge", constant_values=2.0)
    with pytest.raises(TypeError, match="pad: constant_values must be a real number, a .before, after. pair"):
        F.pad(x, 1, "constant", constant_values="zero")
    with pytest.raises(TypeError, match="pad: constant_values must be a real number"):
        F.pad(x, 1, "constant", constant_values=1 + 2j)
    with pytest.raises(TypeError, match="pad: constant_values must be a real number"):
        F.pad(x, 1, "constant", constant_values=[[1.0, 2.0], [3.0]])
    with pytest.raises(TypeError, match="pad: constant_values .* not a Variable"):
        F.pad(x, 1, "constant", constant_values=mg.Variable(np.zeros(())))
    with pytest.raises(ValueError, match=r"pad: constant_values \(1, 2, 3\) does not fit an input of shape \(3, 2\)"):
        F.pad(x, 1, "constant", constant_values=(1, 2, 3))
