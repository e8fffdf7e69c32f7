"""Wrong gradients that the checker once passed (issue 25), each beside a correct twin that must pass.

Each ``Bad*`` node is wrong in one way that an aggregate verdict or a copy of
the caller's arrays used to hide: it must be caught, and the correct twin must
pass, over several seeds.
"""

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import GradientCheckError, check_backward, check_double_backward

SEEDS = range(5)


def uniform(shape, seed=0, low=-1.0, high=1.0, dtype=np.float64):
    return np.random.default_rng(seed).uniform(low, high, shape).astype(dtype)


# --- 1. the arrays as given: a backward wrong only for a non-contiguous input ---------------

class Triple(mg.FunctionNode):
    """3x, whose backward is wrong (3.3) unless its input is C-contiguous, when ``wrong`` is set."""

    def __init__(self, wrong):
        self.wrong = wrong

    def forward(self, inputs):
        self.contiguous = inputs[0].flags.c_contiguous
        return inputs[0] * 3,

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * (3.3 if self.wrong and not self.contiguous else 3.0),


def views():
    base = uniform((6, 8), 1)
    return {"transposed": base.T, "strided slice": base[::2, 1::3], "reversed": base[::-1],
            "broadcast": np.broadcast_to(base[0], (5, 8))}


@pytest.mark.parametrize("view", ["transposed", "strided slice", "reversed", "broadcast"])
@pytest.mark.parametrize("seed", SEEDS)
def test_backward_wrong_only_for_a_view_is_caught(view, seed):
    x = views()[view]
    gy = uniform(x.shape, 2)
    with pytest.raises(GradientCheckError, match="x_data\\[0\\]"):
        check_backward(lambda v: Triple(True).apply((v,))[0], x, gy, seed=seed)
    assert check_backward(lambda v: Triple(False).apply((v,))[0], x, gy, seed=seed).passed


@pytest.mark.parametrize("view", ["transposed", "strided slice", "reversed", "broadcast"])
def test_func_sees_the_layout_the_caller_gave(view):
    x = views()[view]
    seen = []

    def func(v):
        seen.append(v.array.strides)
        return F.tanh(v)
    check_backward(func, x, uniform(x.shape, 2), seed=0)
    assert seen[0] == x.strides  # the first (backprop under test) pass runs on the caller's layout


class LayoutDependentWhenContiguous(Triple):
    """Wrong only for a C-contiguous input: the array as given (a view) is right, its copy is not."""

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * (3.3 if self.contiguous else 3.0),


def test_backward_wrong_only_for_contiguous_copies_is_caught_from_a_view():
    x = views()["transposed"]
    with pytest.raises(GradientCheckError, match="C-contiguous copy"):
        check_backward(lambda v: LayoutDependentWhenContiguous(True).apply((v,))[0], x, uniform(x.shape, 2),
                       seed=0)


# --- 4. y_grad=None: a loss whose backward forgets its output gradient ---------------------

class SumOfSquares(mg.FunctionNode):
    def __init__(self, forget_gy):
        self.forget_gy = forget_gy

    def forward(self, inputs):
        self.retain_inputs((0,))
        return np.asarray((inputs[0] ** 2).sum(), dtype=inputs[0].dtype),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return 2 * x if self.forget_gy else 2 * x * F.broadcast_to(grad_outputs[0], x.shape),


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("seed", SEEDS)
def test_loss_that_forgets_its_output_gradient_is_caught(dtype, seed):
    x = uniform((3, 4), 3, dtype=dtype)
    with pytest.raises(GradientCheckError):
        check_backward(lambda v: SumOfSquares(True).apply((v,))[0], x, None, seed=seed)
    assert check_backward(lambda v: SumOfSquares(False).apply((v,))[0], x, None, seed=seed).passed
    # and it is 3x wrong inside 3 * loss, which a unit output gradient never shows
    v = mg.Variable(uniform((3,), 4))
    (3 * SumOfSquares(True).apply((v,))[0]).backward()
    assert not np.allclose(v.grad, 3 * 2 * v.array)


