"""im2col / col2im on arrays: the sliding-window views behind convolution, pooling and ``F.im2col``.

``im2col`` turns an image batch (N, C, H, W) into a read-only strided view
(N, C, kh, kw, out_h, out_w) of its padded copy: no copy and no Python loop
over pixels (reshaping the view for a matmul makes the one copy). ``col2im`` is
its adjoint: it adds each kernel offset's slab back into the image, a loop over
the kh*kw offsets only.
"""

from __future__ import annotations

from typing import Any

import numpy

from minigrad import backend

__all__ = ["pair", "conv_outsize", "deconv_outsize", "im2col", "col2im"]

Pair = tuple[int, int]


def pair(op: str, value: Any, argname: str, minimum: int) -> Pair:
    """An int or a pair of ints (each >= ``minimum``) as a pair, like Chainer's ``stride``/``pad``/``ksize``."""
    values = value if isinstance(value, (tuple, list)) else (value, value)
    if len(values) != 2 or any(isinstance(v, bool) or not isinstance(v, (int, numpy.integer)) for v in values):
        raise TypeError(f"{op}: {argname} must be an int or a pair of ints, got {value!r}")
    if any(v < minimum for v in values):
        raise ValueError(f"{op}: {argname} must be >= {minimum}, got {value!r}")
    return int(values[0]), int(values[1])


def conv_outsize(size: int, k: int, s: int, p: int, d: int = 1, cover_all: bool = False) -> int:
    """Output length of a window of ``k`` taps (dilation ``d``) sliding by ``s`` over ``size + 2p``.

    ``cover_all`` adds a last, partial window so that every input pixel is covered.
    """
    span = d * (k - 1) + 1
    if cover_all:
        return (size + 2 * p - span + s - 1) // s + 1
    return (size + 2 * p - span) // s + 1


def deconv_outsize(size: int, k: int, s: int, p: int, d: int = 1) -> int:
    """The input length that a convolution (without cover_all) maps to ``size``."""
    return s * (size - 1) + d * (k - 1) + 1 - 2 * p


def _padded_size(size: int, k: int, s: int, p: int, d: int, out: int) -> int:
    # The windows may reach past the padding (cover_all): extend the bottom/right edge.
    return max(size + 2 * p, (out - 1) * s + d * (k - 1) + 1)


def im2col(x: Any, ksize: Pair, stride: Pair, pad: Pair, dilate: Pair, outsize: Pair,
           pad_value: float = 0) -> Any:
    """Read-only view ``col[n, c, i, j, y, x] = padded[n, c, y*sy + i*dy, x*sx + j*dx]``."""
    xp = backend.get_array_module(x)
    n, c, h, w = x.shape
    (kh, kw), (sy, sx), (ph, pw), (dy, dx), (oh, ow) = ksize, stride, pad, dilate, outsize
    hp = _padded_size(h, kh, sy, ph, dy, oh)
    wp = _padded_size(w, kw, sx, pw, dx, ow)
    if (hp, wp) != (h, w):
        padded = xp.full((n, c, hp, wp), pad_value, dtype=x.dtype)
        padded[:, :, ph:ph + h, pw:pw + w] = x
    else:
        padded = xp.ascontiguousarray(x)
    s0, s1, s2, s3 = padded.strides
    return backend.as_strided(padded, (n, c, kh, kw, oh, ow), (s0, s1, s2 * dy, s3 * dx, s2 * sy, s3 * sx))


def col2im(col: Any, size: Pair, stride: Pair, pad: Pair, dilate: Pair) -> Any:
    """The adjoint of ``im2col``: sum ``col`` (N, C, kh, kw, oh, ow) back into images of ``size``."""
    xp = backend.get_array_module(col)
    n, c, kh, kw, oh, ow = col.shape
    (h, w), (sy, sx), (ph, pw), (dy, dx) = size, stride, pad, dilate
    hp = _padded_size(h, kh, sy, ph, dy, oh)
    wp = _padded_size(w, kw, sx, pw, dx, ow)
    image = xp.zeros((n, c, hp, wp), dtype=col.dtype)
    for i in range(kh):
        for j in range(kw):
            image[:, :, i * dy:i * dy + sy * (oh - 1) + 1:sy, j * dx:j * dx + sx * (ow - 1) + 1:sx] += col[:, :, i, j]
    return image[:, :, ph:ph + h, pw:pw + w]
