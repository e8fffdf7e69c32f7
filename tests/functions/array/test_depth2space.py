"""depth2space / space2depth: Chainer's documented values, each inverts the other, gradients, errors."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


def test_chainer_documented_values():
    X = np.arange(24, dtype=np.float32).reshape(1, 4, 2, 3)
    expected = np.array([[0, 6, 1, 7, 2, 8], [12, 18, 13, 19, 14, 20],
                         [3, 9, 4, 10, 5, 11], [15, 21, 16, 22, 17, 23]], np.float32)
    y = F.depth2space(X, 2)
    assert y.shape == (1, 1, 4, 6) and y.dtype == np.float32
    np.testing.assert_array_equal(y.array[0, 0], expected)
    # and space2depth of that picture gives the channels back
    np.testing.assert_array_equal(F.space2depth(expected[None, None], 2).array, X)


@pytest.mark.parametrize("r, shape", [(2, (2, 12, 3, 2)), (3, (1, 18, 2, 1)), (1, (2, 3, 2, 2))])
def test_each_inverts_the_other(r, shape):
    rng = np.random.default_rng(2)
    X = rng.standard_normal(shape)
    np.testing.assert_array_equal(F.space2depth(F.depth2space(X, r), r).array, X)
    up = rng.standard_normal((shape[0], shape[1] // (r * r), shape[2] * r, shape[3] * r))
    np.testing.assert_array_equal(F.depth2space(F.space2depth(up, r), r).array, up)


def test_gradient_is_the_inverse_rearrangement():
    X = mg.Variable(np.zeros((1, 8, 2, 2)))
    gy = np.random.default_rng(3).standard_normal((1, 2, 4, 4))
    F.sum(F.depth2space(X, 2) * gy).backward()
    np.testing.assert_array_equal(X.grad, F.space2depth(gy, 2).array)


def test_non_contiguous_input():
    base = np.arange(64.0).reshape(2, 2, 4, 4)
    view = base.transpose(0, 1, 3, 2)
    np.testing.assert_array_equal(F.space2depth(view, 2).array, F.space2depth(view.copy(), 2).array)
    np.testing.assert_array_equal(F.depth2space(base[:, :, ::2].transpose(1, 0, 2, 3), 1).array,
                                  base[:, :, ::2].transpose(1, 0, 2, 3))


@pytest.mark.parametrize("function, shape, r, error, words", [
    (F.depth2space, (1, 6, 2, 2), 2, ValueError, ["depth2space", "6 channels", "(1, 6, 2, 2)", "r * r = 4"]),
    (F.space2depth, (1, 1, 4, 5), 2, ValueError, ["space2depth", "4 x 5", "(1, 1, 4, 5)", "r = 2"]),
    (F.depth2space, (1, 4, 2), 2, ValueError, ["depth2space", "4 dimensions", "(1, 4, 2)"]),
    (F.space2depth, (1, 1, 4, 4), 0, ValueError, ["space2depth", "r must be at least 1"]),
    (F.depth2space, (1, 4, 2, 2), 2.0, TypeError, ["depth2space", "r must be an int"]),
])
def test_bad_arguments_name_the_function_and_the_shapes(function, shape, r, error, words):
    with pytest.raises(error) as info:
        function(np.ones(shape), r)
    for word in words:
        assert word in str(info.value)
