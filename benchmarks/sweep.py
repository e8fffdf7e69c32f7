"""The sweep as a CI tool: serial against ``-j 2``, the balance of shards, a Dask LocalCluster against serial.

Each figure times the command a user runs (``python -m minigrad check --quiet
--backend numpy ...`` in a subprocess, interpreter start and imports
included), alternating the variants round by round so that a change in the
machine's load hits them alike; the table gives medians and the median of
the per-round ratios to the serial run of the same round.

A reference row measures, in each round, two pure-Python loops run in two
processes against the same two one after another: 0.5 on two idle cores,
near 1 when other sessions keep the cores busy; ``-j 2`` cannot beat it.

Shard balance: the ``N`` shards of the sweep run one after another, and the
slowest shard's sweep time (the JSON's ``summary.seconds``) is divided by the
mean; once with the static estimate and once with ``--durations`` from the
serial run of the same round. "predicted" is the same ratio computed from
the recorded case durations, with no noise of its own.

    python -m benchmarks.sweep                          # the whole registry, 3 rounds, 4 shards, Dask
    python -m benchmarks.sweep --repeats 5 --shards 4 --ops 'a*' --no-dask --no-shards
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence

from benchmarks.common import print_table

CPU_SECONDS: dict[str, list[float]] = {}  # command arguments -> CPU seconds of each run (its workers included)


def run_check(args: Sequence[str], json_path: str | None = None) -> tuple[float, dict | None]:
    """(wall seconds, JSON report or None) of one ``python -m minigrad check --quiet`` run.

    The CPU seconds of the command and its worker processes are added to ``CPU_SECONDS[args]``.
    """
    command = [sys.executable, "-m", "minigrad", "check", "--quiet", "--backend", "numpy", *args]
    if json_path:
        command += ["--json", json_path]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    CPU_SECONDS.setdefault(" ".join(a for a in args if a != json_path), []).append(cpu)
    if done.returncode != 0:
        raise SystemExit(f"benchmarks.sweep: {' '.join(command)} exited {done.returncode}:\n{done.stdout[-2000:]}"
                         f"{done.stderr[-2000:]}")
    report = None
    if json_path:
        with open(json_path, encoding="utf-8") as handle:
            report = json.load(handle)
    return wall, report


def predicted_balance(durations_report: dict, shards: int, use_durations: bool, ops: str) -> float:
    """Slowest shard over the mean, by the recorded case durations of ``durations_report``."""
    from minigrad.testing.sweep_plan import DEFAULT_SPECS, plan_cases, shard

    recorded = {(r["op"], r["backend"], r["dtype"], r["check"]): r["seconds"] for r in durations_report["results"]}
    cases = plan_cases([DEFAULT_SPECS], ops=ops)
    loads = [sum(recorded.get(c.key, 0.0) for c in shard(cases, k, shards, recorded if use_durations else None))
             for k in range(1, shards + 1)]
    return max(loads) / (sum(loads) / shards)


def measured_balance(ops: str, shards: int, durations: str | None, directory: str) -> float:
    """Run the shards one after another; slowest shard's sweep seconds over the mean."""
    seconds = []
    for k in range(1, shards + 1):
        extra = ["--durations", durations] if durations else []
        path = os.path.join(directory, f"shard-{k}.json")
        _, report = run_check(["--ops", ops, "--shard", f"{k}/{shards}", *extra], path)
        seconds.append(report["summary"]["seconds"])
    return max(seconds) / statistics.mean(seconds)


def _burn(n: int) -> int:
    total = 0
    for i in range(n):
        total += i
    return total


def parallel_capacity(n: int = 3_000_000) -> float:
    """Two pure-Python loops in two processes over the same two one after another: what -j 2 can reach now.

    0.5 on two idle cores; about 1 when other work takes the cores (the kernel shares the CPU between
    sessions, so a session's second process gains nothing then).
    """
    import multiprocessing

    start = time.perf_counter()
    _burn(n), _burn(n)
    one_after_another = time.perf_counter() - start
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        pool.map(_burn, [10, 10])  # the workers started before the clock
        start = time.perf_counter()
        pool.map(_burn, [n, n], chunksize=1)
        side_by_side = time.perf_counter() - start
    return side_by_side / one_after_another


