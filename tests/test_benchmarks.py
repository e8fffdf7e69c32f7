"""The benchmark chains compute what they claim: each gradient matches the raw-NumPy reference."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.overhead import minigrad_chain, numpy_chain
from benchmarks.overhead_floor import bare_chain


@pytest.mark.parametrize("chain", [minigrad_chain, bare_chain])
@pytest.mark.parametrize("n_ops", [1, 2, 3, 31])
def test_chain_gradient_matches_the_numpy_reference(chain, n_ops):
    x0 = np.random.default_rng(n_ops).uniform(-1, 1, 4).astype(np.float32)
    expected = numpy_chain(x0, n_ops)
    # the reference's gradient against central differences in float64, so a wrong reference fails too
    x64, eps = x0.astype(np.float64), 1e-6
    numeric = [(_forward(x64 + eps * e, n_ops) - _forward(x64 - eps * e, n_ops)) @ np.ones(4) / (2 * eps)
               for e in np.eye(4)]
    np.testing.assert_allclose(expected, numeric, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(chain(x0, n_ops), expected, rtol=1e-5, atol=1e-6)


def _forward(x, n_ops):
    for i in range(n_ops):
        x = x * 0.5 if i % 3 == 0 else x + 0.5 if i % 3 == 1 else np.tanh(x)
    return x
