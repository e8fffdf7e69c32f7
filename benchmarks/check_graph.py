"""Cost of ``check_graph``: every node of the digits MLP and CNN checked alone, against one forward+backward.

The models are ``examples/digits.py``'s (untrained, weights from ``--seed``) on
a batch of real digits, inside ``L.Classifier`` (softmax cross-entropy on the
integer labels), in training mode (dropout and batch statistics on). For each
model the table gives the median time of one forward+backward pass, of a
forward pass under ``record_graph`` (plus its backward), and of
``check_graph`` at first order (and with ``--order 2`` also at second), each
as a ratio to the plain forward+backward; then the nodes, how many were checked
or shared, and the share of the time spent on nodes at a kink (their check is
refused at the inputs they saw, after the checker has isolated the kink, then
made at a point nearby). Needs the ``examples`` extra (scikit-learn).

BLAS threads fight over a busy machine and make the timings erratic; run with
``OPENBLAS_NUM_THREADS=1`` there.

    python -m benchmarks.check_graph [--batch 32] [--repeats 3] [--order 1|2]
"""

from __future__ import annotations

import argparse
import importlib.util
import pathlib
import sys
from typing import Any

import numpy

import minigrad as mg
import minigrad.links as L
from benchmarks.common import interleaved_medians, print_table
from minigrad import initializers
from minigrad.testing import check_graph, record_graph
from minigrad.testing.node_check import Verdict

DIGITS = pathlib.Path(__file__).resolve().parents[1] / "examples" / "digits.py"


def load_digits_example() -> Any:
    spec = importlib.util.spec_from_file_location("digits_example", DIGITS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_model(digits: Any, name: str, seed: int) -> mg.Link:
    initializers.set_default_rng(seed)
    return L.Classifier(digits.MLP() if name == "MLP" else digits.CNN())


def forward(model: mg.Link, x: Any, t: Any, seed: int) -> mg.Variable:
    numpy.random.seed(seed)  # the same dropout masks every time
    return model(x, t)


def measure(digits: Any, name: str, x: Any, t: Any, args: argparse.Namespace) -> list[list[Any]]:
    model = make_model(digits, name, args.seed)
    reports = {}

    def plain() -> None:
        model.cleargrads()
        forward(model, x, t, args.seed).backward()

    def recorded() -> None:
        model.cleargrads()
        with record_graph():
            loss = forward(model, x, t, args.seed)
        loss.backward()

    def checked(order: int) -> Any:
        def run() -> None:
            with record_graph():
                loss = forward(model, x, t, args.seed)
            reports[order] = check_graph(loss, order=order, seed=args.seed)
        return run

    fns = {"plain": plain, "recorded": recorded, "first": checked(1)}
    if args.order == 2:
        fns["second"] = checked(2)
    times = interleaved_medians(fns, args.repeats, warmup=1)
    rows = []
    for order in range(1, args.order + 1):
        report = reports[order]
        kinks = sum(r.check.seconds for r in report.rows if r.check.verdict is Verdict.KINK)
        key = "first" if order == 1 else "second"
        rows.append([name, order, times["plain"] * 1e3, times["recorded"] / times["plain"], times[key] * 1e3,
                     times[key] / times["plain"], len(report.rows), report.checked, report.shared,
                     f"{kinks / max(report.seconds, 1e-12):.0%}", "yes" if report.passed else "NO"])
    print(f"\n{name} (order {args.order}), the last table:\n{reports[args.order]}\n")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch", type=int, default=32, help="images per batch (digits.py trains on 32)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--order", type=int, choices=(1, 2), default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--models", default="MLP,CNN")
    args = parser.parse_args()
    if importlib.util.find_spec("sklearn") is None:
        sys.exit("benchmarks.check_graph needs the digits data: pip install -e '.[examples]'")
    digits = load_digits_example()
    x_train, _, t_train, _ = digits.load_data(args.seed)
    x, t = x_train[:args.batch], t_train[:args.batch]
    rows = []
    for name in args.models.split(","):
        rows += measure(digits, name, x, t, args)
    print_table(f"check_graph on the digits models, batch {args.batch}, float32, median of {args.repeats}",
                ["model", "order", "fwd+bwd ms", "recorded / fwd+bwd", "check_graph ms", "check_graph / fwd+bwd",
                 "nodes", "checked", "shared", "time at kinks", "passed"], rows)


if __name__ == "__main__":
    main()
