"""im2col / col2im on arrays: the sliding-window views behind convolution, pooling and ``F.im2col``.

One core for any number of spatial axes: ``im2col_array`` turns a batch
(N, C, *size) into a read-only strided view (N, C, *ksize, *outsize) of its
padded copy: no copy and no Python loop over pixels (reshaping the view for a
matmul makes the one copy). ``col2im_array`` is its adjoint: it adds each kernel
offset's slab back into the image, a loop over the prod(ksize) offsets only.
The 2-d functions call the same code with pairs, the N-d ones with N-tuples:
the only cost of the generality is building a few tuples per call.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy

from minigrad import backend
from minigrad.functions.checks import require_size

__all__ = ["pair", "ntuple", "int_tuple", "conv_outsize", "deconv_outsize", "im2col_array", "col2im_array"]

Pair = tuple[int, int]
Sizes = tuple[int, ...]


def int_tuple(op: str, value: Any, argname: str, n: int) -> tuple[Any, ...]:
    """An int or a tuple (or list) of ``n`` ints as an ``n``-tuple, unchecked in value; else a TypeError."""
    values = tuple(value) if isinstance(value, (tuple, list)) else (value,) * n
    if len(values) != n or any(isinstance(v, bool) or not isinstance(v, (int, numpy.integer)) for v in values):
        what = "a pair of ints" if n == 2 else "a 1-tuple of an int" if n == 1 else f"a tuple of {n} ints"
        raise TypeError(f"{op}: {argname} must be an int or {what}, got {value!r}")
    return values


def ntuple(op: str, value: Any, argname: str, minimum: int, n: int,
           each: Callable[[str, str, Any], Any] | None = None) -> Sizes:
    """An int or a tuple of ``n`` ints (each >= ``minimum``) as an ``n``-tuple, like Chainer's ``stride``/``ksize``.

    ``each(op, argname, v)``, when given, checks and converts each value instead (a layer passes its own
    ``positive_int``).

    Example:
        >>> from minigrad.functions.connection.sliding_windows import ntuple
        >>> ntuple("convolution_nd", 2, "stride", 1, 3)
        (2, 2, 2)
        >>> ntuple("convolution_nd", (2, 0, 1), "stride", 1, 3)
        Traceback (most recent call last):
        ...
        ValueError: convolution_nd: stride must be >= 1, got (2, 0, 1)
    """
    values = int_tuple(op, value, argname, n)
    if each is not None:
        return tuple(each(op, argname, v) for v in values)
    if any(v < minimum for v in values):
        raise ValueError(f"{op}: {argname} must be >= {minimum}, got {value!r}")
    return tuple(require_size(op, v, argname) for v in values)  # (and each at most checks.MAX_SIZE)


def pair(op: str, value: Any, argname: str, minimum: int,
         each: Callable[[str, str, Any], Any] | None = None) -> Pair:
    """An int or a pair of ints (each >= ``minimum``) as a pair, like Chainer's ``stride``/``pad``/``ksize``.

    Example:
        >>> from minigrad.functions.connection.sliding_windows import pair
        >>> pair("convolution_2d", 3, "ksize", 1), pair("convolution_2d", [1, 2], "pad", 0)
        ((3, 3), (1, 2))
    """
    return ntuple(op, value, argname, minimum, 2, each)  # type: ignore[return-value]


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


def im2col_array(x: Any, ksize: Sizes, stride: Sizes, pad: Sizes, dilate: Sizes, outsize: Sizes,
           pad_value: float = 0) -> Any:
    """Read-only view ``col[n, c, *k, *o] = padded[n, c, o[0]*s[0] + k[0]*d[0], ...]`` (one pair per spatial axis)."""
    xp = backend.get_array_module(x)
    size = x.shape[2:]
    padded_size = tuple(map(_padded_size, size, ksize, stride, pad, dilate, outsize))
    if padded_size != size:
        padded = xp.full(x.shape[:2] + padded_size, pad_value, dtype=x.dtype)
        padded[(slice(None), slice(None)) + tuple(slice(p, p + n) for p, n in zip(pad, size))] = x
    else:
        padded = xp.ascontiguousarray(x)
    spatial = padded.strides[2:]
    strides = (padded.strides[:2] + tuple(t * d for t, d in zip(spatial, dilate))
               + tuple(t * s for t, s in zip(spatial, stride)))
    return backend.as_strided(padded, x.shape[:2] + tuple(ksize) + tuple(outsize), strides)


def col2im_array(col: Any, size: Sizes, stride: Sizes, pad: Sizes, dilate: Sizes) -> Any:
    """The adjoint of ``im2col_array``: sum ``col`` (N, C, *ksize, *outsize) back into images of ``size``."""
    xp = backend.get_array_module(col)
    nd = len(size)
    ksize, outsize = col.shape[2:2 + nd], col.shape[2 + nd:]
    padded_size = tuple(map(_padded_size, size, ksize, stride, pad, dilate, outsize))
    image = xp.zeros(col.shape[:2] + padded_size, dtype=col.dtype)
    whole = (slice(None), slice(None))
    for offset in itertools.product(*map(range, ksize)):
        image[whole + tuple(slice(k * d, k * d + s * (o - 1) + 1, s)
                            for k, d, s, o in zip(offset, dilate, stride, outsize))] += col[whole + offset]
    return image[whole + tuple(slice(p, p + n) for p, n in zip(pad, size))]
