"""``python -m minigrad check``: sweep every op of a registry through the battery of checks.

    python -m minigrad check                           # the whole registry, NumPy (and CuPy if present)
    python -m minigrad check --ops 'relu,conv*' --dtype float32 --check forward,backward
    python -m minigrad check -j 2 --json results.json  # two worker processes; results as JSON
    python -m minigrad check --shard 2/4 --durations last.json --json shard-2.json   # one job of a CI matrix
    python -m minigrad check --executor dask://scheduler:8786                        # on a Dask cluster
    python -m minigrad check --last-failed results.json                              # rerun what failed
    python -m minigrad check --specs mypkg.ops         # your own op library's specs instead (repeatable)

Exit status: 0 when every case passes; 1 when any fails (``fail``, ``error``,
or ``xpass``: an expected failure that passes); 2 on bad arguments, found
before any case runs; 130 when interrupted (Ctrl-C), after printing what
finished and the summary.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from collections.abc import Sequence
from typing import Any, TextIO

__all__ = ["HELP", "add_arguments", "run", "UsageError"]

HELP = "verify every op: forward vs reference, 1st and 2nd order gradients"


class UsageError(ValueError):
    """A bad argument, found before any case runs: exit status 2 with a one-line message."""


class _NothingToRun(Exception):
    """Valid arguments that select no case (``--last-failed`` of a green run): exit status 0."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``check`` (documented in docs/howto/check-cli.rst)."""
    what = parser.add_argument_group("what to run")
    what.add_argument("--specs", action="append", metavar="MODULE",
                      help="sweep the op specs this module (dotted name or .py path) registers instead of "
                           "minigrad's own; repeatable")
    what.add_argument("--ops", default=None, help="comma-separated op names or globs (default: all), e.g. "
                                                  "'relu,conv*'; a spec's own name selects it alone")
    what.add_argument("--dtype", default=None, help="comma-separated float dtypes (default: float16,float32,float64)")
    what.add_argument("--backend", default=None, choices=("numpy", "cupy", "cupy-sim", "all"),
                      help="array backend (default all = NumPy, plus CuPy when a GPU is present; "
                           "cupy-sim = the CuPy paths on minigrad's CPU simulator of CuPy)")
    what.add_argument("--check", default=None, metavar="CHECKS",
                      help="comma-separated checks of the battery (default: all)")
    what.add_argument("--order", type=int, choices=(1, 2), default=2,
                      help="highest derivative order to check (default: 2)")
    what.add_argument("--last-failed", metavar="FILE",
                      help="rerun only the cases that failed in an earlier --json FILE, with their seeds")
    what.add_argument("--shard", metavar="K/N", help="run shard K of N (a CI matrix job); the N shards partition "
                                                     "the cases, balanced by --durations")
    what.add_argument("--durations", metavar="FILE",
                      help="an earlier run's --json FILE: case durations for balancing shards and chunks")
    what.add_argument("--list", action="store_true", help="print what would run, with counts, and run nothing")
    seeds = parser.add_argument_group("seeds").add_mutually_exclusive_group()
    seeds.add_argument("--seed", type=int, default=None,
                       help="the run's seed (default 0); each case's seed derives from it, its op and its dtype")
    seeds.add_argument("--case-seed", type=int, default=None, metavar="SEED",
                       help="use SEED as is for every case: the seed a failure reports")
    how = parser.add_argument_group("how to run")
    how.add_argument("-j", "--jobs", type=int, default=1, metavar="N",
                     help="worker processes (default 1: in this process; 0: one per CPU)")
    how.add_argument("--executor", metavar="URL", help="run on a Dask cluster: dask://HOST:PORT "
                                                       "(pip install 'minigrad[distributed]')")
    how.add_argument("-x", "--fail-fast", action="store_true", help="stop at the first failing case")
    output = parser.add_argument_group("output")
    output.add_argument("--json", metavar="FILE", help="also write the results as JSON to FILE")
    output.add_argument("-q", "--quiet", action="store_true", help="print only failures and the summary")
    output.add_argument("-v", "--verbose", action="store_true",
                        help="print each failure's full report under its row as well")
    output.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="colour the statuses (default auto: on a terminal, unless NO_COLOR is set)")


