"""tanh: the one-node gradient and its own derivatives."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.functions.activation.tanh import TanhGrad


def test_gradient_is_one_tanh_grad_node():
    x = mg.Variable(np.array([0.3, -1.2]))
    gx, = mg.grad([F.sum(F.tanh(x))], [x], enable_double_backprop=True)
    assert isinstance(gx.creator, TanhGrad)
    np.testing.assert_allclose(gx.array, 1 - np.tanh(x.array) ** 2, rtol=1e-15)


def test_second_derivatives_wrt_x_and_the_output_gradient():
    x = mg.Variable(np.array([0.3, -1.2, 2.0]))
    gy = mg.Variable(np.array([0.5, 2.0, -1.0]))
    gx, = mg.grad([F.tanh(x)], [x], [gy], enable_double_backprop=True)
    ggx, ggy = mg.grad([F.sum(gx)], [x, gy])
    t = np.tanh(x.array)
    np.testing.assert_allclose(ggx.array, gy.array * -2 * t * (1 - t * t), rtol=1e-14)
    np.testing.assert_allclose(ggy.array, 1 - t * t, rtol=1e-14)


def test_float16_stays_float16_through_backward():
    x = mg.Variable(np.array([0.5, -0.5], dtype=np.float16))
    F.sum(F.tanh(x)).backward()
    assert x.grad.dtype == np.float16


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_a_0dim_input_keeps_its_dtype_through_first_and_second_order(dtype):
    # NumPy 1.x casts scalar-with-scalar by type: 1 - (0-dim y * y) would be float64 there
    x = mg.Variable(np.array(0.5, dtype=dtype))
    gx, = mg.grad([F.tanh(x)], [x], enable_double_backprop=True)
    ggx, = mg.grad([gx], [x])
    t = np.tanh(np.float64(0.5))
    assert gx.array.shape == () and gx.dtype == dtype and ggx.dtype == dtype
    rtol = 1e-3 if dtype == np.float16 else 1e-6
    np.testing.assert_allclose(gx.array, 1 - t * t, rtol=rtol)
    np.testing.assert_allclose(ggx.array, -2 * t * (1 - t * t), rtol=rtol)
