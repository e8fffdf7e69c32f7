"""Deep graphs: chains of 10,000 and 100,000 tiny ops (*c, +c, tanh), forward+backward.

Reports the time ratio between the two depths (linear scaling gives about 10),
each depth's ratio to raw NumPy in the same run, and the memory still held
after the graph is dropped.

    python -m benchmarks.deep [--repeats 5]
"""

from __future__ import annotations

import argparse
import gc
import tracemalloc

import numpy

from benchmarks.common import interleaved_medians, print_table
from benchmarks.overhead import minigrad_chain, numpy_chain


def retained_bytes(n_ops: int, x0: numpy.ndarray) -> tuple[int, int]:
    """(peak, still allocated after the call returns and the graph is dropped).

    The graph is freed by reference counting as soon as it is dropped; the
    full collection before the second reading only empties CPython's free
    lists (tuples and the like kept for reuse, a few hundred KiB whatever the
    depth), which tracemalloc would otherwise count as still allocated.
    """
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    grad = minigrad_chain(x0, n_ops)
    del grad
    peak = tracemalloc.get_traced_memory()[1]
    gc.collect()
    current = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return peak - base, current - base


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    x0 = numpy.random.default_rng(0).uniform(-1, 1, 4).astype(numpy.float32)
    rows = []
    results = {}
    for n in (10_000, 100_000):
        t = interleaved_medians({"numpy": lambda n=n: numpy_chain(x0, n),
                                 "minigrad": lambda n=n: minigrad_chain(x0, n)}, args.repeats, warmup=1)
        peak, left = retained_bytes(n, x0)
        results[n] = t
        rows.append([f"{n:,}", t["numpy"] * 1e3, t["minigrad"] * 1e3, t["minigrad"] / t["numpy"],
                     peak / 2**20, left / 1024])
    print_table(f"deep: chain forward+backward, median of {args.repeats}",
                ["nodes", "numpy ms", "minigrad ms", "ratio to numpy", "peak MiB", "KiB left after drop"], rows)
    scaling = {k: results[100_000][k] / results[10_000][k] for k in ("minigrad", "numpy")}
    print(f"\nscaling 100,000 / 10,000 nodes: minigrad {scaling['minigrad']:.2f}x "
          f"(numpy {scaling['numpy']:.2f}x); linear = 10")


if __name__ == "__main__":
    main()
