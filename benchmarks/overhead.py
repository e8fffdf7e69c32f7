"""Per-op overhead: a chain of 1,000 tiny ops (*c, +c, tanh) on a float32 array of shape (4,).

Forward + backward through minigrad vs the same computation written by hand in
raw NumPy (forward keeps what backward needs; backward applies the chain rule).
With ``--backend cupy`` both run on the GPU, where a (4,) array makes this a
measure of kernel-launch overhead rather than of Python overhead alone.

    python -m benchmarks.overhead [--ops 1000] [--repeats 30] [--backend numpy|cupy]
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy

import minigrad as mg
import minigrad.functions as F
from benchmarks.common import array_module, interleaved_medians, print_table
from minigrad.backend import get_array_module, to_cpu, to_gpu

C = 0.5


def minigrad_chain(x0: Any, n_ops: int) -> Any:
    x = mg.Variable(x0)
    h = x
    for i in range(n_ops):
        step = i % 3
        if step == 0:
            h = h * C
        elif step == 1:
            h = h + C
        else:
            h = F.tanh(h)
    h.grad = get_array_module(x0).ones_like(h.array)
    h.backward()
    return x.grad


def numpy_chain(x0: Any, n_ops: int) -> Any:
    xp = get_array_module(x0)  # NumPy, or CuPy for --backend cupy
    saved = []
    h = x0
    for i in range(n_ops):
        step = i % 3
        if step == 0:
            h = h * C
        elif step == 1:
            h = h + C
        else:
            h = xp.tanh(h)
            saved.append(h)
    g = xp.ones_like(h)
    for i in reversed(range(n_ops)):
        step = i % 3
        if step == 0:
            g = g * C
        elif step == 2:
            y = saved.pop()
            g = g * (1 - y * y)
    return g


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ops", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--backend", choices=("numpy", "cupy"), default="numpy")
    args = parser.parse_args()
    xp = array_module(args.backend, "benchmarks.overhead")
    x0 = numpy.random.default_rng(0).uniform(-1, 1, 4).astype(numpy.float32)
    if xp is not numpy:
        x0 = to_gpu(x0)
    numpy.testing.assert_allclose(to_cpu(minigrad_chain(x0, args.ops)), to_cpu(numpy_chain(x0, args.ops)),
                                  rtol=1e-5, atol=1e-6)
    t = interleaved_medians({"numpy": lambda: numpy_chain(x0, args.ops),
                             "minigrad": lambda: minigrad_chain(x0, args.ops)}, args.repeats)
    per_op = {k: v / args.ops * 1e6 for k, v in t.items()}
    on = "" if args.backend == "numpy" else " on cupy (GPU)"
    print_table(f"overhead: chain of {args.ops} ops (*c, +c, tanh) on float32 (4,){on}, forward+backward, "
                f"median of {args.repeats}",
                ["implementation", "total ms", "us per op", f"ratio to {args.backend}"],
                [[f"raw {args.backend}", t["numpy"] * 1e3, per_op["numpy"], 1.0],
                 ["minigrad", t["minigrad"] * 1e3, per_op["minigrad"], t["minigrad"] / t["numpy"]]])


if __name__ == "__main__":
    main()
