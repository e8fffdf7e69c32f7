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


def _max_pooling(name, x_shape, ksize, variants=(), **kwargs):
    reference = _pooling_reference(max, -numpy.inf, ksize, cover_all=kwargs.get("cover_all", True),
                                   **{k: v for k, v in kwargs.items() if k != "cover_all"})
    register(OpSpec(name, lambda x: F.max_pooling_2d(x, ksize, **kwargs),
                    lambda rng, dt: (distinct(rng, x_shape, dt),), reference,
                    covers=("max_pooling_2d",), kinks="ties between the values of one window",
                    variants={label: (lambda rng, dt, shape=shape: (distinct(rng, shape, dt),))
                              for label, shape in variants}))


def _average_pooling(name, x_shape, ksize, **kwargs):
    reference = _pooling_reference(lambda values: sum(values) / len(values), 0.0, ksize, **kwargs)
    register(OpSpec(name, lambda x: F.average_pooling_2d(x, ksize, **kwargs),
                    lambda rng, dt: (uniform(rng, x_shape, dt),), reference, covers=("average_pooling_2d",),
                    linear_in=(0,)))


_max_pooling("max_pooling_2d", (2, 2, 4, 4), 2, variants=[("empty batch", (0, 2, 4, 4))])
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


# --- ROI pooling and align: boxes fixed in the spec (they get no gradient), loops over boxes, bins and samples ---
# (y_min, x_min, y_max, x_max) in image coordinates, spatial_scale 0.5 onto a 5 x 6 map: inside, over the
# bottom-right border, a thin one, and one hanging off the top-left corner (some of its bins and samples
# outside the map); for max pooling, whose bins outside are -inf, one less far out
_ROIS = numpy.array([[1.0, 2.0, 7.0, 9.0], [4.0, 6.0, 12.0, 14.0], [2.0, 0.0, 3.0, 10.0], [-3.0, -2.0, 3.0, 4.0]])
_ROIS_INSIDE = numpy.concatenate([_ROIS[:3], [[-2.0, 0.0, 6.0, 4.0]]])
_ROI_INDICES = numpy.array([0, 1, 1, 0], dtype=numpy.int32)
_ROI_SCALE = 0.5


def _roi_args(x, five_columns=False, boxes=_ROIS):
    rois = boxes.astype(x.dtype)
    if five_columns:  # roi_pooling_2d: (batch index, x_min, y_min, x_max, y_max)
        rois = numpy.concatenate([_ROI_INDICES[:, None].astype(x.dtype), rois[:, [1, 0, 3, 2]]], axis=1)
        return (x.xp.asarray(rois),)
    return x.xp.asarray(rois), x.xp.asarray(_ROI_INDICES)


def _roi_pool_reference(outh, outw, mode, inclusive, empty, boxes=_ROIS):
    def reference(x):
        y = numpy.full((len(boxes), x.shape[1], outh, outw), empty)
        for r, (box, b) in enumerate(zip(boxes, _ROI_INDICES)):
            y0, x0, y1, x1 = (int(numpy.round(v * _ROI_SCALE)) for v in box)
            height, width = max(y1 - y0 + inclusive, 1), max(x1 - x0 + inclusive, 1)
            for i in range(outh):
                top = min(max(math.floor(i * height / outh) + y0, 0), x.shape[2])
                bottom = min(max(math.ceil((i + 1) * height / outh) + y0, 0), x.shape[2])
                for j in range(outw):
                    left = min(max(math.floor(j * width / outw) + x0, 0), x.shape[3])
                    right = min(max(math.ceil((j + 1) * width / outw) + x0, 0), x.shape[3])
                    if bottom > top and right > left:
                        block = x[b, :, top:bottom, left:right].reshape(x.shape[1], -1)
                        y[r, :, i, j] = block.max(axis=1) if mode == "max" else block.mean(axis=1)
        return y
    return reference


def _bilinear_at(image, p, q):
    """Chainer's sample rule: within a pixel of the border reads the border; further out is None."""
    h, w = image.shape[-2:]
    if not (-1 <= p <= h and -1 <= q <= w):
        return None
    p, q = min(max(p, 0.0), h - 1.0), min(max(q, 0.0), w - 1.0)
    p0, q0 = int(math.floor(p)), int(math.floor(q))
    p1, q1 = min(p0 + 1, h - 1), min(q0 + 1, w - 1)
    a, c = p - p0, q - q0
    return ((1 - a) * (1 - c) * image[..., p0, q0] + (1 - a) * c * image[..., p0, q1]
            + a * (1 - c) * image[..., p1, q0] + a * c * image[..., p1, q1])


