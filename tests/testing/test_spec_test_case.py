"""The one case runner: specs with parameters and second-order gradients, and the test classes built on it."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import FunctionTestCase, GradientCheckError, LinkTestCase, OpSpec, run_case
from minigrad.testing.spec_test_case import TEST_NAMES
from minigrad.testing.sweep import BATTERY, SpecError


class ScaledBias(mg.FunctionNode):
    """x + b, the gradient of b scaled by ``factor`` (1: right)."""

    def __init__(self, factor=1.0):
        self.factor = factor

    def forward(self, inputs):
        x, b = inputs
        return x + b,

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        return gy, F.sum(gy, axis=0) * self.factor


def _biased(factor, **fields):
    b = mg.Parameter(np.linspace(-1, 1, 3))
    return OpSpec(f"bias*{factor}", lambda x: ScaledBias(factor).apply((x, b))[0],
                  lambda rng, dt: (rng.uniform(-1, 1, (4, 3)).astype(dt),), lambda x: x + np.linspace(-1, 1, 3),
                  params=lambda: (b,), dtypes=("float64",), **fields)


def test_a_wrong_parameter_gradient_fails_and_a_right_one_passes():
    assert [run_case(_biased(1.0), "float64", "numpy", check).status for check in ("backward", "double")] == \
        ["pass", "pass"]
    wrong = run_case(_biased(1.01), "float64", "numpy", "backward")
    assert wrong.status == "fail" and isinstance(wrong.error, GradientCheckError)
    assert "params[0]" in wrong.message


def test_grad_grad_inputs_and_options_reach_the_double_check():
    seen = []

    def grad_grad_inputs(rng, inputs):
        seen.append(inputs[0].shape)
        return (np.ones_like(inputs[0]),)

    spec = OpSpec("tanh", F.tanh, lambda rng, dt: (rng.uniform(-1, 1, (2, 3)).astype(dt),), np.tanh,
                  grad_grad_inputs=grad_grad_inputs,
                  check_double_backward_options={"eps": 1e-4, "directions": 2})
    result = run_case(spec, "float64", "numpy", "double")
    assert result.status == "pass" and seen == [(2, 3)] and result.outcome.margin < 1
    bad = OpSpec("tanh", F.tanh, spec.inputs, np.tanh, grad_grad_inputs=lambda rng, inputs: (np.ones(2),))
    result = run_case(bad, "float64", "numpy", "double")
    assert result.status == "error" and isinstance(result.error, SpecError) and "grad_grad_inputs" in result.message


def test_a_grad_grad_input_may_be_none_as_in_chainer():
    """Chainer's LSTM tests give None for an input whose first-order gradient gets no second-order cotangent;
    a wrong second order in the other input is still caught."""
    def inputs(rng, dt):
        return rng.uniform(0.5, 1.5, (2, 3)).astype(dt), rng.uniform(0.5, 1.5, (2, 3)).astype(dt)

    def second_only(rng, xs):
        return None, np.ones_like(xs[1])

    right = OpSpec("a*a*b", lambda a, b: a * a * b, inputs, lambda a, b: a * a * b, grad_grad_inputs=second_only)
    assert run_case(right, "float64", "numpy", "double").status == "pass"
    wrong = OpSpec("a*a*b, b's gradient wrong at second order", lambda a, b: _WrongSecondOrder().apply((a, b))[0],
                   inputs, lambda a, b: a * a * b, grad_grad_inputs=second_only)
    assert run_case(wrong, "float64", "numpy", "double").status == "fail"


class _WrongSecondOrder(mg.FunctionNode):
    """``a * a * b`` whose gradient for ``b`` (``a * a * gy``) is a constant of the graph: no second order."""

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        a, b = inputs
        return a * a * b,

    def backward(self, indexes, grad_outputs):
        a, b = self.get_retained_inputs()
        gy, = grad_outputs
        return tuple(2 * a * b * gy if i == 0 else mg.Variable(a.array * a.array * gy.array) for i in indexes)


def test_unknown_gradient_check_options_are_refused():
    with pytest.raises(ValueError, match=r"check_backward_options has unknown keywords \['atoll'\]"):
        OpSpec("tanh", F.tanh, lambda rng, dt: (np.zeros(2, dt),), check_backward_options={"atoll": 1.0})
    with pytest.raises(ValueError, match=r"check_forward_options has unknown keywords \['eps'\]"):
        OpSpec("tanh", F.tanh, lambda rng, dt: (np.zeros(2, dt),), check_forward_options={"float16": {"eps": 1.0}})


def test_one_vocabulary_means_the_same_in_a_spec_and_in_a_test_class():
    """A shared keyword and a dtype's own entry: the spec and the test class resolve them alike, and they reach the
    check (a gradient 1 % off passes with rtol 5 % for float64 only)."""
    table = {"eps": 1e-3, np.float64: {"atol": 0.0, "rtol": 0.05}}
    spec = _biased(1.01, check_backward_options=table)
    assert spec.options("backward", "float64") == {"eps": 1e-3, "atol": 0.0, "rtol": 0.05}
    assert spec.options("backward", "float32") == {"eps": 1e-3}
    assert run_case(spec, "float64", "numpy", "backward").status == "pass"
    assert run_case(_biased(1.01), "float64", "numpy", "backward").status == "fail"
    case = _link_case(1.01, check_backward_options=table, skip_double_backward_test=True)()
    case.dtype = np.dtype("float64")
    assert case.options("check_backward_options") == spec.options("backward", "float64")
    case.test_backward("numpy", "float64")


@pytest.mark.parametrize("old, new, value, expected", [
    ("forward_tolerance", "check_forward_options", {"float16": (1e-2, 1e-3)},
     {"float16": {"atol": 1e-2, "rtol": 1e-3}}),
    ("backward_tolerance", "check_backward_options", {"float32": (1e-3, 1e-3)},
     {"float32": {"atol": 1e-3, "rtol": 1e-3}}),
    ("double_tolerance", "check_double_backward_options", {"float64": (0.0, 1e-6)},
     {"float64": {"atol": 0.0, "rtol": 1e-6}}),
    ("backward_options", "check_backward_options", {"eps": 1e-3}, {"eps": 1e-3}),
    ("double_options", "check_double_backward_options", {"directions": 2}, {"directions": 2}),
])
def test_the_old_option_names_of_op_spec_still_work_with_a_warning(old, new, value, expected):
    with pytest.warns(DeprecationWarning, match=f"{old} is deprecated; name it {new}"):
        spec = OpSpec("tanh", F.tanh, lambda rng, dt: (np.zeros(2, dt),), **{old: value})
    assert getattr(spec, new) == expected


def test_the_old_options_won_over_the_old_tolerances_and_still_do():
    with pytest.warns(DeprecationWarning):
        spec = OpSpec("tanh", F.tanh, lambda rng, dt: (np.zeros(2, dt),), backward_tolerance={"float16": (1.0, 2.0)},
                      backward_options={"atol": 0.5})
    assert spec.options("backward", "float16") == {"atol": 0.5, "rtol": 2.0}


def test_reraise_raises_the_checks_own_exception_and_passes_quietly():
    wrong = run_case(_biased(1.5), "float64", "numpy", "backward")
    with pytest.raises(GradientCheckError) as info:
        wrong.reraise()
    assert info.value is wrong.error
    run_case(_biased(1.0), "float64", "numpy", "backward").reraise()


def test_every_battery_check_is_a_test_of_both_classes():
    for check, name in TEST_NAMES.items():
        assert check in BATTERY
        for cls in (FunctionTestCase, LinkTestCase):
            assert callable(getattr(cls, f"test_{name}")) and getattr(cls, f"skip_{name}_test") is False


class Biased(mg.Link):
    def __init__(self, factor):
        super().__init__()
        self.factor = factor
        with self.init_scope():
            self.b = mg.Parameter(np.linspace(-1, 1, 3))

    def forward(self, x):
        return ScaledBias(self.factor).apply((x, self.b))[0]


def _link_case(factor, **attributes):
    def forward_expected(self, link, inputs):
        return inputs[0] + link.b.array,

    return type("BiasedCase", (LinkTestCase,), {
        "create_link": lambda self, initializers: Biased(factor),
        "generate_inputs": lambda self: (self.rng.uniform(-1, 1, (4, 3)).astype(self.dtype),),
        "forward_expected": forward_expected, **attributes})


def test_the_old_tolerance_names_of_link_test_case_still_work_with_a_warning():
    with pytest.warns(DeprecationWarning, match="backward_tolerance is deprecated; name it check_backward_options"):
        loose = _link_case(1.01, backward_tolerance={np.float64: {"atol": 0.0, "rtol": 0.05}},
                           skip_double_backward_test=True)
    assert loose.check_backward_options == {np.float64: {"atol": 0.0, "rtol": 0.05}}
    loose().test_backward("numpy", "float64")  # 1 % off, inside the 5 % asked for
    with pytest.raises(GradientCheckError, match="params"):
        _link_case(1.01, skip_double_backward_test=True)().test_backward("numpy", "float64")


def test_a_link_with_parameters_runs_jvp_at_the_widest_dtype_only():
    case = _link_case(1.0)()
    assert case.run_case("numpy", "float64") == list(TEST_NAMES.values())
    with pytest.raises(pytest.skip.Exception, match="jvp takes central differences"):
        case.test_jvp("numpy", "float32")
