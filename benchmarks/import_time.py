"""Import cost: ``import minigrad`` beyond NumPy's own import, in fresh interpreters.

    python -m benchmarks.import_time [--repeats 15]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

from benchmarks.common import print_table

PROBE = ("import time; t0 = time.perf_counter(); import numpy; t1 = time.perf_counter(); import minigrad; "
         "t2 = time.perf_counter(); print(t1 - t0, t2 - t1)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    numpy_times, minigrad_times = [], []
    for _ in range(args.repeats):
        out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True).stdout
        a, b = map(float, out.split())
        numpy_times.append(a)
        minigrad_times.append(b)
    n, m = statistics.median(numpy_times), statistics.median(minigrad_times)
    print_table(f"import time, median of {args.repeats} fresh interpreters",
                ["import", "ms", "ratio to numpy"],
                [["numpy", n * 1e3, 1.0], ["minigrad beyond numpy", m * 1e3, m / n]])


if __name__ == "__main__":
    main()
