"""Verdicts that aggregation cannot hide (issue 25): per output, per input, per scale band, and a constant
offset that must not raise the rounding floor. Each wrong node beside its correct twin, which must pass."""

import numpy as np
import pytest

import minigrad as mg
from minigrad.testing import GradientCheckError, check_backward

SEEDS = range(5)


def uniform(shape, seed=0, low=-1.0, high=1.0):
    return np.random.default_rng(seed).uniform(low, high, shape)


# --- per output: a small output's part of the gradient is judged at its own scale ----------------

class BigAndSmall(mg.FunctionNode):
    """(1e6 * sin x, tanh x); the part of the gradient from the small output is 5 % off when ``wrong``."""

    def __init__(self, wrong):
        self.wrong = wrong

    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        return 1e6 * np.sin(x), np.tanh(x)

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        g_big, g_small = grad_outputs
        slope = mg.Variable((1 - np.tanh(x.array) ** 2) * (1.05 if self.wrong else 1.0), requires_grad=False)
        parts = [] if g_big is None else [g_big * 1e6 * mg.Variable(np.cos(x.array), requires_grad=False)]
        parts += [] if g_small is None else [g_small * slope]
        return (parts[0] + parts[1] if len(parts) == 2 else parts[0]),


@pytest.mark.parametrize("seed", SEEDS)
def test_error_in_the_part_from_a_much_smaller_output_is_caught(seed):
    x = uniform((3, 4), seed)
    gys = (uniform((3, 4), seed + 10), uniform((3, 4), seed + 20))
    with pytest.raises(GradientCheckError, match="from output 1"):
        check_backward(lambda v: BigAndSmall(True).apply((v,)), x, gys, seed=seed)
    assert check_backward(lambda v: BigAndSmall(False).apply((v,)), x, gys, seed=seed).passed


# --- per input: opposite errors on two inputs do not cancel ----------------------------------------

class OppositeErrors(mg.FunctionNode):
    """x * w whose gradients are (1 + d) and (1 - d) times right: together they cancel along most lines."""

    def __init__(self, delta):
        self.delta = delta

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        return inputs[0] * inputs[1],

    def backward(self, indexes, grad_outputs):
        x, w = self.get_retained_inputs()
        gy, = grad_outputs
        return gy * w * (1 + self.delta), gy * x * (1 - self.delta)


@pytest.mark.parametrize("seed", SEEDS)
def test_opposite_errors_on_two_inputs_do_not_cancel(seed):
    x, w, gy = uniform((3, 4), seed), uniform((3, 4), seed + 1), uniform((3, 4), seed + 2)
    with pytest.raises(GradientCheckError) as info:
        check_backward(lambda a, b: OppositeErrors(1e-5).apply((a, b))[0], (x, w), gy, seed=seed)
    assert sorted(t.name for t in info.value.report.targets if t.margin >= 1) == ["x_data[0]", "x_data[1]"]
    assert check_backward(lambda a, b: OppositeErrors(0.0).apply((a, b))[0], (x, w), gy, seed=seed).passed


# --- per scale band: an error confined to the small elements of a wide-range gradient ---------------

class WideExp(mg.FunctionNode):
    """exp, whose gradient is doubled wherever x < 0 when ``wrong`` (there it is below 1, elsewhere up to 1e13)."""

    def __init__(self, wrong):
        self.wrong = wrong

    def forward(self, inputs):
        self.retain_inputs((0,))
        return np.exp(inputs[0]),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        slope = np.exp(x.array) * np.where((x.array < 0) & self.wrong, 2.0, 1.0)
        return grad_outputs[0] * mg.Variable(slope, requires_grad=False),


@pytest.mark.parametrize("seed", SEEDS)
def test_error_in_the_small_elements_of_a_wide_range_gradient_is_caught(seed):
    x = uniform((40,), seed, -30.0, 30.0)
    gy = uniform((40,), seed + 1)
    with pytest.raises(GradientCheckError, match="elements with"):
        check_backward(lambda v: WideExp(True).apply((v,))[0], x, gy, seed=seed)
    assert check_backward(lambda v: WideExp(False).apply((v,))[0], x, gy, seed=seed).passed


# --- a constant offset in an output does not raise the floor ---------------------------------------

class OffsetTanh(mg.FunctionNode):
    """tanh(x) + 1e8, whose gradient is 1 % off when ``wrong``."""

    def __init__(self, wrong):
        self.wrong = wrong

    def forward(self, inputs):
        self.retain_inputs((0,))
        return np.tanh(inputs[0]) + 1e8,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        slope = (1 - np.tanh(x.array) ** 2) * (1.01 if self.wrong else 1.0)
        return grad_outputs[0] * mg.Variable(slope, requires_grad=False),


@pytest.mark.parametrize("seed", SEEDS)
def test_a_constant_offset_does_not_let_a_one_percent_error_pass(seed):
    x, gy = uniform((3, 4), seed, -2, 2), uniform((3, 4), seed + 1)
    with pytest.raises(GradientCheckError):
        check_backward(lambda v: OffsetTanh(True).apply((v,))[0], x, gy, seed=seed)
    assert check_backward(lambda v: OffsetTanh(False).apply((v,))[0], x, gy, seed=seed).passed


# --- a pass states its sensitivity ---------------------------------------------------------------

def test_a_pass_states_what_it_would_have_caught():
    x, gy = uniform((3, 4)), uniform((3, 4), 1)
    report = check_backward(lambda v: OffsetTanh(False).apply((v,))[0], x, gy, seed=0)
    statement, = report.sensitivity
    assert statement.name == "x_data[0]" and statement.miss_probability == 1e-6
    assert 0 < statement.element < 1e-2 and statement.norm > 0
    text = str(report)
    assert "would have caught" in text and "x_data[0]: an error above" in text and "1 - 1e-06" in text
    # the stated one-element bound holds: an error a little above it in one element is caught
    wrong_by = 2.0 * statement.element_absolute

    class OneElement(OffsetTanh):
        def backward(self, indexes, grad_outputs):
            g, = super().backward(indexes, grad_outputs)
            bump = np.zeros((3, 4))
            bump[1, 2] = wrong_by / gy[1, 2]
            return g + grad_outputs[0] * mg.Variable(bump, requires_grad=False),
    with pytest.raises(GradientCheckError):
        check_backward(lambda v: OneElement(False).apply((v,))[0], x, gy, seed=0)


def test_an_input_too_small_to_move_the_outputs_is_no_false_alarm():
    """A step below the outputs' resolution (an input of 1e-17 beside outputs of 1) moves no output element:
    its rounding counts, so the numerical derivative of exactly 0 is not taken for a measurement (each of these
    20 seeds failed when only the moved elements' rounding counted: tolerance 1e-23)."""
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (3, 4))
    tiny = np.broadcast_to(rng.uniform(-1, 1, (3, 1)) * 1e-17, (3, 4))
    for seed in range(20):
        check_backward(lambda x, m: x - m, (a, tiny), rng.uniform(-1, 1, (3, 4)), seed=seed)
