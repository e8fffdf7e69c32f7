"""Every op in the registry: forward vs its NumPy reference, first and second order, every dtype."""

from __future__ import annotations

import pytest

import minigrad.functions as F
from minigrad.testing.op_specs import FLOAT_DTYPES, all_specs
from minigrad.testing.sweep import CHECKS, run_case, skip_reason

SPECS = all_specs()


@pytest.mark.parametrize("check", CHECKS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_op(spec, dtype, check, xp_backend):
    reason = skip_reason(spec, dtype, xp_backend, check)
    if reason is not None:
        pytest.skip(reason)
    result = run_case(spec, dtype, xp_backend, check)
    assert result.status == "pass", getattr(result, "traceback", result.message)


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
