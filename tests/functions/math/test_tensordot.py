"""tensordot: semantics vs numpy.tensordot for many axis pairings, gradients, bad axes and shapes."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import check_backward, check_double_backward

CASES = [  # (a shape, b shape, axes)
    ((2, 3, 4), (3, 4, 5), 2),
    ((2, 3), (3, 4), 1),
    ((2, 3), (4,), 0),
    ((2, 3, 4), (4, 3, 2), ([1, 2], [1, 0])),
    ((2, 3, 4), (2, 5, 4), ([2, 0], [2, 0])),
    ((3, 2, 4), (4, 2), ([-1, 1], [0, 1])),
    ((2, 3), (3, 2), ([0, 1], [1, 0])),
    ((4, 3), (3,), (1, 0)),
]


@pytest.mark.parametrize("a_shape, b_shape, axes", CASES)
def test_matches_numpy_and_numerical_gradients(a_shape, b_shape, axes):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(a_shape), rng.standard_normal(b_shape)
    y = F.tensordot(a, b, axes=axes)
    expected = np.tensordot(a, b, axes=axes)
    np.testing.assert_allclose(y.array, expected, rtol=1e-13)
    gy = rng.standard_normal(expected.shape)
    check_backward(lambda p, q: F.tensordot(p, q, axes=axes), (a, b), gy, seed=0)
    check_double_backward(lambda p, q: F.tensordot(p, q, axes=axes), (a, b), gy,
                          (rng.standard_normal(a_shape), rng.standard_normal(b_shape)), seed=0)


def test_mixed_dtypes_promote_and_gradients_keep_each_dtype():
    a = mg.Variable(np.ones((2, 3), dtype=np.float32))
    b = mg.Variable(np.ones((3,), dtype=np.float64))
    y = F.tensordot(a, b, axes=1)
    assert y.dtype == np.float64
    F.sum(y).backward()
    assert a.grad.dtype == np.float32 and b.grad.dtype == np.float64


@pytest.mark.parametrize("axes, error, pattern", [
    (2, ValueError, r"tensordot: shape mismatch: a.shape=\(2, 3, 4\) axis 1 has length 3 but b.shape=\(4, 3\)"),
    (([2], [1]), ValueError, r"tensordot: shape mismatch: .* axis 2 has length 4 .* axis 1 has length 3"),
    (3, ValueError, r"tensordot: axes=3 must be in \[0, 2\] for shapes \(2, 3, 4\) and \(4, 3\)"),
    (-1, ValueError, r"tensordot: axes=-1 must be in"),
    (([0, 1], [0]), ValueError, r"tensordot: axes\[0\]=\(0, 1\) and axes\[1\]=\(0,\) must have the same length"),
    (([3], [0]), ValueError, r"tensordot: axes\[0\]=3 is out of range for an input with 3 dimensions"),
    (([1, 1], [1, 0]), ValueError, r"tensordot: axes\[0\]=\(1, 1\) repeats an axis"),
    ("ab", TypeError, "tensordot: axes must be an int or a pair of axis sequences"),
    (1.5, TypeError, "tensordot: axes must be an int or a pair of axis sequences"),
    (([0.5], [0]), TypeError, r"tensordot: axes\[0\] must be an int, got float"),
])
def test_bad_axes_and_shapes(axes, error, pattern):
    with pytest.raises(error, match=pattern):
        F.tensordot(np.ones((2, 3, 4)), np.ones((4, 3)), axes=axes)
