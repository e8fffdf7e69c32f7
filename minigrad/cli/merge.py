"""``python -m minigrad merge``: merge the ``--json`` reports of the shards of one sweep into one.

    python -m minigrad merge shard-*.json --json check.json

Checks that the reports are the ``N`` shards of one plan (same arguments,
each shard once, each case once), prints the failures and the summary of
the whole sweep, and writes the merged report. Exit status: 0 when every
case passed, 1 when any failed, 2 when the reports are not the shards of one plan.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TextIO

__all__ = ["HELP", "add_arguments", "run"]

HELP = "merge the --json reports of the shards of one sweep"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``merge``."""
    parser.add_argument("reports", nargs="+", metavar="FILE", help="the shards' --json reports")
    parser.add_argument("--json", metavar="FILE", help="write the merged report to FILE")


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None,
        argv: Sequence[str] | None = None) -> int:
    """Merge, print failures and summary, write ``--json``; returns the exit status."""
    from minigrad.testing.sweep import FAILING_STATUSES
    from minigrad.testing.sweep_json import merge_reports, read_report, write_report

    out, err = out or sys.stdout, err or sys.stderr
    try:
        merged = merge_reports([read_report(path) for path in args.reports], names=args.reports)
    except ValueError as error:
        err.write(f"merge: {error}\n")
        return 2
    failed = [r for r in merged["results"] if r["status"] in FAILING_STATUSES]
    for r in failed:
        out.write(f"{r['op']} {r['backend']} {r['dtype']} {r['check']}: {r['status']}, margin {r['margin']}, seed "
                  f"{r['seed']}\n    {r['message'].splitlines()[0] if r['message'] else ''}\n"
                  f"    rerun: {r['reproduce']}\n")
    summary = merged["summary"]
    slowest = max(shard["seconds"] for shard in merged["shards"])
    mean = sum(shard["seconds"] for shard in merged["shards"]) / len(merged["shards"])
    out.write(f"{len(merged['shards'])} shards, {summary['ops']} ops, {summary['cases']} cases: {summary['pass']} "
              f"passed, {summary['fail']} failed, {summary['error']} errors, {summary['xpass']} unexpected passes, "
              f"{summary['xfail']} expected failures, {summary['skip']} skipped; slowest shard {slowest:.1f}s "
              f"({slowest / mean if mean else 1:.2f}x the mean)\n")
    if args.json:
        write_report(args.json, merged)
    return 1 if failed else 0
