"""The case runner: skip reasons, each check of the battery catching the bug it is for, statuses."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad import backend
from minigrad.testing import OpSpec, run_case
from minigrad.testing.op_specs import all_specs
from minigrad.testing.op_specs.draw import uniform
from minigrad.testing.sweep import BATTERY, CHECKS, compare_backends, skip_reason


def _inputs(rng, dt):
    return (uniform(rng, (3, 4), dt),)


def _spec(name, func, reference=np.exp, **kwargs):
    return OpSpec(name, func, _inputs, reference, **kwargs)


def test_skip_reasons():
    spec = _spec("x", F.exp, differentiable=False, dtypes=("float32",), backends=("numpy",))
    for check in ("backward", "double", "deterministic"):
        assert skip_reason(spec, "float32", "numpy", check) == "x is not differentiable"
    assert skip_reason(spec, "float32", "numpy", "forward") is None
    assert skip_reason(spec, "float32", "numpy", "views") is None
    assert skip_reason(spec, "float64", "numpy", "forward") == "x does not support float64"
    assert skip_reason(spec, "float32", "cupy", "forward") == "x does not support cupy"
    with pytest.raises(ValueError, match="check must be one of"):
        skip_reason(spec, "float32", "numpy", "sideways")


def test_cupy_cases_skip_without_a_gpu(monkeypatch):
    monkeypatch.setattr(backend, "is_cupy_available", lambda: False)
    result = run_case(_spec("y", F.exp), "float32", "cupy", "forward")
    assert result.status == "skip" and result.message == "CuPy with a GPU is not available"


def test_every_check_passes_for_a_correct_op():
    spec = _spec("exp", F.exp)
    own = [check for check in CHECKS if not BATTERY[check].opt_in]  # (refuses: the derived bad cases run it)
    assert [run_case(spec, "float32", "numpy", check).status for check in own] == ["pass"] * len(own)
    assert own == [check for check in CHECKS if check != "refuses"]


def test_forward_mismatch_is_reported_as_a_failure():
    result = run_case(_spec("wrong", lambda x: F.exp(x) * 1.01), "float64", "numpy", "forward")
    assert result.status == "fail" and "not close" in result.message and result.failed


def test_forward_that_modifies_its_input_fails():
    def mutate(x):
        x.array[...] = 0
        return F.exp(x)

    result = run_case(_spec("mutating", mutate), "float64", "numpy", "forward")
    assert result.status == "fail" and "modified its input 0" in result.message


class _Widening(mg.FunctionNode):
    def forward(self, inputs):
        return inputs[0].astype(np.float64) * 2,

    def backward(self, indexes, grad_outputs):
        return F.cast(grad_outputs[0] * 2, np.float32),


def test_an_output_in_another_dtype_fails_forward():
    spec = _spec("widening", lambda x: _Widening().apply((x,))[0], lambda a: 2 * a, dtypes=("float32",))
    result = run_case(spec, "float32", "numpy", "forward")
    assert result.status == "fail" and "dtype float64 for float32 inputs" in result.message
    declared = _spec("widening", lambda x: _Widening().apply((x,))[0], lambda a: 2 * a, dtypes=("float32",),
                     preserves_dtype=False, output_dtype="float64")
    assert run_case(declared, "float32", "numpy", "forward").status == "pass"


def test_a_differentiable_op_declared_non_differentiable_fails_forward():
    result = run_case(_spec("exp", F.exp, differentiable=False), "float32", "numpy", "forward")
    assert result.status == "fail" and "declared non-differentiable" in result.message


class _SinCosWithoutNone(mg.FunctionNode):
    """Two outputs; backward assumes both gradients arrive."""

    def forward(self, inputs):
        self.retain_inputs((0,))
        return np.sin(inputs[0]), np.cos(inputs[0])

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] * F.cos(x) - grad_outputs[1] * F.sin(x),


def test_backward_of_a_multi_output_op_must_accept_none():
    spec = _spec("sincos", lambda x: _SinCosWithoutNone().apply((x,)), lambda a: (np.sin(a), np.cos(a)))
    assert run_case(spec, "float64", "numpy", "forward").status == "pass"
    result = run_case(spec, "float64", "numpy", "backward")
    assert result.status == "fail" and "output 0 receives no gradient (None)" in result.message


_calls = itertools.count(1)


class _Drifting(mg.FunctionNode):
    """Backward reads a counter: a different gradient every time."""

    def forward(self, inputs):
        return inputs[0] * 2,

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * (2 + 1e-12 * next(_calls)),


def test_a_backward_that_is_not_a_function_of_its_inputs_fails_deterministic():
    result = run_case(_spec("drifting", lambda x: _Drifting().apply((x,))[0], lambda a: 2 * a), "float64",
                      "numpy", "deterministic")
    assert result.status == "fail" and "second backward on the same graph" in result.message


class _LayoutBlind(mg.FunctionNode):
    """Flattens in memory order ('A'), then reshapes in C order: wrong for non-C-contiguous inputs."""

    def forward(self, inputs):
        x, = inputs
        return (np.reshape(x, (-1,), order="A") * 2).reshape(x.shape),

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * 2,


def test_an_op_that_ignores_strides_fails_views():
    spec = _spec("layout_blind", lambda x: _LayoutBlind().apply((x,))[0], lambda a: 2 * a)
    assert run_case(spec, "float64", "numpy", "forward").status == "pass"  # contiguous inputs hide the bug
    result = run_case(spec, "float64", "numpy", "views")
    assert result.status == "fail" and "transposed views as inputs" in result.message


def test_views_run_for_non_differentiable_ops_too():
    spec = OpSpec("sign_blind", lambda x: F.sign(_LayoutBlind().apply((x,))[0]), _inputs,
                  lambda a: np.sign(a), differentiable=False)
    assert run_case(spec, "float64", "numpy", "views").status == "fail"


def test_second_order_false_must_be_true():
    stale = _spec("exp", F.exp, second_order=False)
    result = run_case(stale, "float64", "numpy", "double")
    assert result.status == "xpass" and "declared second_order=False" in result.message and result.failed

    class FirstOrderOnly(mg.FunctionNode):
        def forward(self, inputs):
            self.retain_inputs((0,))
            return np.exp(inputs[0]),

        def backward(self, indexes, grad_outputs):
            x, = self.get_retained_inputs()
            return grad_outputs[0] * mg.Variable(np.exp(x.array), requires_grad=False),  # cuts the graph

    honest = _spec("exp1", lambda x: FirstOrderOnly().apply((x,))[0], second_order=False)
    assert run_case(honest, "float64", "numpy", "backward").status == "pass"
    result = run_case(honest, "float64", "numpy", "double")
    assert result.status == "xfail" and not result.failed


def test_expected_failures_match_by_check_dtype_and_backend():
    spec = _spec("off", lambda x: F.exp(x) * 1.01, expected_failures={"float64-forward": "known offset"})
    result = run_case(spec, "float64", "numpy", "forward")
    assert result.status == "xfail" and "known offset" in result.message
    assert run_case(spec, "float32", "numpy", "forward").status == "fail"  # not covered by the key
    stale = _spec("exp", F.exp, expected_failures={"*-numpy-backward": "was broken"})
    result = run_case(stale, "float32", "numpy", "backward")
    assert result.status == "xpass" and "was broken" in result.message


def test_integer_outputs_get_no_drawn_gradient():
    # used to draw a y_grad for the integer output, which check_backward rejects
    spec = OpSpec("sum_and_argmax", lambda x: (F.sum(x * x, axis=1), F.argmax(x, axis=1)),
                  lambda rng, dt: (rng.permutation(12).reshape(3, 4).astype(dt) / 12,),
                  lambda a: ((a * a).sum(axis=1), a.argmax(axis=1)))
    for check in ("forward", "backward", "double", "deterministic", "views"):
        result = run_case(spec, "float64", "numpy", check)
        assert result.status == "pass", (check, result.message)


def test_compare_backends_numpy_with_itself_agrees_for_every_op():
    specs = all_specs()
    assert len(specs) > 150
    for spec in specs:
        assert compare_backends(spec, spec.dtypes[-1], other="numpy") == 0.0, spec.name


# --- mistakes in a spec are the spec's errors, not the op's failures ----------------------------
def test_inputs_returning_a_bare_array_is_an_error_of_the_spec():
    # used to fail the op with "swish() takes 1 positional argument but 3 were given"
    spec = OpSpec("swish", lambda x: x * F.sigmoid(x), lambda rng, dt: uniform(rng, (3, 4), dt))
    for check in (c for c in CHECKS if not BATTERY[c].opt_in):
        result = run_case(spec, "float32", "numpy", check)
        assert result.status == "error" and result.failed, (check, result.status)
        assert "spec 'swish', field inputs: returned a ndarray, not a tuple" in result.message


def test_inputs_ignoring_the_dtype_is_an_error_of_the_spec():
    # used to blame the op: "output 0 has dtype float64 for float32 inputs"
    spec = OpSpec("ignores_dtype", F.exp, lambda rng, dt: (uniform(rng, (3,), np.float64),), np.exp)
    result = run_case(spec, "float32", "numpy", "forward")
    assert result.status == "error" and "field inputs: asked for float32, returned float arrays of float64" \
        in result.message
    assert run_case(spec, "float64", "numpy", "forward").status == "pass"
    mixed = OpSpec("mixed", lambda x, w: x * F.cast(w, x.dtype), lambda rng, dt: (uniform(rng, (3,), dt),
                                                                              uniform(rng, (3,), np.float64)),
                   lambda x, w: x * w)
    assert run_case(mixed, "float32", "numpy", "forward").status == "pass"  # one input in the dtype asked for


def test_a_reference_of_the_wrong_shape_or_count_is_an_error_of_the_spec():
    spec = _spec("exp", F.exp, reference=lambda a: np.exp(a).sum(axis=0))
    result = run_case(spec, "float64", "numpy", "forward")
    assert result.status == "error" and "spec 'exp', field reference: gives shape (4,) for output 0, the op (3, 4)" \
        in result.message
    two = run_case(_spec("exp", F.exp, reference=lambda a: (np.exp(a), a)), "float64", "numpy", "forward")
    assert two.status == "error" and "field reference: gives 2 output(s), the op 1" in two.message
    raising = run_case(_spec("exp", F.exp, reference=lambda a: a.nope), "float64", "numpy", "forward")
    assert raising.status == "error" and "field reference: raised AttributeError" in raising.message


def test_grad_outputs_of_the_wrong_count_is_an_error_of_the_spec_even_when_a_failure_is_expected():
    spec = _spec("exp", F.exp, grad_outputs=lambda rng, ys: (np.ones(3), np.ones(3)),
                 expected_failures={"backward": "known"})
    result = run_case(spec, "float64", "numpy", "backward")
    assert result.status == "error" and "field grad_outputs: gave 2 gradient(s) for 1 output(s)" in result.message


def test_an_op_that_raises_is_still_the_op_failure():
    def broken(x):
        raise RuntimeError("boom")

    result = run_case(_spec("broken", broken), "float64", "numpy", "forward")
    assert result.status == "fail" and "RuntimeError: boom" in result.message


# --- margins and seeds --------------------------------------------------------------------------
class _WrongExp(mg.FunctionNode):
    def forward(self, inputs):
        return np.exp(inputs[0]),

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * 2.0,  # wrong: gy * exp(x)


def test_failures_report_their_margin():
    forward = run_case(_spec("off", lambda x: F.exp(x) * 1.01), "float64", "numpy", "forward")
    assert forward.status == "fail" and forward.margin is not None
    # |exp(x) * 0.01| / (atol + rtol exp(x)) with float64's (1e-12, 1e-10): about 1e8
    assert 1e7 < forward.margin < 1e9
    backward = run_case(_spec("wrong", lambda x: _WrongExp().apply((x,))[0]), "float64", "numpy", "backward")
    assert backward.status == "fail" and backward.margin is not None and backward.margin > 1


def test_the_seed_a_result_reports_reruns_that_case():
    spec = _spec("wrong", lambda x: _WrongExp().apply((x,))[0])
    first = run_case(spec, "float32", "numpy", "backward", seed=594298900)
    assert first.seed not in (None, 594298900) and f"seed={first.seed}" in first.message  # the checker reports it
    again = run_case(spec, "float32", "numpy", "backward", case_seed=first.seed)
    assert (again.status, again.margin, again.seed) == (first.status, first.margin, first.seed)
    assert run_case(spec, "float32", "numpy", "backward", case_seed=first.seed + 1).margin != first.margin


def test_a_case_seed_depends_on_the_op_dtype_and_run_seed_only():
    spec = _spec("exp", F.exp)
    seeds = {(dtype, check, backend_name): run_case(spec, dtype, backend_name, check, seed=5).seed
             for dtype in ("float32", "float64") for check in CHECKS for backend_name in ("numpy", "cupy")}
    assert len({s for (dtype, _, _), s in seeds.items() if dtype == "float32"}) == 1
    assert seeds[("float32", "forward", "numpy")] != seeds[("float64", "forward", "numpy")]
    assert run_case(spec, "float32", "numpy", "forward", seed=6).seed != seeds[("float32", "forward", "numpy")]


def test_the_battery_is_one_table_that_everything_reads():
    from minigrad.testing import registry, sweep
    from minigrad.testing.pytest_integration import op_tests

    assert registry.CHECKS == sweep.CHECKS == tuple(sweep.BATTERY)
    assert sweep.GRADIENT_CHECKS == {name for name, check in sweep.BATTERY.items() if check.needs_gradient}
    assert all(isinstance(check, sweep.Check) and check.estimate > 0 for check in sweep.BATTERY.values())
    spec = _spec("exp", F.exp)
    assert {c for _, _, c in op_tests(spec).minigrad_op_cases} == set(sweep.BATTERY)
