"""Compare every registry op's NumPy and CuPy results on identical inputs.

For each op and dtype: the forward outputs and the gradients of every float
input (for the same output gradients) computed on NumPy and on CuPy must agree
within the op's forward tolerance. Prints a table; exit status 1 on any
disagreement. Needs CuPy and a GPU, or ``--backend cupy-sim`` (minigrad's CPU
simulator of CuPy: same code paths, NumPy numerics); installs nothing. Run it
where ``minigrad`` imports (installed, or ``PYTHONPATH=.`` in the source tree).

    python scripts/compare_backends.py [--backend cupy|cupy-sim] [--ops 'relu,conv*'] [--json FILE]
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy

from minigrad import backend
from minigrad.testing import cupy_sim
from minigrad.testing.op_specs import DEFAULT_FORWARD_TOLERANCE, FLOAT_DTYPES, OpSpec, all_specs
from minigrad.testing.sweep import compare_backends


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", choices=("cupy", "cupy-sim"), default="cupy",
                        help="compare NumPy with CuPy on the GPU (default) or with the CPU simulator of CuPy")
    parser.add_argument("--ops", default="*")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    if args.backend == "cupy-sim":
        with cupy_sim.install():
            return _compare(args)
    return _compare(args)


def _compare(args: argparse.Namespace) -> int:
    if not backend.is_cupy_available():
        print("compare_backends: CuPy with a GPU is not available", file=sys.stderr)
        return 2
    specs: list[OpSpec] = [s for s in all_specs() if any(fnmatch.fnmatchcase(s.name, p) for p in args.ops.split(","))]
    rows = []
    for spec in specs:
        for dtype in FLOAT_DTYPES:
            if dtype not in spec.dtypes or "cupy" not in spec.backends:
                continue
            start = time.perf_counter()
            try:
                worst = compare_backends(spec, dtype, "cupy")
                status = "pass"
                message = ""
            except Exception as error:  # report every op, then fail
                worst, status, message = float("nan"), "fail", f"{type(error).__name__}: {error}"
            rows.append({"op": spec.name, "dtype": dtype, "status": status, "worst_over_tolerance": worst,
                         "seconds": time.perf_counter() - start, "message": message})
    print(f"{'op':<34} {'dtype':<8} {'status':<6} {'worst/tol':>9}")
    for r in rows:
        print(f"{r['op']:<34} {r['dtype']:<8} {r['status']:<6} {r['worst_over_tolerance']:9.3f}")
        if r["message"]:
            print(f"    {r['message'].splitlines()[0]}")
    failed = sum(r["status"] == "fail" for r in rows)
    print(f"\nnumpy vs {args.backend}: {len(rows)} cases, {len(rows) - failed} agree, {failed} differ "
          f"(tolerances: {DEFAULT_FORWARD_TOLERANCE} unless the op sets its own)")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1, default=float))
    return 1 if failed else 0


if __name__ == "__main__":
    numpy.seterr(all="ignore")
    sys.exit(main())
