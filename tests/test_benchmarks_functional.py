"""benchmarks/functional.py times what it claims: its cases agree with each other and with central differences."""

from __future__ import annotations

import numpy as np

from benchmarks.functional import make_problem, minigrad_cases, minigrad_mlp


def test_the_benchmark_cases_compute_consistent_derivatives():
    p = make_problem("float64")
    cases = minigrad_cases(p)
    J = cases["jacobian rev (10 rows)"]().array
    f = minigrad_mlp(p)
    h, e = 1e-6, np.eye(64)[5]
    np.testing.assert_allclose(J[:, 5], (f(p["x"] + h * e).array - f(p["x"] - h * e).array) / (2 * h), rtol=1e-6,
                               atol=1e-9)
    np.testing.assert_allclose(cases["jacobian fwd (64 columns)"]().array, J, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(cases["jvp"]()[1].array, J @ p["t"], rtol=1e-12)
    np.testing.assert_allclose(cases["vjp"]()[0].array, p["u"] @ J, rtol=1e-12)
    np.testing.assert_allclose(cases["fwd+bwd"](), J.sum(axis=0), rtol=1e-12)
    H = cases["hessian (64 rows)"]().array
    np.testing.assert_allclose(cases["hvp"]()[1].array, H @ p["t"], rtol=1e-10, atol=1e-12)