def _roi_align_reference(outh, outw, ratio, mode):
    def reference(x):
        y = numpy.zeros((len(_ROIS), x.shape[1], outh, outw))
        for r, (box, b) in enumerate(zip(_ROIS, _ROI_INDICES)):
            y0, x0, y1, x1 = box * _ROI_SCALE
            height, width = max(y1 - y0, 1.0), max(x1 - x0, 1.0)
            grid_h = ratio or math.ceil(height / outh)
            grid_w = ratio or math.ceil(width / outw)
            for i, j in itertools.product(range(outh), range(outw)):
                samples = [_bilinear_at(x[b], y0 + i * height / outh + (u + 0.5) * height / outh / grid_h,
                                        x0 + j * width / outw + (v + 0.5) * width / outw / grid_w)
                           for u in range(grid_h) for v in range(grid_w)]
                usable = [s for s in samples if s is not None]
                if mode == "max":
                    y[r, :, i, j] = numpy.max(usable, axis=0) if usable else -numpy.inf
                else:
                    y[r, :, i, j] = numpy.sum(usable, axis=0) / len(samples) if usable else 0.0
        return y
    return reference


def _roi_x(rng, dt):
    return (distinct(rng, (2, 2, 5, 6), dt, spacing=0.03),)


register(OpSpec("roi_max_pooling_2d",
                lambda x: F.roi_max_pooling_2d(x, *_roi_args(x, boxes=_ROIS_INSIDE), (2, 3), _ROI_SCALE),
                _roi_x, _roi_pool_reference(2, 3, "max", 0, -numpy.inf, _ROIS_INSIDE),
                kinks="ties within a bin: distinct values"))
register(OpSpec("roi_average_pooling_2d", lambda x: F.roi_average_pooling_2d(x, *_roi_args(x), 2, _ROI_SCALE),
                _roi_x, _roi_pool_reference(2, 2, "average", 0, 0.0)))
register(OpSpec("roi_pooling_2d", lambda x: F.roi_pooling_2d(x, *_roi_args(x, True, _ROIS_INSIDE), 3, 2, _ROI_SCALE),
                _roi_x, _roi_pool_reference(3, 2, "max", 1, 0.0, _ROIS_INSIDE),
                kinks="ties within a bin: distinct values"))
register(OpSpec("roi_average_align_2d", lambda x: F.roi_average_align_2d(x, *_roi_args(x), 2, _ROI_SCALE),
                _roi_x, _roi_align_reference(2, 2, None, "average")))
register(OpSpec("roi_average_align_2d[sampling_ratio]",
                lambda x: F.roi_average_align_2d(x, *_roi_args(x), (1, 2), _ROI_SCALE, 2),
                _roi_x, _roi_align_reference(1, 2, 2, "average"), covers=("roi_average_align_2d",)))
register(OpSpec("roi_max_align_2d", lambda x: F.roi_max_align_2d(x, *_roi_args(x), 2, _ROI_SCALE, 2),
                _roi_x, _roi_align_reference(2, 2, 2, "max"), kinks="ties between samples"))


def _spp_reference(levels):
    def reference(x):
        n, c, h, w = x.shape
        parts = []
        for level in range(levels):
            bins = 2 ** level
            kh, kw = math.ceil(h / bins), math.ceil(w / bins)
            ph, pw = (kh * bins - h) // 2, (kw * bins - w) // 2
            out = numpy.full((n, c, bins, bins), -numpy.inf)
            for i, j in itertools.product(range(bins), range(bins)):
                top, left = max(i * kh - ph, 0), max(j * kw - pw, 0)
                out[:, :, i, j] = x[:, :, top:i * kh - ph + kh, left:j * kw - pw + kw].max(axis=(2, 3))
            parts.append(out.reshape(n, -1))
        return numpy.concatenate(parts, axis=1)[:, :, None, None]
    return reference


register(OpSpec("spatial_pyramid_pooling_2d", lambda x: F.spatial_pyramid_pooling_2d(x, 3, "max"),
                lambda rng, dt: (distinct(rng, (2, 2, 4, 6), dt, spacing=0.03),), _spp_reference(3),
                kinks="ties within a window: distinct values"))
