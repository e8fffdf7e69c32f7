"""Cost of minigrad.functional on a small MLP, as ratios to one forward+backward measured in the same run.

The MLP is ``f(x) = W2 tanh(W1 x + b1) + b2`` with 64 inputs, 128 hidden units
and 10 outputs, for one sample ``x``; the scalar loss for ``hvp`` is
``sum(f(x)²) / 2``. Every transform differentiates with respect to ``x``. The
reference is one forward and backward of ``sum(f(x))``. Where torch is
installed, the same computations through ``torch.autograd.functional`` (its
defaults: the double-backward trick for ``jvp``, ``hvp``, and a loop of
``vjp``s for ``jacobian``) are timed beside, as ratios to torch's own
forward+backward; torch runs on one thread, in alternation with the rest.

    python -m benchmarks.functional                  # float32, 31 repeats
    python -m benchmarks.functional --dtype float64 --repeats 51
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import numpy

import minigrad as mg
import minigrad.functions as F
from benchmarks.common import interleaved_medians, print_table
from minigrad.functional import hessian, hvp, jacobian, jvp, vjp

SIZES = (64, 128, 10)


def make_problem(dtype: str, seed: int = 0) -> dict[str, numpy.ndarray]:
    rng = numpy.random.default_rng(seed)
    n_in, n_hidden, n_out = SIZES
    return {
        "W1": (rng.normal(size=(n_hidden, n_in)) / numpy.sqrt(n_in)).astype(dtype),
        "b1": (0.1 * rng.normal(size=n_hidden)).astype(dtype),
        "W2": (rng.normal(size=(n_out, n_hidden)) / numpy.sqrt(n_hidden)).astype(dtype),
        "b2": (0.1 * rng.normal(size=n_out)).astype(dtype),
        "x": rng.normal(size=n_in).astype(dtype),
        "t": rng.normal(size=n_in).astype(dtype),
        "u": rng.normal(size=n_out).astype(dtype),
    }


def minigrad_mlp(p: dict[str, numpy.ndarray]) -> Callable[[Any], Any]:
    def f(x):
        return F.matmul(p["W2"], F.tanh(F.matmul(p["W1"], x) + p["b1"])) + p["b2"]
    return f


def minigrad_cases(p: dict[str, numpy.ndarray]) -> dict[str, Callable[[], Any]]:
    f = minigrad_mlp(p)

    def loss(x):
        return F.sum(f(x) ** 2) / 2

    def forward_backward():
        x = mg.Variable(p["x"])
        F.sum(f(x)).backward()
        return x.grad

    return {
        "fwd+bwd": forward_backward,
        "vjp": lambda: vjp(f, p["x"])[1](p["u"]),
        "jvp": lambda: jvp(f, (p["x"],), (p["t"],)),
        "hvp": lambda: hvp(loss, p["x"], p["t"]),
        "jacobian rev (10 rows)": lambda: jacobian(f, p["x"]),
        "jacobian fwd (64 columns)": lambda: jacobian(f, p["x"], mode="fwd"),
        "hessian (64 rows)": lambda: hessian(loss, p["x"]),
    }


def torch_cases(p: dict[str, numpy.ndarray]) -> dict[str, Callable[[], Any]] | None:
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    TF = torch.autograd.functional
    q = {k: torch.from_numpy(v) for k, v in p.items()}

    def f(x):
        return q["W2"] @ torch.tanh(q["W1"] @ x + q["b1"]) + q["b2"]

    def loss(x):
        return (f(x) ** 2).sum() / 2

    def forward_backward():
        x = q["x"].clone().requires_grad_()
        f(x).sum().backward()
        return x.grad

    return {
        "fwd+bwd": forward_backward,
        "vjp": lambda: TF.vjp(f, q["x"], q["u"]),
        "jvp": lambda: TF.jvp(f, q["x"], q["t"]),
        "hvp": lambda: TF.hvp(loss, q["x"], q["t"]),
        "jacobian rev (10 rows)": lambda: TF.jacobian(f, q["x"]),
        "jacobian fwd (64 columns)": lambda: TF.jacobian(f, q["x"], strategy="forward-mode", vectorize=True),
        "hessian (64 rows)": lambda: TF.hessian(loss, q["x"]),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dtype", default="float32", choices=("float32", "float64"))
    parser.add_argument("--repeats", type=int, default=31, help="timed runs per case (median)")
    args = parser.parse_args(argv)
    p = make_problem(args.dtype)
    ours = minigrad_cases(p)
    theirs = torch_cases(p)
    both = {("minigrad", k): v for k, v in ours.items()}
    both.update({("torch", k): v for k, v in (theirs or {}).items()})
    times = interleaved_medians(both, args.repeats)  # alternated, so load from other processes hits all alike
    rows = []
    for name in ours:
        row = [name, times["minigrad", name] * 1e3, times["minigrad", name] / times["minigrad", "fwd+bwd"]]
        if theirs is not None:
            row += [times["torch", name] * 1e3, times["torch", name] / times["torch", "fwd+bwd"]]
        rows.append(row)
    headers = ["what", "minigrad ms", "ratio to its fwd+bwd"]
    if theirs is not None:
        headers += ["torch.autograd.functional ms", "ratio to torch fwd+bwd"]
    mlp = "-".join(map(str, SIZES))
    print_table(f"functional autodiff on an MLP {mlp} ({args.dtype}, one sample), medians of {args.repeats}"
                + ("" if theirs is not None else " (torch not installed)"), headers, rows)


if __name__ == "__main__":
    main()
