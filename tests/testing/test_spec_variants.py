"""The cases an OpSpec's kind derives: each catches an op broken only there, passes the correct op, and reaches the
sweep, op_tests and the CLI's plan."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import OpSpec, Registry, load_specs, op_tests, run_case
from minigrad.testing.spec_variants import derived, with_axis, with_scalar
from minigrad.testing.sweep_plan import plan_cases


def _matrix(rng, dt):
    return (rng.uniform(-1, 1, (2, 3)).astype(dt),)


def _pair(rng, dt):
    return rng.uniform(-1, 1, (2, 3)).astype(dt), rng.uniform(-1, 1, (3,)).astype(dt)


def _statuses(spec: OpSpec, dtype: str = "float64") -> dict[str, str]:
    """``{case name: worst status over its checks}`` for every derived case of ``spec``."""
    found = {}
    for case in derived(spec):
        statuses = {run_case(case, dtype, "numpy", check).status for check in case.checks or ("forward", "backward")}
        found[case.name] = "fail" if statuses - {"pass", "skip"} else "pass"
    return found


def test_an_elementwise_op_wrong_on_a_0dim_input_fails_its_0dim_case_alone():
    def exp_off_on_0dim(x):  # the kind of slip a 0-dim fast path makes
        return F.exp(x) if x.ndim else F.exp(x) * 1.01

    good = OpSpec("exp", F.exp, _matrix, np.exp, kind="elementwise")
    bad = OpSpec("exp", exp_off_on_0dim, _matrix, np.exp, kind="elementwise")
    assert _statuses(good) == {"exp[0-dim]": "pass", "exp[empty]": "pass"}
    assert _statuses(bad) == {"exp[0-dim]": "fail", "exp[empty]": "pass"}


def test_an_elementwise_op_that_breaks_on_no_elements_fails_its_empty_case():
    def exp_over_first_element(x):
        return F.exp(x) * (x.array.reshape(-1)[0] * 0 + 1) if x.ndim else F.exp(x)  # IndexError when empty

    bad = OpSpec("exp", exp_over_first_element, _matrix, np.exp, kind="elementwise")
    assert _statuses(bad)["exp[empty]"] == "fail"


def test_a_binary_op_wrong_with_a_python_scalar_fails_its_scalar_case():
    def mul_dropping_a_left_scalars_sign(a, b):
        return F.mul(abs(a), b) if isinstance(a, (int, float)) else F.mul(a, b)

    good = OpSpec("mul", F.mul, _pair, np.multiply, kind="binary")
    bad = OpSpec("mul", mul_dropping_a_left_scalars_sign, _pair, np.multiply, kind="binary")
    assert set(_statuses(good).values()) == {"pass"}
    # the real domain's scalars: 0.75 on the right, -2 on the left
    assert [name for name, status in _statuses(bad).items() if status == "fail"] == ["mul[scalar,var]"]


def test_a_binary_op_that_does_not_broadcast_fails_its_broadcast_case():
    def mul_same_shapes_only(a, b):
        if np.shape(a) != np.shape(b):
            raise ValueError("mul: shapes differ")
        return F.mul(a, b)

    bad = OpSpec("mul", mul_same_shapes_only, lambda rng, dt: _pair(rng, dt)[:1] * 2, np.multiply, kind="binary")
    assert _statuses(bad)["mul[broadcast]"] == "fail"


def test_a_reduction_that_ignores_keepdims_or_negative_axes_fails_those_cases():
    def sum_without_keepdims(x, axis=None, keepdims=False):
        return F.sum(x, axis=axis)

    def sum_of_positive_axes_only(x, axis=None, keepdims=False):
        return F.sum(x, axis=None if axis == -1 else axis, keepdims=keepdims)

    spec = functools.partial(OpSpec, "sum", inputs=_matrix, reference=np.sum, kind="reduction")
    assert set(_statuses(spec(func=F.sum)).values()) == {"pass"}
    assert _statuses(spec(func=sum_without_keepdims))["sum[axis=(2,0),keepdims]"] == "fail"
    assert _statuses(spec(func=sum_of_positive_axes_only))["sum[axis=-1]"] == "fail"
    case = with_axis(spec(func=F.sum), (2, 3), 0)
    assert (case.name, run_case(case, "float32", "numpy", "backward").status) == ("sum[(2, 3),axis=0]", "pass")


def test_variants_are_cases_with_the_specs_func_and_reference():
    spec = OpSpec("softmax", F.softmax, _matrix, lambda a: np.exp(a) / np.exp(a).sum(axis=1, keepdims=True),
                  variants={"empty batch": lambda rng, dt: (np.zeros((0, 3), dt),)})
    (case,) = derived(spec)
    assert (case.name, case.func, case.reference, case.checks) == ("softmax[empty batch]", spec.func,
                                                                  spec.reference, ("forward", "backward", "double"))
    assert run_case(case, "float32", "numpy", "double").status == "pass"


def test_derived_cases_follow_their_spec_in_load_specs_op_tests_and_the_plan(tmp_path):
    registry = Registry()
    registry.register(OpSpec("neg", F.neg, _matrix, np.negative, linear_in=(0,), kind="elementwise"))
    assert [s.name for s in load_specs(registry)] == ["neg", "neg[0-dim]", "neg[empty]"]
    cases = op_tests(registry, dtypes=("float32",)).minigrad_op_cases
    assert {(s.name, check) for s, _, check in cases if s.name == "neg[0-dim]"} == \
        {("neg[0-dim]", check) for check in ("forward", "backward", "double")}  # an edge case runs its checks only
    module = tmp_path / "neg_specs.py"
    module.write_text("import numpy as np, minigrad.functions as F\nfrom minigrad.testing import OpSpec, register\n"
                      "register(OpSpec('neg', F.neg, lambda rng, dt: (np.ones((2, 3), dt),), np.negative, "
                      "kind='elementwise'))\n")
    planned = plan_cases([str(module)], dtypes=("float64",), backends=("numpy",))
    assert {(c.op, c.check) for c in planned if c.op == "neg[empty]"} == \
        {("neg[empty]", check) for check in ("forward", "backward", "double")}


def test_derived_cases_are_the_same_objects_on_every_call():
    spec = OpSpec("neg", F.neg, _matrix, np.negative, kind="elementwise")
    assert all(a is b for a, b in zip(derived(spec), derived(spec)))


@pytest.mark.parametrize("fields, message", [
    ({"kind": "unary"}, "unknown kind 'unary'; choose from elementwise, binary, reduction"),
    ({"kind": "elementwise", "operator": "*"}, "operator='\\*' needs kind='binary'"),
    ({"kind": "binary", "operator": "@"}, "unknown operator '@'"),
    ({"kind": "binary", "domain": "positive"}, "domain must be a tuple of names"),
    ({"kind": "binary", "domain": ("real", "complex")}, "domain must be a tuple of names"),
    ({"checks": ("forward", "sideways")}, "checks must be a tuple of names"),
    ({"variants": {"a]b": _matrix}}, "variants maps labels"),
    ({"variants": {"empty": "not callable"}}, "variants maps labels"),
])
def test_opspec_refuses_unknown_kinds_domains_operators_checks_and_variants(fields, message):
    with pytest.raises(ValueError, match=f"OpSpec 'e': .*{message}"):
        OpSpec("e", F.exp, _matrix, np.exp, **fields)


def test_a_python_scalar_case_keeps_the_arrays_dtype():
    spec = OpSpec("mul", F.mul, _pair, np.multiply, kind="binary", operator="*")
    case = with_scalar(spec, 2, 0)
    (x,) = case.inputs(np.random.default_rng(0), np.dtype("float16"))
    assert case.func(mg.Variable(x)).dtype == np.float16
    assert run_case(case, "float16", "numpy", "forward").status == "pass"
