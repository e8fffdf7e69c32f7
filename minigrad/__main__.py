"""Command line: ``python -m minigrad check`` sweeps every op through its checks.

    python -m minigrad check                      # the whole registry, NumPy (and CuPy if present)
    python -m minigrad check --ops 'relu,conv*' --dtype float32 --order 1
    python -m minigrad check --json results.json
    python -m minigrad check --backend cupy-sim   # the CuPy paths, on the CPU simulator of CuPy
    python -m minigrad check --specs mypkg.ops        # your own op library's specs instead (repeatable)

Exit status: 0 when every case passes, 1 when any fails (an expected failure
that passes counts as a failure), 2 on bad arguments or a ``--specs`` module
that fails to import, registers no spec, or repeats a spec name.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
import time
from collections.abc import Sequence
from typing import TextIO

import minigrad
from minigrad.exercises import cli as exercises


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m minigrad", description="minigrad command line")
    parser.add_argument("--version", action="version", version=f"minigrad {minigrad.__version__}")
    commands = parser.add_subparsers(dest="command")
    check = commands.add_parser("check", help="verify every op: forward vs reference, 1st and 2nd order gradients")
    check.add_argument("--specs", action="append", metavar="MODULE",
                       help="sweep the op specs this module (dotted name or .py path) registers instead of "
                            "minigrad's own; repeatable")
    check.add_argument("--ops", default="*", help="comma-separated op names or globs (default: all), e.g. 'relu,conv*'")
    check.add_argument("--dtype", default="float16,float32,float64", help="comma-separated float dtypes")
    check.add_argument("--backend", default="all", choices=("numpy", "cupy", "cupy-sim", "all"),
                       help="array backend (all = NumPy, plus CuPy when a GPU is present; "
                            "cupy-sim = the CuPy paths on minigrad's CPU simulator of CuPy)")
    check.add_argument("--order", type=int, choices=(1, 2), default=2,
                       help="highest derivative order to check (default: 2)")
    check.add_argument("--seed", type=int, default=0, help="seed for inputs and directions")
    check.add_argument("--json", metavar="FILE", help="also write the results as JSON to FILE")
    check.add_argument("--quiet", action="store_true", help="print only failures and the summary")
    exercises.add_parser(commands)  # python -m minigrad exercise: minigrad/exercises/cli.py
    return parser


def _progress(done: int, total: int, label: str, stream: TextIO) -> None:
    if not stream.isatty():
        return
    width = 30
    filled = width * done // max(total, 1)
    stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {label[:40]:<40}")
    stream.flush()


def run_check(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run the sweep described by ``args`` and print the table; returns the exit status."""
    out = out or sys.stdout
    err = err or sys.stderr
    from minigrad import backend as backend_module
    from minigrad.testing.registry import CHECKS, FLOAT_DTYPES, SECOND_ORDER_CHECKS, SpecLoadError, load_specs
    from minigrad.testing.sweep import run_case

    patterns = [p.strip() for p in args.ops.split(",") if p.strip()]
    dtypes = [d.strip() for d in args.dtype.split(",") if d.strip()]
    bad = [d for d in dtypes if d not in FLOAT_DTYPES]
    if bad or not dtypes:
        err.write(f"check: unknown dtype(s) {bad}; choose from {', '.join(FLOAT_DTYPES)}\n")
        return 2
    try:
        registered = load_specs(*(args.specs or ["minigrad.testing.op_specs"]))
    except SpecLoadError as error:
        err.write(f"check: --specs: {error}\n")
        return 2
    specs = [s for s in registered
             if any(fnmatch.fnmatchcase(s.name, p) or any(fnmatch.fnmatchcase(n, p) for n in s.public_names)
                    for p in patterns)]
    if not specs:
        err.write(f"check: no op matches {args.ops!r}\n")
        return 2
    if args.backend == "all":
        backends = ["numpy"] + (["cupy"] if backend_module.is_cupy_available() else [])
    elif args.backend == "cupy" and not backend_module.is_cupy_available():
        err.write("check: --backend cupy needs CuPy and a GPU (pip install minigrad[cuda])\n")
        return 2
    else:
        backends = ["cupy" if args.backend == "cupy-sim" else args.backend]  # the simulator stands in for cupy
    checks = [c for c in CHECKS if args.order == 2 or c not in SECOND_ORDER_CHECKS]
    cases = [(s, b, d, c) for s in specs for b in backends for d in dtypes for c in checks]
    results = []
    start = time.perf_counter()
    for i, (spec, backend, dtype, check) in enumerate(cases):
        _progress(i, len(cases), spec.name, err)
        results.append(run_case(spec, dtype, backend, check, seed=args.seed))
    _progress(len(cases), len(cases), "done", err)
    if err.isatty():
        err.write("\n")
    elapsed = time.perf_counter() - start

    header = (f"{'op':<34} {'backend':<7} {'dtype':<8} {'check':<13} {'status':<6} {'margin':>7} "
              f"{'time':>8}")
    out.write(header + "\n" + "-" * len(header) + "\n")
    for r in results:
        if args.quiet and not r.failed:
            continue
        margin = "-" if r.margin is None else f"{r.margin:.2g}"
        out.write(f"{r.op:<34} {r.backend:<7} {r.dtype:<8} {r.check:<13} {r.status:<6} "
                  f"{margin:>7} {r.seconds * 1000:7.1f}ms\n")
        if r.failed:
            out.write(f"    {r.message.splitlines()[0] if r.message else ''}\n")
    counts = {status: sum(r.status == status for r in results) for status in ("pass", "fail", "skip", "xfail", "xpass")}
    expected = f", {counts['xfail']} expected failures" if counts["xfail"] else ""
    unexpected = f", {counts['xpass']} unexpected passes" if counts["xpass"] else ""
    out.write(f"\n{len(specs)} ops, {len(results)} cases: {counts['pass']} passed, {counts['fail']} failed"
              f"{unexpected}{expected}, {counts['skip']} skipped in {elapsed:.1f}s\n")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"summary": {**counts, "ops": len(specs), "seconds": elapsed},
                       "results": [{k: v for k, v in vars(r).items() if k != "traceback"} for r in results]},
                      handle, indent=1)
    return 1 if counts["fail"] or counts["xpass"] else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse exits 2 on bad arguments, 0 for --help/--version
        return int(exit_.code or 0)
    if args.command == "exercise":
        return exercises.run(args)
    if args.command == "check":
        try:
            if args.backend == "cupy-sim":
                from minigrad.testing import cupy_sim

                with cupy_sim.install():
                    status = run_check(args)
                print("(backend cupy ran on cupy-sim, minigrad's CPU simulator of CuPy: no GPU was used)")
                return status
            return run_check(args)
        except BrokenPipeError:  # e.g. piped into `head`
            sys.stderr.close()
            return 1
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
