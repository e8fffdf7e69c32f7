"""The gradient checker's quality figures: false failures on correct ops and detection of wrong ones.

For every correct problem in ``minigrad/testing/gradcheck_cases.py`` (library ops
and the correct twin of every mutant, first and second order) and every float
dtype, runs the check with seeds 0..N-1 and counts failures (the target: 0).
With ``--mutants`` it also runs every deliberately wrong op over the same seeds
and counts how often it is flagged (the target: 100 %). CI runs the same cases
with fewer seeds (tests/testing/test_false_positives.py, test_mutations.py).

    python scripts/gradcheck_false_positives.py                   # 1,000 seeds, correct ops
    python scripts/gradcheck_false_positives.py --mutants         # and the mutation suite
    python scripts/gradcheck_false_positives.py --seeds 50 --only tanh

Exit status 1 when a correct op fails or a mutant passes.
"""

from __future__ import annotations

import argparse
import sys
import time

from minigrad.testing import GradientCheckError
from minigrad.testing import gradcheck_cases as cases


def run_correct(seeds: int, only: str | None) -> int:
    print(f"false failures of correct ops over {seeds} seeds (order 1 = check_backward, 2 = check_double_backward)")
    print(f"{'case':<44} {'order':>5} {'dtype':<8} {'fails':>6} {'worst margin':>12}")
    total_fail, total_runs = 0, 0
    for case in cases.correct_cases():
        if only and only not in case.name:
            continue
        for dtype in case.dtypes:
            fails, worst = [], 0.0
            for seed in range(seeds):
                try:
                    worst = max(worst, cases.run(case, dtype, seed, wrong=False).margin)
                except Exception as error:  # a false failure (or a crash): report it
                    fails.append((seed, f"{type(error).__name__}: {str(error).splitlines()[0]}"))
            total_fail += len(fails)
            total_runs += seeds
            print(f"{case.name[:44]:<44} {case.order:>5} {dtype:<8} {len(fails):>6} {worst:>12.3g}")
            for seed, message in fails[:3]:
                print(f"    seed {seed}: {message}")
    print(f"\ncorrect ops: {total_fail} false failures in {total_runs} checks")
    return total_fail


def run_mutants(seeds: int, only: str | None) -> int:
    print(f"\nmutants flagged over {seeds} seeds")
    print(f"{'category':<24} {'mutant':<40} {'dtype':<8} {'flagged':>10}")
    missed_total = 0
    rows: dict[tuple[str, str], list[int]] = {}
    for case in cases.all_mutants():
        if only and only not in case.name:
            continue
        for dtype in case.dtypes:
            flagged, other = 0, {}
            for seed in range(seeds):
                try:
                    cases.run(case, dtype, seed, wrong=True)
                except GradientCheckError:
                    flagged += 1
                except Exception as error:
                    key = f"{type(error).__name__}: {str(error).splitlines()[0][:80]}"
                    other[key] = other.get(key, 0) + 1
            missed_total += seeds - flagged
            tally = rows.setdefault((case.category, dtype), [0, 0])
            tally[0] += flagged
            tally[1] += seeds
            extra = f"  {other}" if other else ""
            print(f"{case.category:<24} {case.name[:40]:<40} {dtype:<8} {flagged:>5}/{seeds:<4}{extra}")
    print("\ndetection rate per category and dtype")
    for (category, dtype), (flagged, runs) in rows.items():
        print(f"  {category:<24} {dtype:<8} {100.0 * flagged / runs:6.2f} % ({flagged}/{runs})")
    print(f"\nmutants: {missed_total} missed")
    return missed_total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=1000, help="seeds per case and dtype (default 1000)")
    parser.add_argument("--mutants", action="store_true", help="also run the mutation suite")
    parser.add_argument("--no-correct", action="store_true", help="skip the correct ops")
    parser.add_argument("--only", help="only cases whose name contains this text")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    bad = 0
    if not args.no_correct:
        bad += run_correct(args.seeds, args.only)
    if args.mutants:
        bad += run_mutants(args.seeds, args.only)
    print(f"({time.perf_counter() - start:.0f} s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
