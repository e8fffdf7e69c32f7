"""check_backward at the edges (issue 11): kinks, no_backprop_mode, per-input tolerances, complex inputs,
nondeterministic backward passes, and Chainer's no_grads / y_grad semantics."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import (
    GradientCheckError,
    NondifferentiableError,
    check_backward,
    check_double_backward,
)
from minigrad.testing.gradcheck_cases import Kinked

SEEDS = range(8)


def relu_with_kinks(seed, distance, shape=(3, 4)):
    """A (3, 4) input with two elements ``distance`` from relu's kink, and an output gradient."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, shape)
    where = rng.choice(x.size, size=2, replace=False)
    x.reshape(-1)[where] = distance * rng.choice((-1.0, 1.0), size=2)
    return x, rng.uniform(-1, 1, shape), [tuple(int(i) for i in np.unravel_index(w, shape)) for w in where]


def scaled_relu(factor):
    return lambda v: Kinked("relu", factor).apply((v,))[0]


# --- 1. no wrong gradient passes next to a kink -------------------------------------------------

@pytest.mark.parametrize("factor", [1.2, 1.05, 0.95])
@pytest.mark.parametrize("distance", [0.0, 1e-12, 1e-9, 1e-6])
@pytest.mark.parametrize("detect", [False, True])
def test_wrong_relu_next_to_a_kink_never_passes(factor, distance, detect):
    for seed in SEEDS:
        x, gy, _ = relu_with_kinks(seed, distance)
        with pytest.raises((GradientCheckError, NondifferentiableError)):
            check_backward(scaled_relu(factor), x, gy, detect_nondifferentiable=detect, seed=seed)


@pytest.mark.parametrize("distance", [0.0, 1e-12, 1e-9, 1e-6])
def test_wrong_relu_next_to_a_kink_is_reported_as_wrong(distance):
    # the kinky elements are isolated, and the rest of the input shows the error
    for seed in SEEDS:
        x, gy, _ = relu_with_kinks(seed, distance)
        with pytest.raises(GradientCheckError, match=r"x_data\[0\]"):
            check_backward(scaled_relu(1.2), x, gy, seed=seed)


@pytest.mark.parametrize("distance", [1e-9, 1e-6, 1e-5])
def test_a_smaller_step_clears_a_kink_that_is_near_but_not_at_the_point(distance):
    for seed in SEEDS:
        x, gy, _ = relu_with_kinks(seed, distance)
        report = check_backward(scaled_relu(1.0), x, gy, seed=seed)
        assert report.passed
        assert report.targets[0].step < 1e-4  # the verdict was taken at a refined step


@pytest.mark.parametrize("distance", [0.0, 1e-13])
def test_a_kink_at_the_point_raises_naming_input_and_elements(distance):
    for seed in SEEDS:
        x, gy, elements = relu_with_kinks(seed, distance)
        with pytest.raises(NondifferentiableError) as info:
            check_backward(scaled_relu(1.0), x, gy, seed=seed)
        message = str(info.value).splitlines()[0]
        assert "x_data[0]" in message and f"seed={seed}" in message
        assert any(str(e) in message for e in elements), (message, elements)


def test_a_kink_in_the_first_order_gradient_is_caught_by_the_double_check():
    from minigrad.testing.gradcheck_cases import SquaredReLU
    for seed in SEEDS:
        x, gy, _ = relu_with_kinks(seed, 0.0)
        ggx = np.random.default_rng(seed + 50).uniform(-1, 1, x.shape)
        with pytest.raises(GradientCheckError):
            check_double_backward(lambda v: SquaredReLU(1.2).apply((v,))[0], x, gy, ggx, seed=seed)
        with pytest.raises(NondifferentiableError, match=r"x_data\[0\]"):
            check_double_backward(lambda v: SquaredReLU(1.0).apply((v,))[0], x, gy, ggx, seed=seed)


def test_smooth_steep_functions_are_refined_not_rejected():
    for seed in SEEDS:
        x = np.random.default_rng(seed).uniform(-1, 1, (3, 4))
        check_backward(lambda v: F.sin(40.0 * v), x, np.ones((3, 4)), seed=seed)


# --- 2. the caller's no_backprop_mode does not leak into the checker's graphs --------------------

def test_checks_force_backprop_on():
    x = np.random.default_rng(0).uniform(-1, 1, (3, 4))
    gy, ggx = np.ones((3, 4)), np.ones((3, 4))
    with mg.no_backprop_mode():
        assert check_backward(F.tanh, x, gy, seed=0).passed
        assert check_double_backward(F.tanh, x, gy, ggx, seed=0).passed
        W = mg.Parameter(np.random.default_rng(1).uniform(-1, 1, (2, 4)))
        assert check_backward(lambda v: F.linear(v, W), x, np.ones((3, 2)), params=(W,), seed=0).passed
        with pytest.raises(GradientCheckError):
            check_backward(scaled_relu(1.2), x + 2.0, gy, seed=0)
        assert not mg.config.enable_backprop  # the caller's mode is left as it was


# --- 4. each input against its own tolerance ----------------------------------------------------