@dataclasses.dataclass
class _Plan:
    cases: list[Any]  # sweep_plan.Case, in plan order
    plan_size: int  # cases in the whole plan (before --shard)
    durations: dict[Any, float]
    arguments: dict[str, Any]


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None,
        argv: Sequence[str] | None = None) -> int:
    """Run ``check`` as parsed from the command line; returns the exit status."""
    out, err = out or sys.stdout, err or sys.stderr
    client = None
    try:
        plan = _plan(args, argv)
        if args.list:
            _print_list(plan, out)
            return 0
        _check_json_path(args.json)
        executor, jobs, client = _executor(args)
        return _sweep(args, plan, executor, jobs, out, err)
    except UsageError as error:
        err.write(f"check: {error}\n")
        return 2
    except _NothingToRun as nothing:
        out.write(f"{nothing}\n")
        return 0
    except KeyboardInterrupt:
        err.write("check: interrupted\n")
        return 130
    finally:
        if client is not None:
            client.close()


def _split(text: str | None) -> list[str] | None:
    return None if text is None else [item.strip() for item in text.split(",") if item.strip()]


def _backends(choice: str | None) -> list[str]:
    from minigrad import backend as backend_module

    if choice in (None, "all"):
        return ["numpy"] + (["cupy"] if backend_module.is_cupy_available() else [])
    if choice == "cupy" and not backend_module.is_cupy_available():
        raise UsageError("--backend cupy needs CuPy and a GPU (pip install minigrad[cuda]); try --backend cupy-sim")
    return [choice]


def _plan(args: argparse.Namespace, argv: Sequence[str] | None) -> _Plan:
    from minigrad.testing.registry import FLOAT_DTYPES, SpecLoadError
    from minigrad.testing.sweep import BATTERY
    from minigrad.testing.sweep_plan import DEFAULT_SPECS, parse_shard, plan_cases, read_durations, shard

    if args.jobs < 0:
        raise UsageError(f"-j/--jobs must be >= 0, got {args.jobs}")
    try:
        shard_of = parse_shard(args.shard) if args.shard else None
        durations = read_durations(args.durations) if args.durations else {}
    except ValueError as error:
        raise UsageError(str(error)) from None
    last_failed = _last_failed(args.last_failed) if args.last_failed else None
    recorded = last_failed or {}  # with --last-failed, what is not given is what failed
    checks = _split(args.check) or recorded.get("checks") or list(BATTERY)
    selection = {
        "ops": args.ops if args.ops is not None else recorded.get("ops", "*"),
        "dtypes": _split(args.dtype) or recorded.get("dtypes") or list(FLOAT_DTYPES),
        "backends": _backends(args.backend) if args.backend or not last_failed else recorded["backends"],
        "checks": [c for c in checks if c not in BATTERY or BATTERY[c].order <= args.order],
    }
    sources = args.specs or recorded.get("sources") or [DEFAULT_SPECS]
    if not selection["checks"]:
        raise UsageError(f"--check {args.check} with --order {args.order} leaves nothing to run")
    if last_failed and not last_failed["keys"]:
        raise _NothingToRun(f"no case failed in {args.last_failed}: nothing to rerun")
    try:
        cases = plan_cases(sources, **selection, seed=args.seed or 0, case_seed=args.case_seed)
    except SpecLoadError as error:
        raise UsageError(f"--specs: {error}") from None
    except ValueError as error:
        raise UsageError(str(error)) from None
    if last_failed:
        cases = _only_failed(cases, last_failed, keep_seeds=args.seed is None and args.case_seed is None)
    plan_size = len(cases)
    if shard_of:
        cases = shard(cases, *shard_of, durations)
    arguments = {"argv": list(argv) if argv is not None else sys.argv[1:], "specs": list(sources),
                 **selection, "order": args.order, "seed": args.seed or 0, "case_seed": args.case_seed,
                 "shard": args.shard, "durations": args.durations, "last_failed": args.last_failed,
                 "jobs": args.jobs, "executor": args.executor, "fail_fast": args.fail_fast}
    return _Plan(cases, plan_size, durations, arguments)


def _last_failed(path: str) -> dict[str, Any]:
    """The failing cases of an earlier report: their keys and seeds, and what to plan to find them."""
    from minigrad.testing.sweep import FAILING_STATUSES
    from minigrad.testing.sweep_json import read_report

    try:
        report = read_report(path)
    except ValueError as error:
        raise UsageError(f"--last-failed: {error}") from None
    failed = [r for r in report["results"] if r["status"] in FAILING_STATUSES]
    return {"keys": {(r["op"], r["backend"], r["dtype"], r["check"]): r["seed"] for r in failed},
            "sources": list(dict.fromkeys(r["module"] for r in failed)) or report["arguments"]["specs"],
            "ops": list(dict.fromkeys(r["op"] for r in failed)) or "*",
            "dtypes": list(dict.fromkeys(r["dtype"] for r in failed)) or None,
            "backends": list(dict.fromkeys(r["backend"] for r in failed)) or None,
            "checks": list(dict.fromkeys(r["check"] for r in failed)) or None}


