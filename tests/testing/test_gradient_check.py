"""check_backward / check_double_backward / numerical_grad: behaviour beyond the mutation suite."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import (
    GradientCheckError,
    NondifferentiableError,
    check_backward,
    check_double_backward,
    numerical_grad,
)


def uniform(shape, seed=0, low=-1.0, high=1.0, dtype=np.float64):
    return np.random.default_rng(seed).uniform(low, high, shape).astype(dtype)


class ScaledExp(mg.FunctionNode):
    def __init__(self, factor):
        self.factor = factor

    def forward(self, inputs):
        self.retain_outputs((0,))
        return np.exp(inputs[0]),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return grad_outputs[0] * y * self.factor,


def scaled_exp(factor):
    return lambda x: ScaledExp(factor).apply((x,))[0]


# --- what passes, what it costs -------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_report_of_a_passing_check(dtype):
    x = uniform((3, 4), dtype=dtype)
    report = check_backward(F.tanh, x, uniform((3, 4), 1, dtype=dtype), seed=5)
    assert report.passed and 0 <= report.margin < 1
    assert report.seed == 5 and report.numerical_dtype == "float64"
    assert (report.precision_margin is None) == (dtype == np.float64)


def test_evaluations_do_not_grow_with_input_size():
    # two forward+backward passes, and per input an aligned probe of four evaluations, plus a random-sign
    # one for inputs of up to 1,024 elements
    counts = []
    for n in (2, 20, 200):
        x, W = uniform((n, n)), uniform((n, n), 1) / n
        counts.append(check_backward(lambda a, b: F.tanh(F.matmul(a, b)), (x, W), uniform((n, n), 2),
                                     seed=0).evaluations)
    assert counts == [2 + 2 * 2 * 4, 2 + 2 * 2 * 4, 2 + 2 * 4]


def test_scalar_loss_with_y_grad_none():
    x = uniform((3, 4))
    assert check_backward(lambda v: F.sum(v ** 3), x, None, seed=0).passed
    assert check_double_backward(lambda v: F.sum(v ** 3), x, None, uniform((3, 4), 1), seed=0).passed


def test_several_outputs():
    x = uniform((3, 4))
    y_grad = (uniform((3, 2), 1), uniform((3, 2), 2))
    assert check_backward(lambda v: F.split_axis(v, 2, axis=1), x, y_grad, seed=0).passed
    assert check_double_backward(lambda v: F.split_axis(F.sin(v), 2, axis=1), x, y_grad, uniform((3, 4), 3),
                                 seed=0).passed


@pytest.mark.parametrize("wrong_bias", [False, True])
def test_params_are_checked_and_restored_exactly(wrong_bias):
    W = mg.Parameter(uniform((4, 3), 1, dtype=np.float32))
    b = mg.Parameter(uniform((4,), 2, dtype=np.float32))
    W_array, b_array = W.array, b.array
    W_values = W_array.copy()

    def func(x):
        if wrong_bias:  # a layer whose bias gradient is 0.1 % off
            return F.linear(x, W, None) + ScaledBias().apply((b,))[0]
        return F.linear(x, W, b)
    x, gy = uniform((5, 3), dtype=np.float32), uniform((5, 4), 3, dtype=np.float32)
    if wrong_bias:
        with pytest.raises(GradientCheckError, match=r"params\[1\]"):
            check_backward(func, x, gy, params=(W, b), seed=0)
    else:
        assert check_backward(func, x, gy, params=(W, b), seed=0).passed
    assert W.array is W_array and b.array is b_array and W.dtype == np.float32
    np.testing.assert_array_equal(W.array, W_values)
    assert W.grad is None and b.grad is None


class ScaledBias(mg.FunctionNode):
    def forward(self, inputs):
        return inputs[0].copy(),

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * 1.001,


def test_integer_inputs_pass_through_unperturbed():
    x = uniform((4, 3))
    t = np.array([0, 2, 1, 0], dtype=np.int32)
    seen = []

    def func(v, labels):
        seen.append(labels.array.copy())
        assert not labels.requires_grad
        return F.select_item(v, labels)
    assert check_backward(func, (x, t), uniform((4,), 1), seed=0).passed
    assert all((s == t).all() for s in seen)
    assert check_double_backward(func, (x, t), uniform((4,), 1), uniform((4, 3), 2), seed=0).passed


def test_no_grads_skips_an_input():
    def func(a, b):  # b's gradient is wrong, but b is excluded and gets no gradient
        return BadSecondInput().apply((a, mg.Variable(b.array, requires_grad=False)))[0]
    x0, x1, gy = uniform((3,)), uniform((3,), 1), uniform((3,), 2)
    assert check_backward(func, (x0, x1), gy, no_grads=(False, True), seed=0).passed
    with pytest.raises(GradientCheckError, match=r"x_data\[1\]"):
        check_backward(lambda a, b: BadSecondInput().apply((a, b))[0], (x0, x1), gy, seed=0)


class BadSecondInput(mg.FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0, 1))
        return inputs[0] * inputs[1],

    def backward(self, indexes, grad_outputs):
        a, b = self.get_retained_inputs()
        gy, = grad_outputs
        return tuple(gy * b if i == 0 else gy * a * 2.0 for i in indexes)


def test_dtype_of_the_numerical_part():
    x = uniform((3, 4), dtype=np.float16)
    report = check_backward(F.exp, x, uniform((3, 4), 1, dtype=np.float16), dtype=np.float32, seed=0)
    assert report.passed and report.numerical_dtype == "float32"


@pytest.mark.parametrize("numerical, wrong", [(np.float32, 1.001), (np.float16, 3.0)])  # float16: a coarse probe
@pytest.mark.parametrize("op", [F.exp, F.tanh, F.sin])
def test_a_numerical_dtype_coarser_than_the_inputs_judges_at_its_own_precision(numerical, wrong, op):
    # Chainer's dtype=float32 on float64 inputs: the reference gradient is computed in float32, so the
    # float64 gradient agrees with it to float32's precision only (it used to be held to float64's)
    for seed in range(5):
        x, gy = uniform((3, 4), seed), uniform((3, 4), seed + 10)
        report = check_backward(op, x, gy, dtype=numerical, seed=seed)
        assert report.passed and report.numerical_dtype == np.dtype(numerical).name
        assert f"elementwise agreement with the {np.dtype(numerical).name} reference" in str(report)
        with pytest.raises(GradientCheckError):  # a wrong gradient is still caught at that precision
            check_backward(scaled_exp(wrong), x, gy, dtype=numerical, seed=seed)


@pytest.mark.parametrize("shape", [(0, 3), (), (1,)])
def test_empty_and_zero_dim_inputs(shape):
    assert check_backward(F.exp, uniform(shape), uniform(shape, 1), seed=0).passed
    assert check_double_backward(F.exp, uniform(shape), uniform(shape, 1), uniform(shape, 2), seed=0).passed


def test_seed_reproduces_and_is_printed():
    x, gy = uniform((3, 4)), uniform((3, 4), 1)
    a = check_backward(F.sin, x, gy, seed=123)
    b = check_backward(F.sin, x, gy, seed=123)
    assert (a.backprop, a.numerical) == (b.backprop, b.numerical)
    assert isinstance(check_backward(F.sin, x, gy).seed, int)
    with pytest.raises(GradientCheckError) as info:
        check_backward(scaled_exp(1.001), x, gy)
    seed = info.value.report.seed
    assert f"seed={seed}" in str(info.value)
    with pytest.raises(GradientCheckError) as again:
        check_backward(scaled_exp(1.001), x, gy, seed=seed)
    assert again.value.report.numerical == info.value.report.numerical


def test_default_tolerance_is_tight_and_user_tolerance_is_respected():
    x, gy = uniform((3, 4)), uniform((3, 4), 1)
    with pytest.raises(GradientCheckError):
        check_backward(scaled_exp(1 + 1e-4), x, gy, seed=0)
    assert check_backward(scaled_exp(1 + 1e-4), x, gy, atol=0, rtol=1e-3, seed=0).passed


@pytest.mark.filterwarnings("ignore:invalid value encountered")
def test_float16_nan_gradient_is_reported():
    class NaNInHalf(mg.FunctionNode):
        def forward(self, inputs):
            return inputs[0] * 2,

        def backward(self, indexes, grad_outputs):
            gy, = grad_outputs
            if gy.dtype == np.float16:
                return gy * np.float16(np.inf) * 0,
            return gy * 2,
    x = uniform((3,), dtype=np.float16)
    with pytest.raises(GradientCheckError, match=r"backprop gave NaN or inf in the gradient of x_data\[0\]") as info:
        check_backward(lambda v: NaNInHalf().apply((v,))[0], x, uniform((3,), 1, dtype=np.float16), seed=0)
    assert "index (0,): backprop nan" in str(info.value) and "not differentiable" not in str(info.value)


def test_missing_first_order_gradient_counts_as_zero():
    def func(a, b):  # b does not influence the output: its first-order gradient is None
        return F.exp(a)
    assert check_double_backward(func, (uniform((3,)), uniform((2,), 1)), uniform((3,), 2),
                                 (uniform((3,), 3), uniform((2,), 4)), seed=0).passed


def test_double_backward_with_params():
    W = mg.Parameter(uniform((4, 3), 1))
    x = uniform((5, 3))
    report = check_double_backward(lambda v: F.tanh(F.linear(v, W)), x, uniform((5, 4), 2), uniform((5, 3), 3),
                                   params=(W,), params_grad_grad=(uniform((4, 3), 4),), seed=0)
    assert report.passed


class Narrow(mg.FunctionNode):
    """cast float64 -> float32 whose first-order gradient (the cast back) has a backward scaled by ``factor``."""

    def __init__(self, factor):
        self.factor = factor

    def forward(self, inputs):
        return inputs[0].astype(np.float32),

    def backward(self, indexes, grad_outputs):
        return Widen(self.factor).apply(grad_outputs)


class Widen(mg.FunctionNode):
    def __init__(self, factor):
        self.factor = factor

    def forward(self, inputs):
        return inputs[0].astype(np.float64),

    def backward(self, indexes, grad_outputs):
        return F.cast(grad_outputs[0] * self.factor, np.float32),


def test_double_backward_of_a_narrowing_cast_has_no_false_failures():
    # The first-order gradient takes y_grad in float32 (the output's dtype), so the float64
    # numerical part sees it rounded to float32: that noise must not fail a correct op.
    for seed in range(60):
        x, gy, ggx = uniform((2, 3), seed), uniform((2, 3), seed + 100, dtype=np.float32), uniform((2, 3), seed + 200)
        check_double_backward(lambda v: F.cast(v, np.float32), x, gy, ggx, seed=seed)


@pytest.mark.parametrize("factor", [1.001, 0.999, -1.0])
def test_double_backward_of_a_narrowing_cast_still_catches_small_errors(factor):
    x, gy, ggx = uniform((2, 3)), uniform((2, 3), 1, dtype=np.float32), uniform((2, 3), 2)
    check_double_backward(lambda v: Narrow(1.0).apply((v,))[0], x, gy, ggx, seed=0)  # the correct one passes
    with pytest.raises(GradientCheckError, match=r"y_grad\[0\]"):
        check_double_backward(lambda v: Narrow(factor).apply((v,))[0], x, gy, ggx, seed=0)


def test_integer_outputs_take_no_gradient():
    x = uniform((3, 4))
    assert check_backward(lambda v: (F.exp(v), F.argmax(v, axis=1)), x, (uniform((3, 4), 1), None), seed=0).passed


# --- kinks ------------------------------------------------------------------------------

def test_kink_is_located_by_input_and_element():
    x = np.array([[0.5, -0.4], [0.3, -0.7]])
    t = np.array([[0.2, 0.9, -0.5], [0.4, 0.0, -0.6]])  # element (1, 1) sits on relu's kink
    with pytest.raises(NondifferentiableError, match=r"x_data\[1\] element \(1, 1\)"):
        check_backward(lambda a, b: (F.exp(a), F.relu(b)), (x, t), (np.ones((2, 2)), np.ones((2, 3))),
                       detect_nondifferentiable=True, seed=0)


@pytest.mark.parametrize("steps", [0.0, 0.2, -0.7])
def test_kink_next_to_the_point(steps):
    x = uniform((30,))
    x[17] = 0.0
    step = 1e-3 * 0.1 * min(np.sqrt((x ** 2).mean()), 1.0)  # eps * STEP_FACTOR[float64] * scale
    x[17] = steps * step  # within the reach of the evaluations ([-2, 3] steps, times a weight in [0.5, 1])
    with pytest.raises(NondifferentiableError, match=r"element \(17,\)"):
        check_backward(F.absolute, x, np.ones(30), detect_nondifferentiable=True, seed=1)


def test_smooth_function_is_not_called_a_kink():
    for seed in range(20):
        x = uniform((5, 6), seed, -3, 3)
        check_backward(lambda v: F.exp(v) * F.sin(3 * v), x, uniform((5, 6), seed + 1),
                       detect_nondifferentiable=True, seed=seed)


# --- numerical_grad ---------------------------------------------------------------------

def test_numerical_grad_matches_the_derivative_and_restores_inputs():
    x, y = uniform((2, 3)), uniform((3,), 1)
    x0, y0 = x.copy(), y.copy()
    gz = uniform((2, 3), 2)
    gx, gy = numerical_grad(lambda: (np.sin(x) * y,), (x, y), (gz,))
    np.testing.assert_allclose(gx, gz * np.cos(x) * y, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(gy, (gz * np.sin(x)).sum(axis=0), rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(x, x0)
    np.testing.assert_array_equal(y, y0)


def test_numerical_grad_float16_uses_the_realised_steps():
    x = np.array([0.3, 1.7, -2.5], dtype=np.float16)
    gx, = numerical_grad(lambda: (x.astype(np.float64) ** 2,), (x,), (np.ones(3),), eps=1e-2)
    assert gx.dtype == np.float16
    np.testing.assert_allclose(gx.astype(np.float64), 2 * x.astype(np.float64), rtol=1e-3)


def test_numerical_grad_detects_kinks():
    x = np.array([0.5, 0.0, -1.0])
    with pytest.raises(NondifferentiableError, match=r"inputs\[0\] element \(1,\)"):
        numerical_grad(lambda: (np.abs(x),), (x,), (np.ones(3),), detect_nondifferentiable=True)
    numerical_grad(lambda: (np.exp(x),), (x,), (np.ones(3),), detect_nondifferentiable=True)


def test_numerical_grad_bad_arguments():
    x = np.ones(2)
    with pytest.raises(ValueError, match="eps"):
        numerical_grad(lambda: (x,), (x,), (np.ones(2),), eps=0)
    with pytest.raises(TypeError, match="int"):
        numerical_grad(lambda: (x,), (np.ones(2, dtype=np.int32),), (np.ones(2),))
    with pytest.raises(ValueError, match="too small"):
        h = np.array([1000.0], dtype=np.float16)
        numerical_grad(lambda: (h,), (h,), (np.ones(1, np.float16),), eps=1e-3)