class MulScaledX(mg.FunctionNode):
    def __init__(self, factor):
        self.factor = factor

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        return inputs[0] * inputs[1],

    def backward(self, indexes, grad_outputs):
        x, w = self.get_retained_inputs()
        gy, = grad_outputs
        return gy * w * self.factor, gy * x


@pytest.mark.parametrize("tolerances", [{}, {"atol": 5e-3, "rtol": 5e-2}])
def test_one_wrong_input_does_not_hide_behind_the_others(tolerances):
    # the case: float16 x * w whose gx is 20 % off, a float64 numerical part
    for seed in range(20):
        rng = np.random.default_rng(seed)
        x, w, gy = (rng.uniform(-1, 1, (3, 4)).astype(np.float16) for _ in range(3))
        with pytest.raises(GradientCheckError) as info:
            check_backward(lambda a, b: MulScaledX(1.2).apply((a, b))[0], (x, w), gy, dtype=np.float64,
                           seed=seed, **tolerances)
        assert [t.name for t in info.value.report.targets if t.margin >= 1] == ["x_data[0]"]


def test_a_minor_input_is_held_to_its_own_tolerance():
    # w's term is 1000 times smaller than x's; a 5 % error in it must still be caught
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        x, w, gy = (rng.uniform(0.5, 1, (3, 4)) for _ in range(3))

        def func(a, b):
            return MulScaledX(1.0).apply((a, b * 1e-3))[0] + ScaleGrad(1.05).apply((b,))[0] * 1e-3
        with pytest.raises(GradientCheckError, match=r"x_data\[1\]"):
            check_backward(func, (x, w), gy, atol=0, rtol=1e-2, seed=seed)


class ScaleGrad(mg.FunctionNode):
    def __init__(self, factor):
        self.factor = factor

    def forward(self, inputs):
        return inputs[0].copy(),

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * self.factor,


# --- 5. complex inputs are refused --------------------------------------------------------------

def test_complex_inputs_are_refused_by_name():
    x = np.ones(3, dtype=np.complex128)
    with pytest.raises(TypeError, match=r"x_data\[1\] is complex"):
        check_backward(lambda a, b: a, (np.ones(3), x), np.ones(3), seed=0)
    with pytest.raises(TypeError, match=r"x_data\[0\] is complex"):
        check_double_backward(lambda a: a, x, np.ones(3), np.ones(3), seed=0)


def test_complex_outputs_are_refused():
    class ToComplex(mg.FunctionNode):
        def forward(self, inputs):
            return inputs[0].astype(np.complex128),

        def backward(self, indexes, grad_outputs):
            return grad_outputs[0],
    with pytest.raises(TypeError, match="output 0 of func is complex"):
        check_backward(lambda a: ToComplex().apply((a,))[0], np.ones(3), np.ones(3, np.complex128), seed=0)


# --- 6. a backward that is not a function of its inputs ----------------------------------------

class NoisyBackward(mg.FunctionNode):
    counter = itertools.count()

    def __init__(self, amplitude, source="random"):
        self.amplitude, self.source = amplitude, source

    def forward(self, inputs):
        return inputs[0] * 2.0,

    def backward(self, indexes, grad_outputs):
        if self.source == "random":
            noise = np.random.default_rng().uniform(-1, 1)
        else:  # a counter
            noise = float(next(NoisyBackward.counter) % 2)
        return grad_outputs[0] * (2.0 + self.amplitude * noise),


@pytest.mark.parametrize("source", ["random", "counter"])
def test_nondeterministic_backward_is_reported(source):
    x = np.random.default_rng(0).uniform(-1, 1, (3, 4))
    with pytest.raises(RuntimeError, match=r"backward is not deterministic: the gradient of x_data\[0\] differs"):
        check_backward(lambda v: NoisyBackward(1e-3, source).apply((v,))[0], x, np.ones((3, 4)), seed=0)


def test_nondet_tol_accepts_a_bounded_nondeterminism():
    x = np.random.default_rng(0).uniform(-1, 1, (3, 4))
    func = lambda v: NoisyBackward(1e-9).apply((v,))[0]  # noqa: E731
    assert check_backward(func, x, np.ones((3, 4)), nondet_tol=1e-8, seed=0).passed
    with pytest.raises(RuntimeError, match="not deterministic"):
        check_backward(func, x, np.ones((3, 4)), seed=0)
    with pytest.raises(ValueError, match="nondet_tol must be >= 0"):
        check_backward(func, x, np.ones((3, 4)), nondet_tol=-1.0, seed=0)


# --- Chainer v7 semantics: no_grads, y_grad entries, eps ---------------------------------------

def test_no_grads_inputs_still_require_grad_and_must_get_none():
    seen = []

    def connected(a, b):
        seen.append(b.requires_grad)
        return a * b
    x0, x1, gy = np.ones(3), np.full(3, 2.0), np.ones(3)
    with pytest.raises(RuntimeError, match=r"x_data\[1\] is excluded by no_grads but backprop gave it a gradient"):
        check_backward(connected, (x0, x1), gy, no_grads=(False, True), seed=0)
    assert seen and all(seen)

    def unconnected(a, b):  # b takes part in the forward only through a constant
        return a * mg.Variable(b.array, requires_grad=False)
    assert check_backward(unconnected, (x0, x1), gy, no_grads=(False, True), seed=0).passed


