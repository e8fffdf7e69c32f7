"""Every op in minigrad's registry through the whole battery, via the same pytest integration users get."""

from __future__ import annotations

import minigrad.functions as F
from minigrad.testing import op_tests, run_case
from minigrad.testing.op_specs import all_specs

SPECS = all_specs()

# One item per spec x dtype x backend x check: test_op[relu-float32-numpy-backward], ...
test_op = op_tests("minigrad.testing.op_specs")


def test_non_differentiable_ops_are_checked_forward_and_their_outputs_need_no_grad():
    non_differentiable = [spec for spec in SPECS if not spec.differentiable]
    assert {"argmax", "argmin", "sign", "floor", "accuracy"} <= {s.name for s in non_differentiable}
    for spec in non_differentiable:
        result = run_case(spec, spec.dtypes[0], "numpy", "forward")
        assert result.status == "pass", (spec.name, result.message)
        assert run_case(spec, spec.dtypes[0], "numpy", "backward").status == "skip"
    generated = {(spec.name, check) for spec, _, check in test_op.minigrad_op_cases}
    for spec in non_differentiable:
        assert (spec.name, "forward") in generated and (spec.name, "backward") not in generated


def test_every_public_function_has_a_spec():
    covered = {name for spec in SPECS for name in spec.public_names}
    public = {name for name in dir(F) if not name.startswith("_") and name[0].islower()
              and callable(getattr(F, name))}
    public -= {"install_variable_operators"}
    missing = sorted(public - covered)
    assert not missing, f"public functions without a registry spec: {missing}"


def test_spec_names_are_unique_and_cover_real_functions():
    names = [spec.name for spec in SPECS]
    assert len(names) == len(set(names)) > 150
    for spec in SPECS:
        for name in spec.public_names:
            assert hasattr(F, name), f"spec {spec.name} covers F.{name}, which does not exist"
