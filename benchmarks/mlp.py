"""MLP training step: 784-1024-1024-10, ReLU, softmax cross-entropy, batch 256, float32.

One forward+backward step through minigrad vs the same step written by hand in
raw NumPy, measured alternately in the same run; peak memory is what the step
allocates on top of the parameters (tracemalloc sees NumPy's buffers).

    python -m benchmarks.mlp [--repeats 20]
"""

from __future__ import annotations

import argparse

import numpy

import minigrad as mg
import minigrad.functions as F
from benchmarks.common import array_module, interleaved_medians, peak_bytes, print_table
from minigrad.backend import get_array_module, to_cpu, to_gpu

SIZES = (784, 1024, 1024, 10)
BATCH = 256


def make_problem(seed: int = 0):
    rng = numpy.random.default_rng(seed)
    params = []
    for n_in, n_out in zip(SIZES[:-1], SIZES[1:]):
        params.append(((rng.standard_normal((n_out, n_in)) * numpy.sqrt(2 / n_in)).astype(numpy.float32),
                       numpy.zeros(n_out, numpy.float32)))
    x = rng.standard_normal((BATCH, SIZES[0])).astype(numpy.float32)
    t = rng.integers(0, SIZES[-1], BATCH).astype(numpy.int32)
    return params, x, t


def numpy_step(params, x, t):
    numpy = get_array_module(x)  # the hand-written reference runs on CuPy too (--backend cupy)
    (W1, b1), (W2, b2), (W3, b3) = params
    a1 = x @ W1.T + b1
    h1 = numpy.maximum(a1, 0)
    a2 = h1 @ W2.T + b2
    h2 = numpy.maximum(a2, 0)
    z = h2 @ W3.T + b3
    z = z - z.max(axis=1, keepdims=True)
    log_p = z - numpy.log(numpy.exp(z).sum(axis=1, keepdims=True))
    rows = numpy.arange(len(t))
    loss = -log_p[rows, t].mean()
    gz = numpy.exp(log_p)
    gz[rows, t] -= 1
    gz /= len(t)
    gW3, gb3, gh2 = gz.T @ h2, gz.sum(axis=0), gz @ W3
    ga2 = gh2 * (a2 > 0)
    gW2, gb2, gh1 = ga2.T @ h1, ga2.sum(axis=0), ga2 @ W2
    ga1 = gh1 * (a1 > 0)
    gW1, gb1 = ga1.T @ x, ga1.sum(axis=0)
    return loss, (gW1, gb1, gW2, gb2, gW3, gb3)


def minigrad_step(params, x, t):
    for W, b in params:
        W.cleargrad()
        b.cleargrad()
    h = x
    for i, (W, b) in enumerate(params):
        h = F.linear(h, W, b)
        if i < len(params) - 1:
            h = F.relu(h)
    loss = F.softmax_cross_entropy(h, t)
    loss.backward()
    return loss.array, tuple(g for W, b in params for g in (W.grad, b.grad))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--backend", choices=("numpy", "cupy"), default="numpy")
    args = parser.parse_args()
    array_module(args.backend, "benchmarks.mlp")  # one clear line and status 2 without CuPy and a GPU
    raw_params, x, t = make_problem()
    if args.backend == "cupy":
        raw_params = [(to_gpu(W), to_gpu(b)) for W, b in raw_params]
        x, t = to_gpu(x), to_gpu(t)
    mg_params = [(mg.Parameter(W), mg.Parameter(b)) for W, b in raw_params]
    loss_np, grads_np = numpy_step(raw_params, x, t)
    loss_mg, grads_mg = minigrad_step(mg_params, x, t)
    numpy.testing.assert_allclose(to_cpu(loss_mg), to_cpu(loss_np), rtol=1e-5)
    for a, b in zip(grads_mg, grads_np):
        numpy.testing.assert_allclose(to_cpu(a), to_cpu(b), rtol=1e-3, atol=1e-6)
    times = interleaved_medians({"numpy": lambda: numpy_step(raw_params, x, t),
                                 "minigrad": lambda: minigrad_step(mg_params, x, t)}, args.repeats)
    for W, b in mg_params:
        W.cleargrad()
        b.cleargrad()
    if args.backend == "cupy":  # tracemalloc does not see GPU memory
        peaks = {"numpy": float("nan"), "minigrad": float("nan")}
    else:
        peaks = {"numpy": peak_bytes(lambda: numpy_step(raw_params, x, t)),
                 "minigrad": peak_bytes(lambda: minigrad_step(mg_params, x, t))}
    rows = [[name, times[name] * 1e3, times[name] / times["numpy"], peaks[name] / 2**20, peaks[name] / peaks["numpy"]]
            for name in ("numpy", "minigrad")]
    print_table(f"mlp ({args.backend}): {'-'.join(map(str, SIZES))}, ReLU, softmax cross-entropy, batch {BATCH}, "
                f"float32, forward+backward, median of {args.repeats}",
                ["implementation", "step ms", "time ratio", "peak MiB", "memory ratio"], rows)


if __name__ == "__main__":
    main()
