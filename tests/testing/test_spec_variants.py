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
    """``{case name: worst status over its checks}`` for every derived case of ``spec`` but its bad ones."""
    found = {}
    for case in (c for c in derived(spec) if c.checks != ("refuses",)):
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
    (case, *bad) = derived(spec)
    assert [b.checks for b in bad] == [("refuses",)] * 3
    assert (case.name, case.func, case.reference, case.checks) == ("softmax[empty batch]", spec.func,
                                                                  spec.reference, ("forward", "backward", "double"))
    assert run_case(case, "float32", "numpy", "double").status == "pass"


def test_derived_cases_follow_their_spec_in_load_specs_op_tests_and_the_plan(tmp_path):
    registry = Registry()
    registry.register(OpSpec("neg", F.neg, _matrix, np.negative, linear_in=(0,), kind="elementwise"))
    assert [s.name for s in load_specs(registry)] == ["neg", "neg[0-dim]", "neg[empty]", "neg[bad:list]",
                                                      "neg[bad:str]", "neg[bad:int]"]
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


# --- bad cases: the refuses check -------------------------------------------------------------------------------------
class _Lax(mg.FunctionNode):
    """x * 2 with no input check at all: a list or a string reaches NumPy."""

    def forward(self, inputs):
        return inputs[0] * 2,

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * 2,


def _lax(x):
    return _Lax().apply((x,))[0]


class _Bare(_Lax):
    """Indexes past its input's end on integer inputs: an IndexError, not a clear refusal."""

    def forward(self, inputs):
        return (inputs[0][10] if inputs[0].dtype.kind == "i" else inputs[0] * 2),


def _unnamed(x):
    from minigrad.functions.checks import as_input

    return F.tanh(as_input("hyperbolic tangent", x))  # a clear error, but under another name than the op's


def _bad(func, name="twice", **fields):
    return OpSpec(name, func, _matrix, lambda a: 2 * a, **fields)


def test_bad_cases_are_derived_from_what_the_spec_says():
    names = [case.name for case in derived(_bad(F.tanh, "tanh", kind="elementwise"))]
    assert names[-3:] == ["tanh[bad:list]", "tanh[bad:str]", "tanh[bad:int]"]
    assert "tanh[bad:int]" not in [case.name for case in derived(_bad(F.tanh, "tanh", accepts_integers=True))]
    assert "sum[bad:axis]" in [case.name for case in derived(OpSpec("sum", F.sum, _matrix, np.sum, kind="reduction"))]
    assert "add[bad:shapes]" in [case.name for case in derived(OpSpec("add", F.add, _pair, np.add, kind="binary"))]
    assert {case.checks for case in derived(_bad(F.tanh, "tanh")) if "bad:" in case.name} == {("refuses",)}


def test_the_refuses_check_catches_a_lax_op_a_bare_error_and_an_unnamed_one_and_passes_a_clear_one():
    def statuses(spec):
        return {case.name: run_case(case, "float64", "numpy", "refuses") for case in derived(spec)}

    lax = statuses(_bad(_lax))  # accepts an int array; a string is refused, by Variable, without naming the op
    assert lax["twice[bad:int]"].status == "fail" and "accepts its bad inputs" in lax["twice[bad:int]"].message
    assert lax["twice[bad:str]"].status == "fail" and "does not name twice" in lax["twice[bad:str]"].message
    bare = statuses(_bad(lambda x: _Bare().apply((x,))[0]))["twice[bad:int]"]
    assert bare.status == "fail" and "bare IndexError" in bare.message
    unnamed = statuses(_bad(_unnamed, "tanh"))
    assert unnamed["tanh[bad:list]"].status == "fail" and "does not name tanh" in unnamed["tanh[bad:list]"].message
    clear = statuses(_bad(F.tanh, "tanh", kind="elementwise"))
    assert {name: r.status for name, r in clear.items() if "bad:" in name} == \
        {"tanh[bad:list]": "pass", "tanh[bad:str]": "pass", "tanh[bad:int]": "pass"}


def test_a_bad_value_the_specs_own_func_trips_on_is_a_skip_not_a_verdict_on_the_op():
    spec = _bad(lambda x: F.tanh(x.xp.asarray(x.array)), "tanh")  # reads x.xp before the op sees x
    result = run_case(derived(spec)[0], "float64", "numpy", "refuses")
    assert result.status == "skip" and "uses its inputs before the op" in result.message


def test_refuses_is_opt_in_only_bad_cases_run_it_and_the_test_classes_have_no_such_test():
    from minigrad.testing.spec_test_case import TEST_NAMES

    registry = Registry()
    spec = registry.register(_bad(F.tanh, "tanh"))
    assert run_case(spec, "float64", "numpy", "refuses").status == "skip"
    cases = op_tests(registry, dtypes=("float64",)).minigrad_op_cases
    assert {s.name for s, _, check in cases if check == "refuses"} == {"tanh[bad:list]", "tanh[bad:str]",
                                                                       "tanh[bad:int]"}
    assert {check for s, _, check in cases if "bad:" in s.name} == {"refuses"}
    assert "refuses" not in TEST_NAMES
