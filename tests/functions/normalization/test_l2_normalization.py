"""normalize: unit norms, eps semantics (added to the norm), zero vectors, axes."""

from __future__ import annotations

import numpy
import pytest

import minigrad as mg
import minigrad.functions as F


def test_rows_get_unit_norm_and_eps_is_added_to_the_norm():
    x = numpy.array([[3.0, 4.0], [0.0, 0.0]])
    numpy.testing.assert_allclose(F.normalize(x, eps=1.0).array, [[0.5, 4 / 6], [0.0, 0.0]])
    y = F.normalize(numpy.random.default_rng(0).standard_normal((3, 4, 5)), axis=(0, 2)).array
    numpy.testing.assert_allclose((y ** 2).sum(axis=(0, 2)), numpy.ones(4), rtol=1e-4)


def test_bad_axis_and_dtype():
    with pytest.raises(ValueError, match="normalize: axis=2 is out of range"):
        F.normalize(numpy.zeros((2, 3)), axis=2)
    with pytest.raises(TypeError, match="normalize: x must have a floating-point dtype"):
        F.normalize(numpy.zeros((2, 3), numpy.int64))


@pytest.mark.parametrize("dtype, x", [
    (numpy.float64, [[0.0, 0.0], [3.0, 4.0]]),    # an all-zero slice: was NaN
    (numpy.float32, [[1e-30, -2e-30], [3.0, 4.0]]),  # x * x underflows to 0 in float32: was -inf/inf
    (numpy.float16, [[0.0, 0.0], [3.0, 4.0]]),
])
def test_where_the_squares_sum_to_zero_the_gradient_is_gy_over_eps_as_in_chainer(dtype, x):
    # Chainer 7.8.1 gives exactly these (its backward masks the zero norms)
    x = mg.Variable(numpy.array(x, dtype))
    gy = numpy.array([[1.0, -2.0], [0.5, 0.25]], dtype)
    y = F.normalize(x, eps=0.5)
    assert y.dtype == dtype
    y.grad = gy
    y.backward()
    numpy.testing.assert_allclose(x.grad[0], gy[0] / 0.5, rtol=1e-3)
    norm = 5.0 + 0.5
    expected = (gy[1] * norm - (x.array[1] * gy[1]).sum() / 5.0 * x.array[1]) / norm ** 2  # Chainer's formula
    numpy.testing.assert_allclose(x.grad[1], expected, rtol=1e-3)


def test_the_second_order_gradient_at_a_zero_slice_is_finite():
    x = mg.Variable(numpy.zeros((1, 3)))
    gx, = mg.grad([F.sum(F.normalize(x) * numpy.array([[1.0, 2.0, 3.0]]))], [x], enable_double_backprop=True)
    ggx, = mg.grad([F.sum(gx * gx)], [x])
    numpy.testing.assert_allclose(gx.array, [[1e5, 2e5, 3e5]])
    assert numpy.isfinite(ggx.array).all()
