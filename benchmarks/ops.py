"""Per-op forward+backward time: minigrad vs the same op written by hand in NumPy.

Each hand-written version makes the choices a careful NumPy programmer would:
convolution is an im2col strided view copied once into a (N, C*kh*kw, H*W)
matrix stack and one batched matmul, whose columns are reused for the weight
gradient, and col2im loops over the kh*kw kernel offsets only; max pooling
takes the argmax of the same window view and scatters the gradient back with
the same offset loop; batch normalization and softmax cross-entropy are fused
one-pass formulas. Both sides are timed alternately in the same run (float32),
their results are compared first, and the table shows medians and the ratio.
The hand-written versions go through the array module ``xp``, so with
``--backend cupy`` the same code runs on the GPU (inputs drawn on the host and
copied over; timings synchronise the device).

    python -m benchmarks.ops [--repeats 11] [--ops conv,bn] [--backend numpy|cupy]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy

import minigrad as mg
import minigrad.functions as F
from benchmarks.common import array_module, interleaved_medians, print_table
from minigrad.backend import to_cpu, to_gpu

TARGET = 1.3  # issue 4: each op within 1.3x of the hand-written NumPy version


def _grads(y: mg.Variable, inputs: list[mg.Variable], gy: Any) -> list[Any]:
    return [g.array for g in mg.grad([y], inputs, [gy])]


def _on(xp: ModuleType, *arrays: numpy.ndarray) -> list[Any]:
    """The host arrays on ``xp``'s device (copied to the GPU for CuPy)."""
    return [to_gpu(a) if xp is not numpy else a for a in arrays]


# --- convolution_2d: N=32, C=64->64, 32x32, k=3, pad=1 ---------------------------------------

def conv_case(rng: numpy.random.Generator, xp: ModuleType):
    n, c, o, size, k = 32, 64, 64, 32, 3
    x = rng.standard_normal((n, c, size, size)).astype(numpy.float32)
    W = (rng.standard_normal((o, c, k, k)) / numpy.sqrt(c * k * k)).astype(numpy.float32)
    b = rng.standard_normal(o).astype(numpy.float32)
    gy = rng.standard_normal((n, o, size, size)).astype(numpy.float32)
    x, W, b, gy = _on(xp, x, W, b, gy)

    def by_hand():
        padded = xp.zeros((n, c, size + 2, size + 2), xp.float32)
        padded[:, :, 1:-1, 1:-1] = x
        s = padded.strides
        col = xp.lib.stride_tricks.as_strided(padded, (n, c, k, k, size, size), (s[0], s[1], s[2], s[3], s[2], s[3]))
        col = col.reshape(n, c * k * k, size * size)
        W2 = W.reshape(o, -1)
        y = (W2 @ col).reshape(n, o, size, size)
        y += b.reshape(1, o, 1, 1)
        gy2 = gy.reshape(n, o, size * size)
        gb = gy.sum(axis=(0, 2, 3))
        gW = (gy2 @ col.transpose(0, 2, 1)).sum(axis=0).reshape(W.shape)
        gcol = (W2.T @ gy2).reshape(n, c, k, k, size, size)
        gpadded = xp.zeros_like(padded)
        for i in range(k):
            for j in range(k):
                gpadded[:, :, i:i + size, j:j + size] += gcol[:, :, i, j]
        return y, gpadded[:, :, 1:-1, 1:-1], gW, gb

    def with_minigrad():
        xs = [mg.Variable(a) for a in (x, W, b)]
        y = F.convolution_2d(*xs, pad=1)
        return [y.array] + _grads(y, xs, gy)

    return "convolution_2d N=32 C=64->64 32x32 k=3 pad=1", by_hand, with_minigrad


# --- max_pooling_2d -------------------------------------------------------------------------------

