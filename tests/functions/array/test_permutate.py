"""permutate: inv inverts it, the gradient, indices on another axis, non-contiguous inputs, errors."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


def test_inv_undoes_the_permutation():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 5, 2))
    order = rng.permutation(5).astype(np.int32)
    y = F.permutate(F.permutate(x, order, axis=1), order, axis=1, inv=True)
    np.testing.assert_array_equal(y.array, x)
    y = F.permutate(F.permutate(x, order, axis=1, inv=True), order, axis=1)
    np.testing.assert_array_equal(y.array, x)


def test_matches_numpy_take_and_its_inverse():
    x = np.arange(12.0).reshape(3, 4)
    order = np.array([3, 0, 2, 1])
    np.testing.assert_array_equal(F.permutate(x, order, axis=-1).array, x[:, [3, 0, 2, 1]])
    inverse = np.empty_like(x)
    inverse[:, order] = x
    np.testing.assert_array_equal(F.permutate(x, order, axis=1, inv=True).array, inverse)


def test_gradient_is_the_inverse_reordering():
    x = mg.Variable(np.zeros(4))
    order = np.array([1, 3, 0, 2], np.int32)
    y = F.permutate(x, mg.Variable(order))  # indices as a Variable, as Chainer allows
    F.sum(y * np.array([10.0, 20.0, 30.0, 40.0])).backward()
    np.testing.assert_array_equal(x.grad, [30.0, 10.0, 40.0, 20.0])


def test_non_contiguous_input():
    base = np.arange(12.0).reshape(4, 3)
    np.testing.assert_array_equal(F.permutate(base.T, np.array([2, 0, 1])).array, base.T[[2, 0, 1]])


@pytest.mark.parametrize("indices, kwargs, error, words", [
    (np.array([0, 1, 1]), {}, ValueError, ["permutate", "not a permutation", "(3, 2)"]),
    (np.array([0, 1, 3]), {}, ValueError, ["permutate", "not a permutation"]),
    (np.array([0, 1]), {}, ValueError, ["permutate", "2 entries", "(3, 2)"]),
    (np.array([0.0, 1.0, 2.0]), {}, TypeError, ["permutate", "float64"]),
    (np.array([[0, 1, 2]]), {}, TypeError, ["permutate", "(1, 3)"]),
    ([0, 1, 2], {}, TypeError, ["permutate", "list"]),
    (np.array([0, 1]), {"axis": 2}, ValueError, ["permutate", "axis=2", "(3, 2)"]),
])
def test_bad_arguments_name_the_function_and_the_shapes(indices, kwargs, error, words):
    with pytest.raises(error) as info:
        F.permutate(np.ones((3, 2)), indices, **kwargs)
    for word in words:
        assert word in str(info.value)
