"""op_tests: the cases it generates and its argument errors (the collected items are tested in tests/examples)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad.functions as F
from minigrad.testing import OpSpec, Registry, op_tests
from minigrad.testing.pytest_integration import run_op_case


def _inputs(rng, dt):
    return (rng.uniform(-1, 1, (2, 3)).astype(dt),)


def test_cases_follow_the_specs_dtypes_and_differentiability():
    exp = OpSpec("exp", F.exp, _inputs, np.exp, dtypes=("float32", "float64"))
    sign = OpSpec("sign", F.sign, lambda rng, dt: (np.array([-1.0, 2.0], dt),), np.sign, differentiable=False)
    cases = [(s.name, d, c) for s, d, c in op_tests(exp, sign, checks=("forward", "backward")).minigrad_op_cases]
    assert cases == [("exp", "float32", "forward"), ("exp", "float32", "backward"),
                     ("exp", "float64", "forward"), ("exp", "float64", "backward"),
                     ("sign", "float16", "forward"), ("sign", "float32", "forward"), ("sign", "float64", "forward")]


def test_a_registry_is_a_source_too():
    ops = Registry()
    ops.register(OpSpec("tanh", F.tanh, _inputs, np.tanh))
    assert {s.name for s, _, _ in op_tests(ops, dtypes=("float64",)).minigrad_op_cases} == \
        {"tanh", "tanh[bad:list]", "tanh[bad:str]", "tanh[bad:int]"}  # (the spec and the bad cases derived from it)


def test_bad_arguments():
    spec = OpSpec("exp", F.exp, _inputs, np.exp)
    with pytest.raises(ValueError, match="unknown checks/dtypes \\['sideways'\\]"):
        op_tests(spec, checks=("sideways",))
    with pytest.raises(ValueError, match="unknown checks/dtypes"):
        op_tests(spec, dtypes="float32")
    with pytest.raises(ValueError, match="named \\['exp', 'exp\\[bad:int\\]'.*are given more than once"):
        op_tests(spec, OpSpec("exp", F.exp, _inputs))


def test_run_op_case_fails_xfails_and_reports_unexpected_passes():
    wrong = OpSpec("off", lambda x: F.exp(x) * 1.01, _inputs, np.exp)
    with pytest.raises(pytest.fail.Exception, match="off \\(float64, numpy, forward\\) failed: AssertionError"):
        run_op_case(wrong, "float64", "numpy", "forward")
    known = OpSpec("off", lambda x: F.exp(x) * 1.01, _inputs, np.exp, expected_failures={"forward": "known"})
    with pytest.raises(pytest.xfail.Exception, match="known"):
        run_op_case(known, "float64", "numpy", "forward")
    stale = OpSpec("exp", F.exp, _inputs, np.exp, expected_failures={"forward": "was off"})
    with pytest.raises(pytest.fail.Exception, match="unexpected pass"):
        run_op_case(stale, "float64", "numpy", "forward")
    with pytest.raises(pytest.skip.Exception, match="does not support float16"):
        run_op_case(OpSpec("exp", F.exp, _inputs, np.exp, dtypes=("float64",)), "float16", "numpy", "forward")


def test_a_mistake_in_the_spec_fails_the_item():
    # a spec error used to fall through run_op_case and pass
    bare = OpSpec("bare", F.exp, lambda rng, dt: rng.uniform(-1, 1, 3).astype(dt), np.exp)
    with pytest.raises(pytest.fail.Exception, match="field inputs: returned a ndarray"):
        run_op_case(bare, "float64", "numpy", "forward")