class Square(mg.FunctionNode):
    """x², whose backward node's own backward forgets the first-order output gradient when ``wrong``."""

    def __init__(self, wrong):
        self.wrong = wrong

    def forward(self, inputs):
        self.retain_inputs((0,))
        return inputs[0] ** 2,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return SquareGrad(self.wrong).apply((x, grad_outputs[0]))[0],


class SquareGrad(mg.FunctionNode):
    def __init__(self, wrong):
        self.wrong = wrong

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, gy = inputs
        return 2 * x * gy,

    def backward(self, indexes, grad_outputs):
        x, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        gx = 2 * ggx if self.wrong else 2 * ggx * gy  # d(2 x gy)/dx = 2 gy
        return gx, 2 * ggx * x


@pytest.mark.parametrize("seed", SEEDS)
def test_double_backward_that_forgets_the_loss_gradient_is_caught(seed):
    x, ggx = uniform((4,), 5), uniform((4,), 6)

    def loss(wrong):
        return lambda v: F.sum(Square(wrong).apply((v,))[0])
    with pytest.raises(GradientCheckError):
        check_double_backward(loss(True), x, None, ggx, seed=seed)
    assert check_double_backward(loss(False), x, None, ggx, seed=seed).passed


# --- 5. NaN or inf in backprop's gradient: reported as such --------------------------------

class NaNAt(mg.FunctionNode):
    """tanh whose backward gives NaN (0/0) at element 2 when ``wrong``."""

    def __init__(self, wrong):
        self.wrong = wrong

    def forward(self, inputs):
        self.retain_outputs((0,))
        return np.tanh(inputs[0]),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        g = grad_outputs[0] * (1 - y * y)
        if self.wrong:
            mask = np.zeros(y.shape, dtype=y.dtype)
            mask.reshape(-1)[2] = np.nan
            g = g + mg.Variable(mask)
        return g,


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_nan_in_backprop_is_reported_as_nan_at_its_elements(dtype):
    x = uniform((2, 3), 7, dtype=dtype)
    with pytest.raises(GradientCheckError) as info:
        check_backward(lambda v: NaNAt(True).apply((v,))[0], x, uniform((2, 3), 8, dtype=dtype), seed=0)
    message = str(info.value)
    assert "NaN or inf in the gradient of x_data[0]" in message
    assert "index (0, 2): backprop nan" in message
    assert "not differentiable" not in message
    assert check_backward(lambda v: NaNAt(False).apply((v,))[0], x, uniform((2, 3), 8, dtype=dtype), seed=0).passed


# --- 3. low-precision paths judged at their own precision ----------------------------------

class ScaledInLowPrecision(mg.FunctionNode):
    """x * w, whose backward for x is ``factor`` times too large when x is not float64."""

    def __init__(self, factor):
        self.factor = factor

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        return inputs[0] * inputs[1],

    def backward(self, indexes, grad_outputs):
        x, w = self.get_retained_inputs()
        gy, = grad_outputs
        scale = 1.0 if x.dtype == np.float64 else self.factor
        return gy * w * scale, gy * x


@pytest.mark.parametrize("dtype, factor", [(np.float16, 1.1), (np.float16, 1.03), (np.float32, 1.01),
                                           (np.float32, 1.0005)])
@pytest.mark.parametrize("seed", SEEDS)
def test_low_precision_path_wrong_beside_a_much_larger_gradient_is_caught(dtype, factor, seed):
    # w's gradient (x, ~1e4) is 1e4 times x's (w, ~1): that scale must not widen x's bound
    x = uniform((3, 4), 9, 0.5, 1.0, dtype) * dtype(1e4 if dtype == np.float32 else 1e2)
    w = uniform((3, 4), 10, 0.5, 1.0, dtype)
    gy = uniform((3, 4), 11, 0.5, 1.0, dtype)
    with pytest.raises(GradientCheckError, match="x_data\\[0\\].*differs from the reference"):
        check_backward(lambda a, b: ScaledInLowPrecision(factor).apply((a, b))[0], (x, w), gy, seed=seed)
    assert check_backward(lambda a, b: ScaledInLowPrecision(1.0).apply((a, b))[0], (x, w), gy, seed=seed).passed
