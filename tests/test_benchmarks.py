"""The benchmark chains compute what they claim: each gradient matches the raw-NumPy reference."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.overhead import minigrad_chain, numpy_chain
from benchmarks.overhead_floor import bare_chain, retaining_chain


@pytest.mark.parametrize("chain", [minigrad_chain, bare_chain, retaining_chain])
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


def test_retention_step_matches_the_numpy_reference_and_keeps_no_extra_activation():
    from benchmarks.retention import make_problem, minigrad_step, numpy_step, peak_bytes_of

    params, x = make_problem(layers=8, width=32, batch=2048)
    # the reference against a central difference of sum(forward) along one weight entry, in float64
    W0 = params[0][0].astype(np.float64)
    def loss(W):
        h = x.astype(np.float64)
        for i, (Wi, b) in enumerate(params):
            h = np.tanh(h @ (W if i == 0 else Wi).T + b)
        return h.sum()
    eps, bump = 1e-6, np.zeros_like(W0)
    bump[3, 5] = eps
    numeric = (loss(W0 + bump) - loss(W0 - bump)) / (2 * eps)
    expected = numpy_step(params, x)
    np.testing.assert_allclose(expected[0][3, 5], numeric, rtol=1e-3)
    for got, want in zip(minigrad_step(params, x), expected):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    activation = x.nbytes
    extra = peak_bytes_of(minigrad_step, params, x) - peak_bytes_of(numpy_step, params, x)
    # a node keeping its unretained inputs would hold one more activation per layer (8 here)
    assert extra < 3 * activation, f"minigrad's peak is {extra / activation:.1f} activations over the NumPy reference"


def test_the_retaining_floor_frees_what_backward_does_not_need_and_the_bare_one_does_not():
    import gc
    import weakref

    from benchmarks import overhead_floor as floor

    x0 = np.ones(4, dtype=np.float32)
    for var, keeps in ((floor.RetainingVar, False), (floor.Var, True)):
        x = var(x0)
        h = x * 0.5  # a MulConstant output: neither its node nor the next one retains it
        array = weakref.ref(h.data)
        y = h + 0.5
        del h
        gc.collect()
        assert (array() is not None) is keeps, var.__name__
        floor.backward(y)  # backward still runs through the edge of the freed value
        np.testing.assert_allclose(x.grad.data, np.full(4, 0.5, dtype=np.float32))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradcheck_floor_makes_the_calls_the_check_makes(dtype, monkeypatch):
    # the benchmark's floor column times the check's calls of func bare: as many as the check reports
    import benchmarks.gradcheck as bench
    from minigrad.testing import check_backward

    x, W, gy, _, _ = bench.make_problem(48, dtype)  # over 1,024 elements an input: one direction
    calls = []
    original = bench.func
    monkeypatch.setattr(bench, "func", lambda *a: calls.append(a[0].dtype) or original(*a))
    bench.design_floor(x, W, gy)
    report = check_backward(original, (x, W), gy, seed=0)
    assert len(calls) == report.evaluations
    assert calls[:2] == [np.dtype(dtype)] * 2 and calls[2:] == [np.dtype("float64")] * (len(calls) - 2)
