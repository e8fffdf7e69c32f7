"""Draw docs/_static/jacobian.png: a Jacobian by backprop beside the same Jacobian by central differences.

    pip install -e ".[examples]"            # matplotlib
    python scripts/jacobian_picture.py      # writes docs/_static/jacobian.png

The function is the one on the tutorial page "A jvp is one more backward"
(docs/tutorial/06-jvp.rst): ``f(x) = softmax(W tanh(x))`` for ``x`` of 12
elements and ``W`` of shape (10, 12), drawn from ``default_rng(0)``.
"""

from __future__ import annotations

import argparse
import os

import numpy as np

import minigrad.functions as F
from minigrad.functional import jacobian

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "..", "docs", "_static", "jacobian.png")


def problem() -> tuple[np.ndarray, np.ndarray]:
    """(W, x), exactly as on the tutorial page."""
    rng = np.random.default_rng(0)
    return rng.normal(size=(10, 12)), rng.normal(size=12)


def central_differences(f, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """The Jacobian column by column: (f(x + h e_k) - f(x - h e_k)) / 2h."""
    columns = []
    for k in range(x.size):
        step = np.zeros_like(x)
        step[k] = h
        columns.append((f(x + step).array - f(x - step).array) / (2 * h))
    return np.stack(columns, axis=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=DEFAULT_OUT)
    args = parser.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    W, x = problem()

    def f(x):
        return F.softmax(F.matmul(W, F.tanh(x)), axis=0)

    backprop = jacobian(f, x).array
    numerical = central_differences(f, x)
    limit = float(np.abs(backprop).max())
    figure, axes = plt.subplots(1, 3, figsize=(11, 3.4), constrained_layout=True)
    panels = [(backprop, "backprop: jacobian(f, x)", "RdBu_r", (-limit, limit)),
              (numerical, "central differences, h = 1e-6", "RdBu_r", (-limit, limit)),
              (np.abs(backprop - numerical), "|difference|", "viridis", (None, None))]
    for axis, (matrix, title, cmap, (low, high)) in zip(axes, panels):
        image = axis.imshow(matrix, cmap=cmap, vmin=low, vmax=high)
        axis.set_title(title, fontsize=10)
        axis.set_xlabel("input element k")
        axis.set_ylabel("output element i")
        axis.set_xticks(range(0, matrix.shape[1], 2))
        axis.set_yticks(range(0, matrix.shape[0], 2))
        figure.colorbar(image, ax=axis, shrink=0.8, format="%.1e" if title.startswith("|") else "%.2f")
    figure.suptitle("∂f_i/∂x_k for f(x) = softmax(W tanh(x)), W of shape (10, 12)", fontsize=11)
    figure.savefig(args.out, dpi=110)
    print(f"wrote {args.out}; largest |difference| {np.abs(backprop - numerical).max():.2e}")


if __name__ == "__main__":
    main()
