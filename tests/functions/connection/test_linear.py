"""linear: bad inputs, batch axes, semantics vs NumPy (gradients are checked by the op registry)."""

from __future__ import annotations

import numpy
import pytest

import minigrad as mg
import minigrad.functions as F


def test_matches_numpy_with_several_batch_axes():
    rng = numpy.random.default_rng(0)
    x, W, b = rng.standard_normal((2, 3, 4, 5)), rng.standard_normal((6, 60)), rng.standard_normal(6)
    y = F.linear(x, W, b)
    numpy.testing.assert_allclose(y.array, x.reshape(2, 60) @ W.T + b)
    y = F.linear(x, rng.standard_normal((6, 5)), n_batch_axes=3)
    assert y.shape == (2, 3, 4, 6)


def test_keeps_float32_and_gradient_shapes():
    x = mg.Variable(numpy.ones((2, 3, 2), numpy.float32))
    W = mg.Variable(numpy.ones((4, 6), numpy.float32))
    b = mg.Variable(numpy.zeros(4, numpy.float32))
    y = F.linear(x, W, b)
    assert y.dtype == numpy.float32
    F.sum(y).backward()
    assert x.grad.shape == (2, 3, 2) and W.grad.shape == (4, 6) and b.grad.shape == (4,)
    numpy.testing.assert_allclose(b.grad, numpy.full(4, 2.0))


@pytest.mark.parametrize("x_shape, W_shape, b_shape, n_batch_axes, error, words", [
    ((3, 4), (2, 5), None, 1, ValueError, ["linear", "x", "(3, 4)", "(2, 5)", "in_size"]),
    ((3, 4), (2, 4), (3,), 1, ValueError, ["linear", "b", "(2,)", "(3,)"]),
    ((3, 4), (8,), None, 1, ValueError, ["linear", "W", "(8,)"]),
    ((3,), (2, 3), None, 1, ValueError, ["linear", "x", "(3,)", "n_batch_axes"]),
    ((3, 4), (2, 4), None, 0, ValueError, ["linear", "n_batch_axes"]),
])
def test_bad_shapes(x_shape, W_shape, b_shape, n_batch_axes, error, words):
    b = None if b_shape is None else numpy.zeros(b_shape)
    with pytest.raises(error) as info:
        F.linear(numpy.zeros(x_shape), numpy.zeros(W_shape), b, n_batch_axes=n_batch_axes)
    for word in words:
        assert word in str(info.value)


def test_bad_dtypes():
    with pytest.raises(TypeError, match=r"linear: x .*int64"):
        F.linear(numpy.zeros((2, 3), numpy.int64), numpy.zeros((2, 3)))
    with pytest.raises(TypeError, match=r"linear: b has dtype float64, but x has dtype float32"):
        F.linear(numpy.zeros((2, 3), numpy.float32), numpy.zeros((2, 3), numpy.float16), numpy.zeros(2))
