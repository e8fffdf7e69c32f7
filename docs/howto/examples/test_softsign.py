"""A pytest module that checks a custom op on every dtype and backend (see docs/howto/custom-op.rst)."""

import numpy as np
import pytest

import minigrad as mg
from minigrad.backend import get_array_module
from minigrad.functions.checks import as_input
from minigrad.testing import assert_allclose, check_backward, check_double_backward


class Softsign(mg.FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        return x / (x.dtype.type(1) + get_array_module(x).abs(x)),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] / (1 + abs(x)) ** 2,


def softsign(x):
    return Softsign().apply((as_input("softsign", x),))[0]


def draw(xp, dtype, seed=0):
    """Inputs clear of the kink of the second derivative at 0, and the output gradients."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.2, 2.0, size=(3, 4)) * rng.choice([-1, 1], size=(3, 4))
    gy, ggx = rng.uniform(-1, 1, size=(2, 3, 4))
    return (xp.asarray(a.astype(dtype)) for a in (x, gy, ggx))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_forward(xp, dtype):
    x, _, _ = draw(xp, dtype)
    y = softsign(x)
    assert y.dtype == dtype
    expected = x.astype(np.float64) / (1 + abs(x.astype(np.float64)))
    assert_allclose(y.array, expected, atol=1e-3 if dtype == np.float16 else 1e-6, rtol=1e-3)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_a_0dim_input_keeps_its_dtype(xp, dtype):  # with a Python 1 in forward, NumPy 1.x would give float64
    x = xp.asarray(np.array(-0.5, dtype=dtype))
    assert softsign(x).dtype == dtype and softsign(x).shape == ()
    assert float(softsign(x).array) == pytest.approx(-0.5 / 1.5, rel=1e-3)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_backward(xp, dtype):
    x, gy, _ = draw(xp, dtype)
    check_backward(softsign, x, gy)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_double_backward(xp, dtype):
    x, gy, ggx = draw(xp, dtype)
    check_double_backward(softsign, x, gy, ggx)


def test_refuses_a_list():
    with pytest.raises(TypeError, match="softsign"):
        softsign([1.0, 2.0])
