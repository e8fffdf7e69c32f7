"""What max and average pooling share: argument checks and the window geometry."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from minigrad.functions.checks import as_input, require_float, require_ndim
from minigrad.functions.connection.sliding_windows import Pair, conv_outsize, pair
from minigrad.variable import Variable

__all__: list[str] = []


@dataclass(frozen=True)
class PoolGeometry:
    """Windows of ``ksize`` moved by ``stride`` over an input of ``size`` padded by ``pad``."""

    ksize: Pair
    stride: Pair
    pad: Pair
    size: Pair  # the input's (H, W)
    outsize: Pair

    @property
    def im2col_args(self) -> tuple[Pair, Pair, Pair, Pair, Pair]:
        return self.ksize, self.stride, self.pad, (1, 1), self.outsize


def window_arguments(op: str, x: Any, ksize: Any, stride: Any, pad: Any) -> tuple[Variable, Pair, Pair, Pair]:
    """A 4-D float ``x`` and the window's ksize, stride (``ksize`` when None) and pad as pairs."""
    x = as_input(op, x, "x")
    require_ndim(op, x, 4, "x")
    require_float(op, x, "x")
    ksize = pair(op, ksize, "ksize", 1)
    return x, ksize, ksize if stride is None else pair(op, stride, "stride", 1), pair(op, pad, "pad", 0)


def pooling_geometry(op: str, x: Any, ksize: Any, stride: Any, pad: Any,
                     cover_all: bool) -> tuple[Variable, PoolGeometry]:
    x, ksize, stride, pad = window_arguments(op, x, ksize, stride, pad)
    outsize = tuple(conv_outsize(n, k, s, p, 1, cover_all) for n, k, s, p in zip(x.shape[2:], ksize, stride, pad))
    if min(outsize) < 1:
        raise ValueError(f"{op}: ksize={ksize} is bigger than the padded input: x of shape {x.shape} with pad={pad}")
    return x, PoolGeometry(ksize, stride, pad, x.shape[2:], outsize)
