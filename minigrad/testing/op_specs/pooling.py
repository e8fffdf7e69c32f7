"""Specs for ``minigrad.functions.pooling``: naive loops over the windows as references.

Max-pooling inputs come from ``draw.distinct`` so no window has tied maxima.
"""

from __future__ import annotations

import itertools
import math

import numpy

import minigrad.functions as F
from minigrad.testing import OpSpec, register
from minigrad.testing.op_specs.draw import distinct, integers, uniform


def _pair(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


def _pooling_reference(reduce, pad_value, ksize, stride=None, pad=0, cover_all=False):
    (kh, kw), (ph, pw) = _pair(ksize), _pair(pad)
    sy, sx = _pair(ksize if stride is None else stride)

    def reference(x):
        n_batch, channels, h, w = x.shape
        rounding = math.ceil if cover_all else math.floor
        oh, ow = rounding((h + 2 * ph - kh) / sy) + 1, rounding((w + 2 * pw - kw) / sx) + 1
        padded = numpy.full((n_batch, channels, max(h + 2 * ph, (oh - 1) * sy + kh),
                             max(w + 2 * pw, (ow - 1) * sx + kw)), pad_value)
        padded[:, :, ph:ph + h, pw:pw + w] = x
        y = numpy.empty((n_batch, channels, oh, ow))
        for n, c, i, j in itertools.product(range(n_batch), range(channels), range(oh), range(ow)):
            y[n, c, i, j] = reduce([padded[n, c, i * sy + p, j * sx + q] for p in range(kh) for q in range(kw)])
        return y
    return reference


def _max_pooling(name, x_shape, ksize, **kwargs):
    reference = _pooling_reference(max, -numpy.inf, ksize, cover_all=kwargs.get("cover_all", True),
                                   **{k: v for k, v in kwargs.items() if k != "cover_all"})
    register(OpSpec(name, lambda x: F.max_pooling_2d(x, ksize, **kwargs),
                    lambda rng, dt: (distinct(rng, x_shape, dt),), reference,
                    covers=("max_pooling_2d",), kinks="ties between the values of one window"))


def _average_pooling(name, x_shape, ksize, **kwargs):
    reference = _pooling_reference(lambda values: sum(values) / len(values), 0.0, ksize, **kwargs)
    register(OpSpec(name, lambda x: F.average_pooling_2d(x, ksize, **kwargs),
                    lambda rng, dt: (uniform(rng, x_shape, dt),), reference, covers=("average_pooling_2d",),
                    linear_in=(0,)))


_max_pooling("max_pooling_2d", (2, 2, 4, 4), 2)
_max_pooling("max_pooling_2d[k3,stride2,pad1]", (1, 2, 5, 5), 3, stride=2, pad=1)
_max_pooling("max_pooling_2d[cover_all:partial windows]", (1, 2, 5, 5), 2)
_max_pooling("max_pooling_2d[cover_all=False,overlap]", (1, 2, 5, 4), 3, stride=1, cover_all=False)
_max_pooling("max_pooling_2d[rect:k(2,3),stride(1,2)]", (1, 1, 4, 5), (2, 3), stride=(1, 2))
_average_pooling("average_pooling_2d", (2, 2, 4, 4), 2)
_average_pooling("average_pooling_2d[k3,stride2,pad1]", (1, 2, 5, 5), 3, stride=2, pad=1)
_average_pooling("average_pooling_2d[rect:k(2,3),stride1]", (1, 2, 4, 5), (2, 3), stride=1)


# --- unpooling_2d: every input pixel added into each output pixel of its window, by hand ---
def _unpooling_reference(ksize, stride, pad, outsize):
    (kh, kw), (sy, sx), (ph, pw) = _pair(ksize), _pair(stride), _pair(pad)

    def reference(x):
        n_batch, channels, h, w = x.shape
        y = numpy.zeros((n_batch, channels) + outsize)
        for i, j, p, q in itertools.product(range(h), range(w), range(kh), range(kw)):
            r, s = i * sy + p - ph, j * sx + q - pw
            if 0 <= r < outsize[0] and 0 <= s < outsize[1]:
                y[:, :, r, s] += x[:, :, i, j]
        return y
    return reference


def _unpooling(name, x_shape, ksize, out_hw, stride=None, **kwargs):
    """``out_hw``: the output size the reference builds (and the op must produce)."""
    register(OpSpec(name, lambda x: F.unpooling_2d(x, ksize, stride=stride, **kwargs),
                    lambda rng, dt: (uniform(rng, x_shape, dt),),
                    _unpooling_reference(ksize, ksize if stride is None else stride, kwargs.get("pad", 0), out_hw),
                    covers=("unpooling_2d",)))


_unpooling("unpooling_2d", (2, 2, 2, 3), 2, (3, 5))  # cover_all (Chainer's default): s*(n-1) + k - s + 1
_unpooling("unpooling_2d[cover_all=False]", (2, 2, 2, 3), 2, (4, 6), cover_all=False)
_unpooling("unpooling_2d[k3,stride2,pad1,overlap]", (1, 2, 3, 3), 3, (4, 4), stride=2, pad=1)  # cover_all: 2*2+3-2+1-2
_unpooling("unpooling_2d[rect,outsize,no cover_all]", (1, 1, 2, 2), (2, 3), (4, 5), stride=(2, 2), outsize=(4, 5),
           cover_all=False)


# --- upsampling_2d: each pixel added at its window position indexes[...] = p*kw + q, by hand ---
def _upsampling_reference(ksize, stride, pad, outsize):
    kw, (sy, sx), (ph, pw) = _pair(ksize)[1], _pair(stride), _pair(pad)

    def reference(x, indexes):
        y = numpy.zeros(x.shape[:2] + outsize)
        for n, c, i, j in numpy.ndindex(*x.shape):
            p, q = divmod(int(indexes[n, c, i, j]), kw)
            r, s = i * sy + p - ph, j * sx + q - pw
            if 0 <= r < outsize[0] and 0 <= s < outsize[1]:
                y[n, c, r, s] += x[n, c, i, j]
        return y
    return reference


def _upsampling(name, x_shape, ksize, out_hw, stride=None, **kwargs):
    """``out_hw``: the output size the reference builds (and the op must produce)."""
    window = math.prod(_pair(ksize))
    register(OpSpec(name, lambda x, indexes: F.upsampling_2d(x, indexes, ksize, stride=stride, **kwargs),
                    lambda rng, dt: (uniform(rng, x_shape, dt), integers(rng, x_shape, 0, window)),
                    _upsampling_reference(ksize, ksize if stride is None else stride, kwargs.get("pad", 0), out_hw),
                    covers=("upsampling_2d",)))


_upsampling("upsampling_2d", (2, 2, 2, 3), 2, (3, 5))  # cover_all (Chainer's default): s*(n-1) + k - s + 1
_upsampling("upsampling_2d[cover_all=False]", (2, 2, 2, 3), 2, (4, 6), cover_all=False)
_upsampling("upsampling_2d[k3,stride2,pad1,overlap]", (1, 2, 3, 3), 3, (4, 4), stride=2, pad=1)
_upsampling("upsampling_2d[rect,outsize]", (1, 1, 2, 2), (2, 3), (4, 5), stride=(2, 2), outsize=(4, 5),
            cover_all=False)


# --- max_pooling_2d[return_indices]: upsampling with the returned indexes puts each max back in place ---
def _max_back_in_place_reference(ksize, stride, pad, cover_all):
    (kh, kw), (sy, sx), (ph, pw) = _pair(ksize), _pair(stride), _pair(pad)

    def reference(x):
        h, w = x.shape[2:]
        rounding = math.ceil if cover_all else math.floor
        oh, ow = rounding((h + 2 * ph - kh) / sy) + 1, rounding((w + 2 * pw - kw) / sx) + 1
        y = numpy.zeros_like(x)
        for n, c, i, j in itertools.product(range(x.shape[0]), range(x.shape[1]), range(oh), range(ow)):
            inside = [(r, s) for r in range(i * sy - ph, i * sy - ph + kh) for s in range(j * sx - pw, j * sx - pw + kw)
                      if 0 <= r < h and 0 <= s < w]
            r, s = max(inside, key=lambda rs: x[n, c, rs[0], rs[1]])
            y[n, c, r, s] += x[n, c, r, s]
        return y
    return reference


def _max_back_in_place(name, x_shape, ksize, stride=None, pad=0, cover_all=True):
    def func(x):
        y, indexes = F.max_pooling_2d(x, ksize, stride, pad, cover_all, return_indices=True)
        return F.upsampling_2d(y, indexes, ksize, stride, pad, x.shape[2:], cover_all)

    register(OpSpec(name, func, lambda rng, dt: (distinct(rng, x_shape, dt),),
                    _max_back_in_place_reference(ksize, ksize if stride is None else stride, pad, cover_all),
                    covers=("max_pooling_2d", "upsampling_2d"), kinks="ties between the values of one window"))


_max_back_in_place("max_pooling_2d[return_indices]", (2, 2, 4, 4), 2)
_max_back_in_place("max_pooling_2d[return_indices,k3,stride2,pad1,overlap]", (1, 2, 5, 5), 3, stride=2, pad=1)
_max_back_in_place("max_pooling_2d[return_indices,cover_all=False,rect]", (1, 1, 5, 4), (2, 3), stride=(2, 1),
                   cover_all=False)


# --- max_pooling_nd / average_pooling_nd / unpooling_nd: the loops over windows for any N ---
def _tuple(v, nd):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * nd


def _pooling_nd_reference(reduce, ksize, stride=None, pad=0, cover_all=False, count_padding=True):
    """``reduce(values)`` over each window's real pixels and, with ``count_padding``, its padded ones as None."""
    def reference(x):
        nd = x.ndim - 2
        k, p = _tuple(ksize, nd), _tuple(pad, nd)
        s = _tuple(ksize if stride is None else stride, nd)
        rounding = math.ceil if cover_all else math.floor
        out = [rounding((n + 2 * pi - ki) / si) + 1 for n, pi, ki, si in zip(x.shape[2:], p, k, s)]
        y = numpy.empty(x.shape[:2] + tuple(out))
        for n, c in itertools.product(*map(range, x.shape[:2])):
            for position in itertools.product(*map(range, out)):
                values = []
                for offset in itertools.product(*map(range, k)):
                    where = tuple(i * si + o - pi for i, si, o, pi in zip(position, s, offset, p))
                    if all(0 <= w < size for w, size in zip(where, x.shape[2:])):
                        values.append(x[(n, c) + where])
                    elif count_padding:
                        values.append(None)
                y[(n, c) + position] = reduce(values)
        return y
    return reference


def _max_pooling_nd(name, x_shape, ksize, op=F.max_pooling_nd, **kwargs):
    reference = _pooling_nd_reference(lambda values: max(v for v in values if v is not None), ksize,
                                      kwargs.get("stride"), kwargs.get("pad", 0), kwargs.get("cover_all", True))
    register(OpSpec(name, lambda x: op(x, ksize, **kwargs),
                    lambda rng, dt: (distinct(rng, x_shape, dt),), reference,
                    covers=(op.__name__,), kinks="ties between the values of one window"))


def _average_pooling_nd(name, x_shape, ksize, op=F.average_pooling_nd, **kwargs):
    ignore_padding = "pad_value" in kwargs and kwargs["pad_value"] is None
    reference = _pooling_nd_reference(lambda values: sum(v or 0.0 for v in values) / len(values), ksize,
                                      kwargs.get("stride"), kwargs.get("pad", 0), count_padding=not ignore_padding)
    register(OpSpec(name, lambda x: op(x, ksize, **kwargs),
                    lambda rng, dt: (uniform(rng, x_shape, dt),), reference, covers=(op.__name__,), linear_in=(0,)))


_max_pooling_nd("max_pooling_nd[1d]", (2, 2, 6), 2)
_max_pooling_nd("max_pooling_nd[1d,k3,stride2,pad1,cover_all]", (1, 2, 6), 3, stride=2, pad=1)
_max_pooling_nd("max_pooling_nd[3d]", (1, 2, 4, 3, 4), 2)
_max_pooling_nd("max_pooling_nd[3d,cover_all=False,rect]", (1, 1, 3, 4, 5), (2, 3, 2), stride=(1, 1, 2),
                cover_all=False)
_average_pooling_nd("average_pooling_nd[1d]", (2, 2, 6), 2)
_average_pooling_nd("average_pooling_nd[1d,k3,stride2,pad1]", (1, 2, 6), 3, stride=2, pad=1)
_average_pooling_nd("average_pooling_nd[1d,pad_value=None]", (1, 2, 6), 3, stride=2, pad=1, pad_value=None)
_average_pooling_nd("average_pooling_nd[3d]", (1, 2, 4, 2, 4), 2)
_average_pooling_nd("average_pooling_nd[3d,pad_value=None,rect]", (1, 1, 3, 4, 3), (2, 3, 2), stride=1,
                    pad=(1, 1, 0), pad_value=None)


def _unpooling_nd_reference(ksize, stride, pad, outsize):
    def reference(x):
        nd = x.ndim - 2
        k, s, p = _tuple(ksize, nd), _tuple(stride, nd), _tuple(pad, nd)
        y = numpy.zeros(x.shape[:2] + outsize)
        for position in itertools.product(*map(range, x.shape[2:])):
            for offset in itertools.product(*map(range, k)):
                where = tuple(i * si + o - pi for i, si, o, pi in zip(position, s, offset, p))
                if all(0 <= w < size for w, size in zip(where, outsize)):
                    y[(slice(None), slice(None)) + where] += x[(slice(None), slice(None)) + position]
        return y
    return reference


def _unpooling_nd(name, x_shape, ksize, out_size, stride=None, op=F.unpooling_nd, **kwargs):
    """``out_size``: the output size the reference builds (and the op must produce)."""
    register(OpSpec(name, lambda x: op(x, ksize, stride=stride, **kwargs),
                    lambda rng, dt: (uniform(rng, x_shape, dt),),
                    _unpooling_nd_reference(ksize, ksize if stride is None else stride, kwargs.get("pad", 0),
                                            out_size), covers=(op.__name__,)))


_unpooling_nd("unpooling_nd[1d]", (2, 2, 3), 2, (5,))  # cover_all: s*(n-1) + k - s + 1
_unpooling_nd("unpooling_nd[1d,k3,stride2,pad1,overlap,cover_all=False]", (1, 2, 3), 3, (5,), stride=2, pad=1,
              cover_all=False)
_unpooling_nd("unpooling_nd[3d,cover_all=False]", (1, 2, 2, 1, 2), 2, (4, 2, 4), cover_all=False)
_unpooling_nd("unpooling_nd[3d,rect,outsize]", (1, 1, 2, 2, 2), (2, 1, 3), (4, 2, 5), stride=(2, 1, 2),
              outsize=(4, 2, 5), cover_all=False)
# Chainer's fixed-dimension aliases: the same nodes, their own argument check
_max_pooling_nd("max_pooling_1d[k3,stride2,pad1]", (2, 2, 6), 3, op=F.max_pooling_1d, stride=2, pad=1)
_max_pooling_nd("max_pooling_3d", (1, 2, 2, 3, 2), 2, op=F.max_pooling_3d)
_average_pooling_nd("average_pooling_1d[pad_value=None]", (1, 2, 6), 3, op=F.average_pooling_1d, stride=2, pad=1,
                    pad_value=None)
_average_pooling_nd("average_pooling_3d", (1, 2, 2, 4, 2), 2, op=F.average_pooling_3d)
_unpooling_nd("unpooling_1d", (2, 2, 3), 2, (5,), op=F.unpooling_1d)
_unpooling_nd("unpooling_3d[cover_all=False]", (1, 1, 2, 1, 2), 2, (4, 2, 4), op=F.unpooling_3d, cover_all=False)
