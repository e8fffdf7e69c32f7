"""Retention: peak memory of forward+backward through a deep tanh MLP, minigrad vs hand-written NumPy.

Each of the ``--layers`` layers is ``h = tanh(linear(h, W, b))`` on a float32
batch. Backward needs, per layer, the layer's input (for ``gW``) and the tanh
output (for the tanh derivative); those are the same arrays one layer apart,
so the NumPy reference keeps one activation per layer. A node that keeps only
what it declares (``Tanh`` retains its output, ``LinearFunction`` its inputs)
lets minigrad do the same; a node that kept every input Variable would also
keep every pre-activation ``linear(h, W, b)``: two activations per layer.

Peak memory is what tracemalloc sees (NumPy reports its buffers to it) while
one step runs, on top of the parameters and the input batch. With
``--baseline DIR`` the same minigrad step also runs, in a subprocess, on the
minigrad package found in ``DIR`` (e.g. an older commit checked out with
``git worktree add /tmp/mg-old f12acc4``), so both figures come from one run.

    python -m benchmarks.retention [--layers 16] [--width 256] [--batch 2048] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tracemalloc
from typing import Any

import numpy


def make_problem(layers: int, width: int, batch: int, seed: int = 0) -> tuple[list[tuple[Any, Any]], Any]:
    rng = numpy.random.default_rng(seed)
    params = [((rng.standard_normal((width, width)) / numpy.sqrt(width)).astype(numpy.float32),
               numpy.zeros(width, numpy.float32)) for _ in range(layers)]
    return params, rng.standard_normal((batch, width)).astype(numpy.float32)


def numpy_step(params: list[tuple[Any, Any]], x: Any) -> list[Any]:
    """Forward keeping each layer's output, backward by the chain rule; the gradients of the weights."""
    saved = [x]
    h = x
    for W, b in params:
        h = numpy.tanh(h @ W.T + b)
        saved.append(h)
    g = numpy.ones_like(h)  # the gradient of sum(h)
    grads = []
    for (W, _), y, h_in in zip(reversed(params), reversed(saved[1:]), reversed(saved[:-1])):
        ga = g * (1 - y * y)
        grads.append(ga.T @ h_in)
        g = ga @ W
    return grads[::-1]


def minigrad_step(params: list[tuple[Any, Any]], x: Any) -> list[Any]:
    """The same step through minigrad (imported here, so a subprocess can use another copy of it)."""
    import minigrad as mg
    import minigrad.functions as F

    weights = [(mg.Variable(W), mg.Variable(b)) for W, b in params]
    h = mg.Variable(x, requires_grad=False)
    for W, b in weights:
        h = F.tanh(F.linear(h, W, b))
    F.sum(h).backward()
    return [W.grad for W, _ in weights]


def peak_bytes_of(step: Any, params: list[tuple[Any, Any]], x: Any) -> int:
    """Peak traced allocation while ``step(params, x)`` runs (the problem itself allocated before)."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        step(params, x)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def baseline_peak(directory: str, args: argparse.Namespace) -> int:
    """``minigrad_step``'s peak with the minigrad package of ``directory``, in a fresh interpreter."""
    env = {**os.environ, "PYTHONPATH": os.path.abspath(directory)}
    command = [sys.executable, os.path.abspath(__file__), "--child", "--layers", str(args.layers),
               "--width", str(args.width), "--batch", str(args.batch)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    result = json.loads(done.stdout)
    if not os.path.abspath(result["minigrad"]).startswith(os.path.abspath(directory)):
        raise RuntimeError(f"the baseline run imported minigrad from {result['minigrad']}, not from {directory}")
    return result["peak"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--layers", type=int, default=16)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--batch", type=int, default=2048)
    parser.add_argument("--baseline", metavar="DIR", help="also measure the minigrad package in DIR")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)  # baseline_peak's subprocess
    args = parser.parse_args()
    params, x = make_problem(args.layers, args.width, args.batch)
    if args.child:
        import minigrad

        print(json.dumps({"peak": peak_bytes_of(minigrad_step, params, x), "minigrad": minigrad.__file__}))
        return
    from benchmarks.common import print_table

    expected = numpy_step(params, x)
    for got, want in zip(minigrad_step(params, x), expected):
        numpy.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    activation = args.batch * args.width * 4
    peaks = {"raw numpy": peak_bytes_of(numpy_step, params, x), "minigrad": peak_bytes_of(minigrad_step, params, x)}
    if args.baseline:
        peaks[f"minigrad at {args.baseline}"] = baseline_peak(args.baseline, args)
    print_table(f"retention: forward+backward of {args.layers} tanh(linear) layers, width {args.width}, "
                f"batch {args.batch}, float32 (one activation = {activation / 2**20:.2f} MiB)",
                ["implementation", "peak MiB", "activations", "ratio to numpy"],
                [[name, peak / 2**20, peak / activation, peak / peaks["raw numpy"]] for name, peak in peaks.items()])


if __name__ == "__main__":
    main()
