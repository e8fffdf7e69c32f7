"""scatter_add: numpy.add.at out of place, both gradients, a unchanged, list indices, errors (NumPy and cupy-sim)."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import cupy_sim


def test_repeated_indices_add_up_and_a_is_unchanged():
    a = np.arange(6.0).reshape(3, 2)
    before = a.copy()
    b = np.array([[1.0, 2.0], [10.0, 20.0], [100.0, 200.0]])
    y = F.scatter_add(a, np.array([2, 0, 2]), b)
    expected = before.copy()
    expected[0] += b[1]
    expected[2] += b[0] + b[2]
    np.testing.assert_array_equal(y.array, expected)
    np.testing.assert_array_equal(a, before)


def test_gradients_of_a_and_b():
    a = mg.Variable(np.zeros((3, 4)))
    b = mg.Variable(np.zeros((2, 2)))
    y = F.scatter_add(a, (np.array([1, 1]), slice(2, None)), b)
    gy = np.arange(12.0).reshape(3, 4)
    F.sum(y * gy).backward()
    np.testing.assert_array_equal(a.grad, gy)
    np.testing.assert_array_equal(b.grad, [[6.0, 7.0], [6.0, 7.0]])


def test_second_order_through_b():
    a = mg.Variable(np.ones(3))
    b = mg.Variable(np.array([2.0, 3.0]))
    y = F.scatter_add(a, [0, 0], b)
    gb, = mg.grad([F.sum(y * y)], [b], enable_double_backprop=True)
    np.testing.assert_array_equal(gb.array, [12.0, 12.0])  # 2 * (1 + 2 + 3) at position 0
    ggb, = mg.grad([F.sum(gb)], [b])
    np.testing.assert_array_equal(ggb.array, [4.0, 4.0])


def test_a_list_of_ints_is_one_index_array_and_non_contiguous_a():
    base = np.arange(12.0).reshape(4, 3)
    y = F.scatter_add(base.T, [2, 0], np.ones((2, 4)))
    expected = base.T.copy()
    expected[[2, 0]] += 1
    np.testing.assert_array_equal(y.array, expected)


@pytest.mark.parametrize("slices, b_shape, error, words", [
    (np.array([0, 3]), (2, 2), IndexError, ["scatter_add", "(3, 2)", "out of bounds"]),
    ((slice(None), 5), (3,), IndexError, ["scatter_add", "(3, 2)"]),
    (np.array([0, 1]), (2, 3), ValueError, ["scatter_add", "(2, 3)", "(2, 2)", "(3, 2)"]),
    (np.array([True, False]), (1, 2), IndexError, ["scatter_add", "(3, 2)", "boolean"]),
    ("x", (2,), TypeError, ["scatter_add", "(3, 2)"]),
])
def test_bad_arguments_name_the_function_and_the_shapes(slices, b_shape, error, words):
    with pytest.raises(error) as info:
        F.scatter_add(np.zeros((3, 2)), slices, np.ones(b_shape))
    for word in words:
        assert word in str(info.value)


def test_dtypes_must_match():
    with pytest.raises(TypeError, match="scatter_add: a and b must have the same dtype, got float64 and float32"):
        F.scatter_add(np.zeros(3), 0, np.ones((), np.float32))


def test_cupy_sim_out_of_range_is_refused_and_values_match():
    with cupy_sim.install() as cp:
        a = cp.asarray(np.zeros(3))
        with pytest.raises(IndexError, match=r"scatter_add: invalid slices for a of shape \(3,\)"):
            F.scatter_add(a, np.array([3]), cp.asarray(np.ones(1)))  # CuPy itself would wrap to index 0
        y = F.scatter_add(a, np.array([1, 1]), cp.asarray(np.array([1.0, 2.0])))
        assert isinstance(y.array, cp.ndarray)
        np.testing.assert_array_equal(y.array.get(), [0.0, 3.0, 0.0])