def start_dask() -> tuple[object, str] | None:
    try:
        import distributed
    except ImportError:
        print("(Dask: distributed is not installed: pip install -e '.[distributed]'; its rows are left out)")
        return None
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                       silence_logs=logging.CRITICAL)
    return cluster, cluster.scheduler_address.replace("tcp://", "dask://")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.sweep", description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="rounds (default 3)")
    parser.add_argument("--shards", type=int, default=4, help="shards for the balance figure (default 4)")
    parser.add_argument("--ops", default="*", help="the ops to sweep (default: the whole registry)")
    parser.add_argument("--no-dask", action="store_true", help="leave out the Dask LocalCluster rows")
    parser.add_argument("--no-shards", action="store_true", help="leave out the shard balance")
    args = parser.parse_args(argv)

    dask = None if args.no_dask else start_dask()
    walls: dict[str, list[float]] = {"serial": [], "-j 2": [], "dask": []}
    ratios: dict[str, list[float]] = {"-j 2": [], "dask": [], "capacity": []}
    balance: dict[str, list[float]] = {"static": [], "durations": [], "predicted static": [],
                                       "predicted durations": []}
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="minigrad-sweep-bench-") as directory:
        serial_json = os.path.join(directory, "serial.json")
        for round_ in range(args.repeats):
            wall, report = run_check(["--ops", args.ops], serial_json)
            walls["serial"].append(wall)
            walls["-j 2"].append(run_check(["--ops", args.ops, "-j", "2"])[0])
            ratios["-j 2"].append(walls["-j 2"][-1] / wall)
            ratios["capacity"].append(parallel_capacity())
            if dask:
                walls["dask"].append(run_check(["--ops", args.ops, "--executor", dask[1]])[0])
                ratios["dask"].append(walls["dask"][-1] / wall)
            if not args.no_shards:
                balance["static"].append(measured_balance(args.ops, args.shards, None, directory))
                balance["durations"].append(measured_balance(args.ops, args.shards, serial_json, directory))
            balance["predicted static"].append(predicted_balance(report, args.shards, False, args.ops))
            balance["predicted durations"].append(predicted_balance(report, args.shards, True, args.ops))
            print(f"round {round_ + 1}/{args.repeats}: serial {wall:.1f}s, -j 2 {walls['-j 2'][-1]:.1f}s "
                  f"(two busy loops in parallel: {ratios['capacity'][-1]:.2f}x one after another)"
                  + (f", dask {walls['dask'][-1]:.1f}s" if dask else "")
                  + f", load average {os.getloadavg()[0]:.1f}", flush=True)
    if dask:
        dask[0].close()
    median = statistics.median
    cpu = {name: median(CPU_SECONDS[" ".join(["--ops", args.ops, *extra])])
           for name, extra in (("serial", []), ("-j 2", ["-j", "2"]))}
    rows = [["serial (python -m minigrad check)", median(walls["serial"]), "1.00", cpu["serial"]],
            ["-j 2 (two worker processes)", median(walls["-j 2"]), f"{median(ratios['-j 2']):.2f}", cpu["-j 2"]]]
    rows.append(["reference: two pure-Python loops in 2 processes vs one after another", "-",
                 f"{median(ratios['capacity']):.2f}", "-"])
    if dask:
        rows.append(["--executor dask:// (LocalCluster, 2 worker processes)", median(walls["dask"]),
                     f"{median(ratios['dask']):.2f}", "- (in the cluster)"])
    print_table(f"whole-command wall, ops {args.ops!r}, median of {args.repeats} alternated rounds "
                f"(load average {load_before[0]:.1f} before, {os.getloadavg()[0]:.1f} after)",
                ["variant", "seconds", "x serial (median of per-round ratios)", "CPU seconds, all processes"], rows)
    measured = {k: f"{median(v):.3g}" if v else "-" for k, v in balance.items()}
    print_table(f"shard balance, {args.shards} shards: slowest shard's sweep time over the mean",
                ["shards by", "measured (median)", "predicted from recorded durations (median)"],
                [["static estimate", measured["static"], median(balance["predicted static"])],
                 ["--durations (the serial run's JSON)", measured["durations"],
                  median(balance["predicted durations"])]])


if __name__ == "__main__":
    main()
