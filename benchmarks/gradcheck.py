"""Cost of the gradient checker: checking ``tanh(x @ W)`` against one forward+backward.

For each size and dtype, the table gives the median time of one
forward+backward pass, of ``check_backward`` and of ``check_double_backward``,
their ratios to the forward+backward, how many times each check called
the function (that count must not grow with the input size), and the part of
each ratio spent inside those calls (``in func``: ``func`` and its backprop, at
the dtypes the check runs them in). That part is the floor of the check's
design: what remains is the checker's own work. ``floor`` times those calls
bare, without the checker, for ``check_backward``: the forward+backward twice
(the determinism check), a float64 forward+backward (the reference of a
float32 input) and 4 float64 forwards per input (each input probed alone); no
implementation of that design costs less on the machine. The issue's targets
at 512x512: first order at most 10x, second order at most 25x.

    python -m benchmarks.gradcheck                      # 512x512, float32 and float64
    python -m benchmarks.gradcheck --sizes 64,128,256,512 --dtypes float64 --repeats 3
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
from collections.abc import Iterator

import numpy

import minigrad as mg
import minigrad.functions as F
from benchmarks.common import interleaved_medians, print_table
from minigrad.testing import check_backward, check_double_backward, gradient_check
from minigrad.testing._checker.problem import MinigradProblem


def func(x, W):
    return F.tanh(F.matmul(x, W))


def make_problem(n: int, dtype: str, seed: int = 0):
    rng = numpy.random.default_rng(seed)
    x = rng.uniform(-1, 1, (n, n)).astype(dtype)
    W = (rng.uniform(-1, 1, (n, n)) * numpy.sqrt(3.0 / n)).astype(dtype)  # pre-activations of order one
    gy, ggx, ggW = (rng.uniform(-1, 1, (n, n)).astype(dtype) for _ in range(3))
    return x, W, gy, ggx, ggW


def forward_backward(x, W, gy) -> None:
    xv, Wv = mg.Variable(x), mg.Variable(W)
    y = func(xv, Wv)
    y.grad = gy
    y.backward()


def design_floor(x, W, gy) -> None:
    """The calls of func a check_backward of (x, W) makes, bare (see the module's docstring)."""
    forward_backward(x, W, gy)
    forward_backward(x, W, gy)
    x64, W64 = x.astype(numpy.float64), W.astype(numpy.float64)
    if x.dtype != numpy.float64:
        forward_backward(x64, W64, gy.astype(numpy.float64))
    for _ in range(4 * 2):  # 4 per input, each forward's output dropped as the probes do
        func(mg.Variable(x64), mg.Variable(W64))


class _TimedProblem(MinigradProblem):
    """The checker's adapter, adding up the time spent in ``func`` and its backprop."""

    seconds = 0.0

    def forward(self, arrays):
        start = time.perf_counter()
        try:
            return super().forward(arrays)
        finally:
            _TimedProblem.seconds += time.perf_counter() - start

    def vjp(self, forward, cotangents, positions):
        start = time.perf_counter()
        try:
            return super().vjp(forward, cotangents, positions)
        finally:
            _TimedProblem.seconds += time.perf_counter() - start


@contextlib.contextmanager
def timed_func_calls(record: list[float]) -> Iterator[None]:
    """Within the block, each check appends to ``record`` the seconds it spent inside func calls."""
    gradient_check.MinigradProblem = _TimedProblem
    _TimedProblem.seconds = 0.0
    try:
        yield
    finally:
        gradient_check.MinigradProblem = MinigradProblem
        record.append(_TimedProblem.seconds)


def measure(n: int, dtype: str, repeats: int) -> list:
    x, W, gy, ggx, ggW = make_problem(n, dtype)
    reports = {}
    in_func: dict[int, list[float]] = {1: [], 2: []}

    def first():
        with timed_func_calls(in_func[1]):
            reports[1] = check_backward(func, (x, W), gy, seed=0)

    def second():
        with timed_func_calls(in_func[2]):
            reports[2] = check_double_backward(func, (x, W), gy, (ggx, ggW), seed=0)

    # measured in alternation, so that load from other processes hits all three alike
    times = interleaved_medians({"base": lambda: forward_backward(x, W, gy), "first": first, "second": second,
                                 "floor": lambda: design_floor(x, W, gy)}, repeats, warmup=1)
    base, t1, t2 = times["base"], times["first"], times["second"]
    f1, f2 = statistics.median(in_func[1]), statistics.median(in_func[2])
    return [f"{n}x{n}", dtype, base * 1e3, t1 * 1e3, t1 / base, reports[1].evaluations, f1 / base,
            times["floor"] / base, t2 * 1e3, t2 / base, reports[2].evaluations, f2 / base]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="512", help="comma-separated matrix sizes (default: 512)")
    parser.add_argument("--dtypes", default="float32,float64", help="comma-separated dtypes")
    parser.add_argument("--repeats", type=int, default=9, help="timed runs per measurement (median)")
    args = parser.parse_args(argv)
    rows = [measure(int(n), dtype, args.repeats)
            for n in args.sizes.split(",") for dtype in args.dtypes.split(",")]
    print_table("gradient check cost for tanh(x @ W): time and ratio to one forward+backward",
                ["size", "dtype", "fwd+bwd ms", "check_backward ms", "ratio (<=10)", "func calls", "in func",
                 "floor", "check_double_backward ms", "ratio (<=25)", "func calls", "in func"], rows)


if __name__ == "__main__":
    main()
