"""pad_sequence: against a batch built by hand in NumPy, gradients per sequence, integer ids, errors."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


def test_matches_a_hand_built_numpy_batch():
    rng = np.random.default_rng(0)
    xs = [rng.standard_normal((n, 2, 3)).astype(np.float32) for n in (2, 5, 1)]
    expected = np.full((3, 6, 2, 3), 7.0, np.float32)
    for i, x in enumerate(xs):
        expected[i, :len(x)] = x
    y = F.pad_sequence(xs, length=6, padding=7.0)
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y.array, expected)


def test_default_length_is_the_longest_and_padding_zero():
    y = F.pad_sequence([np.ones(2), np.ones(4)])
    np.testing.assert_array_equal(y.array, [[1, 1, 0, 0], [1, 1, 1, 1]])


def test_integer_word_ids_keep_their_dtype():
    y = F.pad_sequence([np.array([3, 1], np.int32), np.array([4], np.int32)], padding=-1)
    assert y.dtype == np.int32
    np.testing.assert_array_equal(y.array, [[3, 1], [4, -1]])


def test_each_sequence_gets_its_slice_of_the_gradient():
    xs = [mg.Variable(np.arange(n, dtype=np.float64)) for n in (3, 1)]
    y = F.pad_sequence(xs, length=4)
    weights = np.arange(8.0).reshape(2, 4)
    F.sum(y * weights).backward()
    np.testing.assert_array_equal(xs[0].grad, [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(xs[1].grad, [4.0])


def test_an_empty_sequence_is_all_padding():
    x = mg.Variable(np.ones((2, 3)))
    y = F.pad_sequence([np.zeros((0, 3)), x], padding=-1.0)
    np.testing.assert_array_equal(y.array, [[[-1.0] * 3] * 2, [[1.0] * 3] * 2])
    F.sum(y).backward()
    np.testing.assert_array_equal(x.grad, np.ones((2, 3)))


def test_non_contiguous_inputs():
    base = np.arange(12.0).reshape(3, 4)
    y = F.pad_sequence([base.T, base[:, ::2].T], padding=-1.0)
    expected = np.full((2, 4, 3), -1.0)
    expected[0] = base.T
    expected[1, :2] = base[:, ::2].T
    np.testing.assert_array_equal(y.array, expected)


@pytest.mark.parametrize("xs, kwargs, error, words", [
    ([np.ones(3), np.ones(5)], {"length": 4}, ValueError, ["pad_sequence", "length=4", "(5,)"]),
    ([np.ones((2, 3)), np.ones((2, 4))], {}, ValueError, ["pad_sequence", "(2, 4)", "(2, 3)"]),
    ([np.ones(()), np.ones(2)], {}, ValueError, ["pad_sequence", "xs[0]", "()"]),
    ([], {}, ValueError, ["pad_sequence", "empty"]),
    ([np.ones(2), np.ones(2, np.float32)], {}, TypeError, ["pad_sequence", "dtype"]),
    ([np.ones(2)], {"length": 2.5}, TypeError, ["pad_sequence", "length"]),
    ([np.ones(2)], {"padding": "x"}, TypeError, ["pad_sequence", "padding"]),
    (np.ones((2, 3)), {}, TypeError, ["pad_sequence", "list or tuple"]),
    # a padding the integer dtype cannot hold: refused (Chainer wraps -1 to 255 in uint8; NumPy 2 overflows)
    ([np.ones(2, np.uint8)], {"padding": -1, "length": 3}, ValueError, ["padding=-1", "uint8", "[0, 255]", "255"]),
    ([np.ones(2, np.int8)], {"padding": 300, "length": 3}, ValueError, ["padding=300", "int8", "[-128, 127]"]),
    ([np.ones(2, np.int32)], {"padding": 0.5}, ValueError, ["padding=0.5", "int32"]),
    ([np.ones(2, np.int32)], {"padding": float("nan")}, ValueError, ["padding=nan", "int32"]),
])
def test_bad_arguments_name_the_function_and_the_shapes(xs, kwargs, error, words):
    with pytest.raises(error) as info:
        F.pad_sequence(xs, **kwargs)
    for word in words:
        assert word in str(info.value)


@pytest.mark.parametrize("dtype, padding, fill", [(np.int8, -1, -1), (np.uint16, 65535, 65535), (np.int32, 2.0, 2),
                                                  (np.bool_, -1, True), (np.float16, -np.inf, -np.inf)])
def test_a_padding_the_dtype_holds_is_used_as_it_is(dtype, padding, fill):
    y = F.pad_sequence([np.zeros(1, dtype)], length=2, padding=padding)
    assert y.dtype == dtype and y.array[0, 1] == fill
