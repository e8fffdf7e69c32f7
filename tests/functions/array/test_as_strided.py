"""F.as_strided: Chainer's flip, broadcast and window cases by hand, gradients of overlapping windows (numerical,
first and second order), any dtype forward, and what it refuses: a non-contiguous x, reads outside x."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import check_backward, check_double_backward


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int16, np.int64])
def test_flip_broadcast_and_a_general_stride_as_in_chainers_tests(dtype):
    x = np.arange(8, dtype=dtype)
    np.testing.assert_array_equal(F.as_strided(x[:4], (4,), (-1,), 3).array, [3, 2, 1, 0])
    m = np.arange(12, dtype=dtype).reshape(3, 4)
    np.testing.assert_array_equal(F.as_strided(m, (2, 3, 4), (0, 4, 1), 0).array, np.broadcast_to(m, (2, 3, 4)))
    np.testing.assert_array_equal(F.as_strided(x, (3, 3), (-1, 2), 3).array, [[3, 5, 7], [2, 4, 6], [1, 3, 5]])
    assert F.as_strided(x, (3, 3), (-1, 2), 3).dtype == dtype


def test_overlapping_windows_add_up_in_the_gradient():
    x = mg.Variable(np.arange(4.0))
    y = F.as_strided(x, (3, 2), (1, 1))  # storage_offset None: x's first element
    y.grad = np.ones((3, 2))
    y.backward()
    np.testing.assert_array_equal(x.grad, [1.0, 2.0, 2.0, 1.0])
    m = mg.Variable(np.arange(12.0).reshape(3, 4))
    F.sum(F.as_strided(m, (2, 3, 4), (0, 4, 1), 0)).backward()
    np.testing.assert_array_equal(m.grad, np.full((3, 4), 2.0))
    windows = lambda x: F.as_strided(x, (3, 3), (2, 1), 1)  # noqa: E731
    rng = np.random.default_rng(0)
    check_backward(windows, (rng.standard_normal(8),), rng.standard_normal((3, 3)))
    check_double_backward(lambda x: windows(x) ** 2, (rng.standard_normal(8),), rng.standard_normal((3, 3)),
                          (rng.standard_normal(8),))


def test_an_empty_view_and_a_scalar():
    assert F.as_strided(np.arange(4.0), (0, 3), (1, 1), 0).shape == (0, 3)
    assert F.as_strided(np.arange(4.0), (), (), 2).array == 2.0


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.as_strided(np.arange(12.0).reshape(3, 4)[::-1], (12,), (1,), 0), ValueError,
     "as_strided: x .* is not C-contiguous"),
    (lambda: F.as_strided(np.arange(12.0).reshape(3, 4).T, (12,), (1,), 0), ValueError, "not C-contiguous"),
    (lambda: F.as_strided(np.arange(4.0), (3,), (2,), 0), ValueError, r"reads elements 0\.\.4, but x of shape"),
    (lambda: F.as_strided(np.arange(4.0), (2,), (-1,), 0), ValueError, r"reads elements -1\.\.0"),
    (lambda: F.as_strided(np.arange(4.0), (2,), (2 ** 63,), 0), ValueError, "reads elements 0..9223372036854775808"),
    (lambda: F.as_strided(np.arange(4.0), (3, 2), (1,), 0), ValueError, "strides must give one step per axis"),
    (lambda: F.as_strided(np.arange(4.0), (2,), (1.0,), 0), TypeError, "strides must be ints"),
    (lambda: F.as_strided(np.arange(4.0), (2,), (1,), -1), ValueError, "storage_offset must be >= 0"),
    (lambda: F.as_strided(np.arange(4.0), (2,), (1,), 1.0), TypeError, "storage_offset must be an int"),
    (lambda: F.as_strided(np.arange(4.0), (2.5,), (1,), 0), TypeError, "as_strided: shape must be"),
])
def test_refused(call, error, message):
    with pytest.raises(error, match=message):
        call()