def test_y_grad_may_hold_none_for_an_output_without_gradient():
    x = np.random.default_rng(0).uniform(-1, 1, (3, 4))
    gy = np.random.default_rng(1).uniform(-1, 1, (3, 2))
    func = lambda v: F.split_axis(F.sin(v), 2, axis=1)  # noqa: E731
    assert check_backward(func, x, (gy, None), seed=0).passed
    assert check_double_backward(func, x, (None, gy), np.ones((3, 4)), seed=0).passed

    def wrong_second(v):  # the first output is right, the second's gradient is wrong: only it is ignored
        a, b = F.split_axis(v, 2, axis=1)
        return F.sin(a), scaled_relu(1.2)(b + 3.0)
    assert check_backward(wrong_second, x, (gy, None), seed=0).passed
    with pytest.raises(GradientCheckError):
        check_backward(wrong_second, x, (gy, gy), seed=0)


@pytest.mark.parametrize("eps", [0, -1e-3, float("nan")])
def test_eps_must_be_positive_as_in_chainer(eps):
    with pytest.raises(AssertionError, match="eps must be a positive finite number"):
        check_backward(F.exp, np.ones(2), np.ones(2), eps=eps, seed=0)


class _TinyScale(mg.FunctionNode):
    """``x * 3.6e-216``; ``wrong`` doubles its gradient."""

    def __init__(self, wrong=False):
        self.wrong = wrong

    def forward(self, inputs):
        return inputs[0] * 3.6e-216,

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * (7.2e-216 if self.wrong else 3.6e-216),


def test_gradients_whose_squares_underflow():
    """Found by Hypothesis drawing values: the terms g·v of 1e-216 square to 0, which made the first step 0
    and the finite difference an IndexError. The check now works at that scale, both ways."""
    x16, g16 = np.array(0.5, np.float16), np.array(1.0, np.float16)
    check_backward(lambda x: x * 3.6e-216, (x16,), (g16,), seed=0)  # float16 outputs of exactly 0
    x, gy = np.array([0.5, 0.25]), np.array([1.0, -1.0])
    check_backward(lambda x: _TinyScale().apply((x,))[0], (x,), (gy,), seed=0)
    with pytest.raises(AssertionError, match="backprop disagrees with the numerical derivative"):
        check_backward(lambda x: _TinyScale(wrong=True).apply((x,))[0], (x,), (gy,), seed=0)


class _Square(mg.FunctionNode):
    """``x * x``, with its gradient times ``factor``."""

    def __init__(self, factor=1.0):
        self.factor = factor

    def forward(self, inputs):
        self.retain_inputs((0,))
        return inputs[0] * inputs[0],

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] * x * (2.0 * self.factor),


@pytest.mark.parametrize("scale", [1e-158, 1e-165, 1e-200])
def test_inputs_whose_squares_are_subnormal_or_underflow(scale):
    """An outsider's edge (tiny scales): the rms of inputs below 1e-154 used to underflow to 0, so the
    inputs moved by 1e-4 instead of their own scale, and a correct x * x failed; outputs in the subnormal
    range round to an absolute spacing, not a relative one, which the rounding bound now counts."""
    rng = np.random.default_rng(0)
    x, gy = rng.uniform(-1, 1, (3, 4)) * scale, rng.uniform(-1, 1, (3, 4))
    for seed in range(3):
        report = check_backward(lambda v: _Square().apply((v,))[0], x, gy, seed=seed)
        assert report.passed
    if scale == 1e-158:  # subnormal outputs still resolve a wrong gradient
        with pytest.raises(GradientCheckError):
            check_backward(lambda v: _Square(1.5).apply((v,))[0], x, gy, seed=0)
    else:  # outputs of 0: nothing can be told, and the statement says so
        assert report.sensitivity[0].element > 1.0


@pytest.mark.parametrize("func, x, what, gradient_finite", [
    (lambda v: v * v, np.full((2, 3), 1e200), "inf", True),
    (F.exp, np.array([800.0, 1.0]), "inf", False),
    (F.exp, np.array([12.0, 1.0], np.float16), "inf", False),
    (F.log, np.array([-1.0, 1.0]), "NaN", True),
])
def test_an_output_that_is_not_finite_at_the_point_is_a_value_error(func, x, what, gradient_finite):
    """It used to end in a kink report (x * x at 1e200) or a NaN in the gradient (exp at 800). The
    double check's func is the first-order gradient: it refuses the point where that is not finite."""
    with np.errstate(all="ignore"), pytest.raises(ValueError, match=rf"output 0 of func is {what} at the point"):
        check_backward(func, x, np.ones_like(x), seed=0)
    if not gradient_finite:
        with np.errstate(all="ignore"), pytest.raises(ValueError, match=r"output 0 of func is inf at the point"):
            check_double_backward(func, x, np.ones_like(x), np.ones_like(x), seed=0)