def max_pooling_case(rng: numpy.random.Generator, xp: ModuleType, k: int, s: int, p: int):
    n, c, size = 32, 64, 32
    x = rng.permutation(n * c * size * size).reshape(n, c, size, size).astype(numpy.float32)  # no ties
    out = -(-(size + 2 * p - k) // s) + 1  # cover_all=True (Chainer's default)
    gy = rng.standard_normal((n, c, out, out)).astype(numpy.float32)
    span = (out - 1) * s + k
    x, gy = _on(xp, x, gy)

    def by_hand():
        padded = xp.full((n, c, span, span), -xp.inf, xp.float32)
        padded[:, :, p:p + size, p:p + size] = x
        st = padded.strides
        col = xp.lib.stride_tricks.as_strided(padded, (n, c, k, k, out, out),
                                              (st[0], st[1], st[2], st[3], st[2] * s, st[3] * s))
        col = col.reshape(n, c, k * k, out, out)
        argmax = col.argmax(axis=2)
        y = xp.take_along_axis(col, argmax[:, :, None], axis=2)[:, :, 0]
        gpadded = xp.zeros((n, c, span, span), xp.float32)
        for offset in range(k * k):
            i, j = divmod(offset, k)
            gpadded[:, :, i:i + s * (out - 1) + 1:s, j:j + s * (out - 1) + 1:s] += gy * (argmax == offset)
        return y, gpadded[:, :, p:p + size, p:p + size]

    def with_minigrad():
        xv = mg.Variable(x)
        y = F.max_pooling_2d(xv, k, stride=s, pad=p)
        return [y.array] + _grads(y, [xv], gy)

    return f"max_pooling_2d N=32 C=64 32x32 k={k} s={s} pad={p}", by_hand, with_minigrad


# --- batch_normalization: N=32, C=64, 32x32 ---------------------------------------------------------

def batch_normalization_case(rng: numpy.random.Generator, xp: ModuleType):
    n, c, size, eps = 32, 64, 32, 2e-5
    x = rng.standard_normal((n, c, size, size)).astype(numpy.float32)
    gamma, beta = rng.uniform(0.5, 2, c).astype(numpy.float32), rng.standard_normal(c).astype(numpy.float32)
    gy = rng.standard_normal(x.shape).astype(numpy.float32)
    axes, m, kept = (0, 2, 3), n * size * size, (1, c, 1, 1)
    x, gamma, beta, gy = _on(xp, x, gamma, beta, gy)

    def by_hand():
        mean = x.mean(axis=axes, keepdims=True)
        xc = x - mean
        inv_std = 1 / xp.sqrt(xp.square(xc).mean(axis=axes, keepdims=True) + xp.float32(eps))
        x_hat = xc * inv_std
        y = gamma.reshape(kept) * x_hat + beta.reshape(kept)
        gbeta = gy.sum(axis=axes)
        ggamma = (gy * x_hat).sum(axis=axes)
        gx = (gamma.reshape(kept) * inv_std) * (gy - (gbeta / m).reshape(kept) - x_hat * (ggamma / m).reshape(kept))
        return y, gx, ggamma, gbeta

    def with_minigrad():
        xs = [mg.Variable(a) for a in (x, gamma, beta)]
        y = F.batch_normalization(*xs, eps=eps)
        return [y.array] + _grads(y, xs, gy)

    return "batch_normalization N=32 C=64 32x32", by_hand, with_minigrad


# --- softmax_cross_entropy: N=256, C=1000 -------------------------------------------------------------

def softmax_cross_entropy_case(rng: numpy.random.Generator, xp: ModuleType):
    n, c = 256, 1000
    x = rng.standard_normal((n, c)).astype(numpy.float32)
    t = rng.integers(0, c, n).astype(numpy.int32)
    x, t = _on(xp, x, t)
    rows = xp.arange(n)

    def by_hand():
        z = x - x.max(axis=1, keepdims=True)
        e = xp.exp(z)
        s = e.sum(axis=1, keepdims=True)
        loss = (xp.log(s[:, 0]) - z[rows, t]).mean()
        gx = e / s
        gx[rows, t] -= 1
        gx /= n
        return loss, gx

    def with_minigrad():
        xv = mg.Variable(x)
        loss = F.softmax_cross_entropy(xv, t)
        return [loss.array] + _grads(loss, [xv], None)

    return "softmax_cross_entropy N=256 C=1000", by_hand, with_minigrad


# --- linear: N=256, 1024 -> 1024 -------------------------------------------------------------------

def linear_case(rng: numpy.random.Generator, xp: ModuleType):
    n, n_in, n_out = 256, 1024, 1024
    x = rng.standard_normal((n, n_in)).astype(numpy.float32)
    W = (rng.standard_normal((n_out, n_in)) / numpy.sqrt(n_in)).astype(numpy.float32)
    b = rng.standard_normal(n_out).astype(numpy.float32)
    gy = rng.standard_normal((n, n_out)).astype(numpy.float32)
    x, W, b, gy = _on(xp, x, W, b, gy)

    def by_hand():
        y = x @ W.T + b
        return y, gy @ W, gy.T @ x, gy.sum(axis=0)

    def with_minigrad():
        xs = [mg.Variable(a) for a in (x, W, b)]
        y = F.linear(*xs)
        return [y.array] + _grads(y, xs, gy)

    return "linear N=256 1024->1024", by_hand, with_minigrad


CASES: dict[str, Callable[[numpy.random.Generator, ModuleType], tuple[str, Callable, Callable]]] = {
    "conv": conv_case,
    "maxpool2": lambda rng, xp: max_pooling_case(rng, xp, 2, 2, 0),
    "maxpool3": lambda rng, xp: max_pooling_case(rng, xp, 3, 2, 1),
    "bn": batch_normalization_case,
    "softmax_ce": softmax_cross_entropy_case,
    "linear": linear_case,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=11)
    parser.add_argument("--ops", default=",".join(CASES), help=f"comma-separated subset of {','.join(CASES)}")
    parser.add_argument("--backend", choices=("numpy", "cupy"), default="numpy")
    args = parser.parse_args()
    xp = array_module(args.backend, "benchmarks.ops")
    rng = numpy.random.default_rng(0)
    rows, notes = [], []
    for key in args.ops.split(","):
        if key == "softmax_ce" and not hasattr(F, "softmax_cross_entropy"):
            notes.append("softmax_cross_entropy skipped: minigrad.functions has no softmax_cross_entropy yet")
            continue
        name, by_hand, with_minigrad = CASES[key](rng, xp)
        for ours, theirs in zip(with_minigrad(), by_hand()):  # same results before comparing speed
            numpy.testing.assert_allclose(to_cpu(ours), to_cpu(theirs), rtol=1e-4, atol=1e-4)
        times = interleaved_medians({"by hand": by_hand, "minigrad": with_minigrad}, args.repeats)
        ratio = times["minigrad"] / times["by hand"]
        rows.append([name, times["by hand"] * 1e3, times["minigrad"] * 1e3, f"{ratio:.2f}",
                     "ok" if ratio <= TARGET else f"> {TARGET}"])
    on = "" if args.backend == "numpy" else " on cupy (GPU)"
    print_table(f"forward+backward per op{on}, float32, median of {args.repeats} (alternating runs)",
                ["op", f"{args.backend} ms", "minigrad ms", "ratio", f"target {TARGET}x"], rows)
    for note in notes:
        print(note)


if __name__ == "__main__":
    main()
