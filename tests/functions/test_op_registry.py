"""Every op in the registry: forward vs its NumPy reference, first and second order, every dtype."""

from __future__ import annotations

import pytest

import minigrad.functions as F
from minigrad.testing.op_specs import FLOAT_DTYPES, all_specs
from minigrad.testing.sweep import CHECKS, run_case, skip_reason

SPECS = all_specs()
# Only the cases that apply to each op (its dtypes; no gradient checks for argmax & co.);
# the backend is the plugin's parameter, and CuPy cases skip where there is no GPU.
CASES = [(spec, dtype, check) for spec in SPECS for dtype in FLOAT_DTYPES for check in CHECKS
         if skip_reason(spec, dtype, "numpy", check) is None]


@pytest.mark.parametrize("spec, dtype, check", CASES, ids=[f"{s.name}-{d}-{c}" for s, d, c in CASES])
def test_op(spec, dtype, check, xp_backend):
    reason = skip_reason(spec, dtype, xp_backend, check)
    if reason is not None:
        pytest.skip(reason)
    result = run_case(spec, dtype, xp_backend, check)
    assert result.status == "pass", getattr(result, "traceback", result.message)


def test_non_differentiable_ops_are_still_checked_forward():
    for spec in SPECS:
        if not spec.differentiable:
            assert any(s is spec and c == "forward" for s, _, c in CASES), spec.name


def test_every_public_function_has_a_spec():
    covered = {name for spec in SPECS for name in spec.public_names}
    public = {name for name in dir(F) if not name.startswith("_") and name[0].islower()
              and callable(getattr(F, name))}
    public -= {"install_variable_operators"}
    missing = sorted(public - covered)
    assert not missing, f"public functions without a registry spec: {missing}"


def test_spec_names_are_unique_and_cover_real_functions():
    for spec in SPECS:
        for name in spec.public_names:
            assert hasattr(F, name), f"spec {spec.name} covers F.{name}, which does not exist"
