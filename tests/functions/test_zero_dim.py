"""A 0-dim input keeps its dtype and gets right gradients, through the sweep's own checks.

NumPy 1.x casts a 0-dim array (or NumPy scalar) meeting a Python scalar by type,
not by value: ``maximum(x, 0)`` or ``1 / sqrt(x)`` on a 0-dim float16 ``x``
gives float64 there, where the same op on a (2, 3) array keeps float16. The
registry draws shaped inputs, so this file runs each elementwise op's spec
again on one element of them, as a 0-dim array (the CI leg on NumPy 1.x is
where a Python scalar in a forward shows).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from minigrad.testing import load_specs
from minigrad.testing.registry import FLOAT_DTYPES
from minigrad.testing.sweep import run_case

SPECS = {spec.name: spec for spec in load_specs("minigrad.testing.op_specs")}

# the registered ops that are elementwise on one float input, so that one element of their inputs is a valid case
ELEMENTWISE = (
    "absolute", "arccos", "arcsin", "arctan", "clipped_relu", "cos", "cosh", "elu", "exp", "expm1", "gelu",
    "hard_sigmoid", "leaky_relu", "log", "log10", "log1p", "log2", "neg", "relu", "relu6", "rsqrt", "selu",
    "sigmoid", "sin", "sinh", "softplus", "sqrt", "square", "tan", "tanh",
)


def _zero_dim(spec):
    def inputs(rng, dtype):
        return tuple(np.asarray(a.ravel()[0]) for a in spec.inputs(rng, dtype))

    return dataclasses.replace(spec, name=f"{spec.name}[0-dim]", inputs=inputs)


def test_every_listed_op_is_registered_and_elementwise():
    for name in ELEMENTWISE:
        (x,) = SPECS[name].inputs(np.random.default_rng(0), np.dtype(np.float64))  # one input each
        assert x.ndim >= 1, name  # so that the 0-dim variant is a different case from the registered one


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("name", ELEMENTWISE)
def test_a_0dim_input_passes_forward_backward_and_double(name, dtype):
    spec = _zero_dim(SPECS[name])
    for check in ("forward", "backward", "double"):  # forward: the value against the reference, in the dtype
        result = run_case(spec, dtype, "numpy", check)
        assert result.status == "pass", f"{check}: {result.status}: {result.message}"