def _only_failed(cases: list[Any], last_failed: dict[str, Any], keep_seeds: bool) -> list[Any]:
    kept = []
    for case in cases:
        if case.key in last_failed["keys"]:
            seed = last_failed["keys"][case.key] if keep_seeds else case.seed
            kept.append(dataclasses.replace(case, index=len(kept), seed=seed))
    return kept


def _check_json_path(path: str | None) -> None:
    if path is None:
        return
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise UsageError(f"--json {path}: no such directory {directory}")
    if os.path.isdir(path) or not os.access(directory, os.W_OK) or (os.path.exists(path)
                                                                     and not os.access(path, os.W_OK)):
        raise UsageError(f"--json {path}: cannot write there")


def _executor(args: argparse.Namespace) -> tuple[Any, int, Any]:
    """(executor or None, jobs, Dask client or None) for ``-j`` and ``--executor``."""
    if args.executor is None:
        return None, args.jobs or os.cpu_count() or 1, None
    from minigrad.testing.sweep_run import DaskUnavailable, connect_dask

    try:
        client, executor, threads = connect_dask(args.executor)
    except DaskUnavailable as error:
        raise UsageError(str(error)) from None
    return executor, args.jobs if args.jobs > 1 else threads, client


def _print_list(plan: _Plan, out: TextIO) -> None:
    from minigrad.testing.sweep import BATTERY
    from minigrad.testing.sweep_plan import estimate, planned_skip_reason

    by_op: dict[str, list[Any]] = {}
    for case in plan.cases:
        by_op.setdefault(case.op, []).append(case)
    skipped = {case for case in plan.cases if planned_skip_reason(case) is not None}
    out.write(f"{'op':<34} {'cases':>5} {'skip':>5}  checks\n")
    for op, cases in by_op.items():
        checks = " ".join(dict.fromkeys(c.check for c in cases))
        out.write(f"{op:<34} {len(cases):>5} {sum(c in skipped for c in cases):>5}  {checks}\n")
    per_check = {check: sum(c.check == check for c in plan.cases) for check in BATTERY}
    per_check = {check: n for check, n in per_check.items() if n}
    expected = sum(estimate(case, plan.durations) for case in plan.cases)
    shard = f"shard {plan.arguments['shard']}: " if plan.arguments["shard"] else ""
    out.write(f"\n{shard}{len(by_op)} ops, {len(plan.cases)} cases of {plan.plan_size} "
              f"({len(plan.cases) - len(skipped)} to run, {len(skipped)} to skip; "
              f"{', '.join(f'{check} {n}' for check, n in per_check.items())}); about {expected:.1f}s of work\n")


def _sweep(args: argparse.Namespace, plan: _Plan, executor: Any, jobs: int, out: TextIO, err: TextIO) -> int:
    from minigrad.cli.check_output import CheckOutput, use_color
    from minigrad.testing.sweep_json import build_report, record, write_report
    from minigrad.testing.sweep_plan import estimate
    from minigrad.testing.sweep_run import run_cases

    expected = {case: estimate(case, plan.durations) for case in plan.cases}
    printer = CheckOutput(out, err, total=len(plan.cases), quiet=args.quiet, verbose=args.verbose,
                          color=use_color(args.color, out), expected_seconds=sum(expected.values()))
    printer.header()
    finished: list[tuple[Any, Any]] = []
    interrupted = stopped_early = False
    start = time.perf_counter()
    results = run_cases(plan.cases, jobs=jobs, executor=executor, durations=plan.durations)
    try:
        for case, result in results:
            finished.append((case, result))
            printer.row(result, expected[case])
            if args.fail_fast and result.failed:
                stopped_early = True
                break
    except KeyboardInterrupt:
        interrupted = True
    finally:
        results.close()  # cancels what has not started
        printer.close()
    seconds = time.perf_counter() - start
    finished.sort(key=lambda pair: pair[0].index)
    printer.failures([(case, result) for case, result in finished if result.failed])
    printer.summary(len({case.op for case, _ in finished}), [result for _, result in finished], len(plan.cases),
                    interrupted=interrupted, stopped_early=stopped_early)
    if args.backend == "cupy-sim" or "cupy-sim" in plan.arguments["backends"]:
        out.write("(backend cupy-sim ran the CuPy cases on minigrad's CPU simulator of CuPy: no GPU was used)\n")
    if args.json:
        write_report(args.json, build_report([record(case, result) for case, result in finished],
                                             arguments=plan.arguments, plan_cases=plan.plan_size, seconds=seconds,
                                             interrupted=interrupted, stopped_early=stopped_early))
    if interrupted:
        return 130
    return 1 if any(result.failed for _, result in finished) else 0
