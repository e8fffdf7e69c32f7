"""What max and average pooling share: argument checks and the window geometry, for 2 or N spatial axes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from minigrad.functions.checks import as_input, require_ndim
from minigrad.functions.connection.sliding_windows import Sizes, conv_outsize, ntuple
from minigrad.variable import Variable

__all__: list[str] = []


@dataclass(frozen=True)
class PoolGeometry:
    """Windows of ``ksize`` moved by ``stride`` over an input of ``size`` padded by ``pad``."""

    ksize: Sizes
    stride: Sizes
    pad: Sizes
    size: Sizes  # the input's spatial size, (H, W) in 2-d
    outsize: Sizes

    @property
    def im2col_args(self) -> tuple[Sizes, Sizes, Sizes, Sizes, Sizes]:
        return self.ksize, self.stride, self.pad, (1,) * len(self.ksize), self.outsize


def window_arguments(op: str, x: Any, ksize: Any, stride: Any, pad: Any,
                     nd: int | None = 2) -> tuple[Variable, Sizes, Sizes, Sizes]:
    """A float ``x`` (N, C, *size) and the window's ksize, stride (``ksize`` when None) and pad as tuples.

    ``nd`` is the number of spatial axes; None (the N-d functions) takes it from ``x``.
    """
    x = as_input(op, x, "x", float_only=True)
    if nd is None:
        if x.ndim < 3:
            raise ValueError(f"{op}: x must have at least 3 dimensions (N, C, *size), got shape {x.shape}")
        nd = x.ndim - 2
    require_ndim(op, x, nd + 2, "x")
    ksize = ntuple(op, ksize, "ksize", 1, nd)
    stride = ksize if stride is None else ntuple(op, stride, "stride", 1, nd)
    return x, ksize, stride, ntuple(op, pad, "pad", 0, nd)


def pooling_geometry(op: str, x: Any, ksize: Any, stride: Any, pad: Any,
                     cover_all: bool, nd: int | None = 2) -> tuple[Variable, PoolGeometry]:
    x, ksize, stride, pad = window_arguments(op, x, ksize, stride, pad, nd)
    outsize = tuple(conv_outsize(n, k, s, p, 1, cover_all) for n, k, s, p in zip(x.shape[2:], ksize, stride, pad))
    if min(outsize) < 1:
        raise ValueError(f"{op}: ksize={ksize} is bigger than the padded input: x of shape {x.shape} with pad={pad}")
    return x, PoolGeometry(ksize, stride, pad, x.shape[2:], outsize)


def require_real_pixels(op: str, geometry: PoolGeometry, why: str) -> None:
    """A ``ValueError`` naming ``op`` if some window would see only padding (``why``: what that would give).

    The first window does when ``pad >= ksize``; with ``cover_all`` the extra
    last window may too, when it starts past the input.
    """
    for axis, (n, k, s, p, o) in enumerate(zip(geometry.size, geometry.ksize, geometry.stride, geometry.pad,
                                               geometry.outsize)):
        if p >= k:
            raise ValueError(f"{op}: pad={geometry.pad} must be smaller than ksize={geometry.ksize} "
                             f"(a window would see only padding, {why})")
        if (o - 1) * s - p >= n:
            raise ValueError(f"{op}: the last window along spatial axis {axis} (input size {n}, ksize={k}, stride={s}, "
                             f"pad={p}, cover_all=True) would see only padding ({why}); use a smaller pad or "
                             "cover_all=False")
