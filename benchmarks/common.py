"""Shared helpers for the benchmark scripts: medians of repeated timings and a plain table."""

from __future__ import annotations

import gc
import os
import platform
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

import numpy


def array_module(backend: str, prog: str) -> ModuleType:
    """The array module for ``--backend numpy|cupy``.

    Without CuPy or a GPU, ``cupy`` prints one line saying so and exits with status 2.
    """
    if backend == "numpy":
        return numpy
    from minigrad.backend import cupy_or_none

    cupy = cupy_or_none()
    if cupy is None:
        import importlib.util

        installed = importlib.util.find_spec("cupy") is not None
        why = "CuPy failed to load or sees no GPU" if installed else "CuPy is not installed"
        print(f"{prog}: --backend cupy needs CuPy and a GPU: {why}", file=sys.stderr)
        sys.exit(2)
    return cupy


def synchronize() -> None:
    """Wait for queued GPU work (a no-op unless CuPy is in use), so timings are honest."""
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        cupy.cuda.Device().synchronize()


def median_seconds(fn: Callable[[], Any], repeats: int, warmup: int = 2) -> float:
    """Median wall time of ``fn()`` over ``repeats`` runs (GC collected before each run)."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        gc.collect()
        synchronize()
        start = time.perf_counter()
        fn()
        synchronize()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def interleaved_medians(fns: dict[str, Callable[[], Any]], repeats: int, warmup: int = 2) -> dict[str, float]:
    """Median times of several functions measured in alternation (fair on a noisy machine)."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            gc.collect()
            synchronize()
            start = time.perf_counter()
            fn()
            synchronize()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(ts) for name, ts in times.items()}


def peak_bytes(fn: Callable[[], Any]) -> int:
    """Peak traced allocation (NumPy reports its buffers to tracemalloc) while ``fn()`` runs."""
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _gpu_note() -> str:
    """``", cupy X, <device name>"`` once CuPy has been imported (i.e. a GPU run), else empty."""
    cupy = sys.modules.get("cupy")
    if cupy is None:
        return ""
    try:
        name = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)["name"]
        return f", cupy {cupy.__version__}, {name.decode() if isinstance(name, bytes) else name}"
    except Exception:  # an imported CuPy without a device: say nothing
        return ""


def print_table(title: str, headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    cells = [[str(h) for h in headers]] + [[c if isinstance(c, str) else f"{c:.3g}" if isinstance(c, float)
                                           else str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    print(f"\n{title}")
    print(f"(python {platform.python_version()}, numpy {numpy.__version__}, {os.cpu_count()} cpus{_gpu_note()})")
    line = "  ".join(h.ljust(w) for h, w in zip(cells[0], widths))
    print(line)
    print("-" * len(line))
    for row in cells[1:]:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)))
