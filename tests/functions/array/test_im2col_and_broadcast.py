"""F.im2col and F.broadcast beyond the registry battery: cross-checks, memory, and bad arguments."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


@pytest.mark.parametrize("kwargs", [{}, {"stride": 2, "pad": 1}, {"dilate": (2, 1), "pad": (0, 2)}])
def test_im2col_contracted_with_a_filter_is_convolution_2d(kwargs):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 7, 6))
    W = rng.standard_normal((4, 3, 3, 2))
    col = F.im2col(x, (3, 2), **kwargs).array  # (N, C*kh*kw, oh, ow)
    via_col = np.einsum("ok,nkyx->noyx", W.reshape(4, -1), col)
    np.testing.assert_allclose(via_col, F.convolution_2d(x, W, **kwargs).array, rtol=1e-12, atol=1e-12)


def test_im2col_output_is_a_new_writeable_array_even_when_nothing_moves():
    x = np.arange(8.0).reshape(1, 2, 2, 2)
    y = F.im2col(x, 1).array  # 1x1 windows, stride 1: the same numbers as x
    np.testing.assert_array_equal(y, x)
    assert y.flags.writeable and y.flags.c_contiguous and not np.shares_memory(y, x)


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.im2col(np.ones((2, 3, 4)), 2), ValueError, r"im2col: x must have 4 dimensions, got shape \(2, 3, 4\)"),
    (lambda: F.im2col(np.ones((1, 1, 3, 3), np.int32), 2), TypeError, "im2col: x must have a floating-point dtype"),
    (lambda: F.im2col(np.ones((1, 1, 3, 3)), 0), ValueError, "im2col: ksize must be >= 1, got 0"),
    (lambda: F.im2col(np.ones((1, 1, 3, 3)), 2, stride=(1, 2, 3)), TypeError, "im2col: stride must be an int or"),
    (lambda: F.im2col(np.ones((1, 1, 3, 3)), 2, pad=-1), ValueError, "im2col: pad must be >= 0"),
    (lambda: F.im2col(np.ones((1, 1, 3, 3)), 4), ValueError,
     r"im2col: a window of ksize \(4, 4\) .* does not fit an image of shape \(3, 3\)"),
    (lambda: F.broadcast(), TypeError, "broadcast: needs at least one input"),
    (lambda: F.broadcast(np.ones(2), np.ones(3)), ValueError,
     r"broadcast: inputs could not be broadcast together: shapes \(2,\), \(3,\)"),
    (lambda: F.broadcast(np.ones(2), [1.0]), TypeError, "broadcast: args"),
])
def test_bad_arguments_are_clear_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_broadcast_of_one_input_is_a_variable_and_of_several_a_tuple():
    x = mg.Variable(np.ones((2, 1)))
    assert isinstance(F.broadcast(x), mg.Variable)
    a, b = F.broadcast(x, np.ones(3))
    assert a.shape == b.shape == (2, 3) and not b.requires_grad
    F.sum(a * 2.0).backward()
    np.testing.assert_array_equal(x.grad, np.full((2, 1), 6.0))  # summed back over the broadcast axis


@pytest.mark.parametrize("call, op", [
    (lambda x, shape: F.broadcast_to(x, shape), "broadcast_to"),
    (lambda x, shape: F.sum_to(x, shape), "sum_to"),
    (lambda x, shape: F.reshape(x, shape), "reshape"),
])
def test_a_shape_argument_is_an_int_or_a_tuple_of_ints(call, op):
    x = np.ones((2, 3), np.float32)
    assert call(x, [2, 3]).shape == call(x, (np.int64(2), 3)).shape == (2, 3)
    with pytest.raises(TypeError, match=rf"{op}: shape must be an int or a tuple of ints, got 'ab'"):
        call(x, "ab")
    with pytest.raises(TypeError, match=rf"{op}: shape must be an int or a tuple of ints, got \(2, None\)"):
        call(x, (2, None))


def test_only_reshape_takes_a_negative_size():
    x = np.ones((2, 3), np.float32)
    assert F.reshape(x, (-1,)).shape == (6,)
    for op in (F.broadcast_to, F.sum_to):
        with pytest.raises(ValueError, match=rf"{op.__name__}: shape \(-1, 3\) has a negative size"):
            op(x, (-1, 3))
