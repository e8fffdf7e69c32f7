"""Specs for ``minigrad.functions.connection``.

The references are naive NumPy loops, independent of the im2col code the ops use.
"""

from __future__ import annotations

import itertools
import math

import numpy

import minigrad.functions as F
from minigrad.testing import OpSpec, register
from minigrad.testing.op_specs.draw import integers, uniform

# --- linear ---
register(OpSpec("linear", F.linear,
                lambda rng, dt: (uniform(rng, (3, 4), dt), uniform(rng, (2, 4), dt), uniform(rng, (2,), dt)),
                lambda x, W, b: numpy.einsum("ni,oi->no", x, W) + b))
register(OpSpec("linear[nobias]", F.linear,
                lambda rng, dt: (uniform(rng, (3, 4), dt), uniform(rng, (2, 4), dt)),
                lambda x, W: numpy.einsum("ni,oi->no", x, W), covers=("linear",)))
register(OpSpec("linear[n_batch_axes=2]", lambda x, W, b: F.linear(x, W, b, n_batch_axes=2),
                lambda rng, dt: (uniform(rng, (2, 3, 2, 2), dt), uniform(rng, (3, 4), dt), uniform(rng, (3,), dt)),
                lambda x, W, b: numpy.einsum("abi,oi->abo", x.reshape(2, 3, 4), W) + b, covers=("linear",)))


# --- convolution_2d / deconvolution_2d: naive loops over every output (or input) pixel ---
def _pair(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


def _conv_reference(stride=1, pad=0, dilate=1, groups=1, cover_all=False):
    (sy, sx), (ph, pw), (dy, dx) = _pair(stride), _pair(pad), _pair(dilate)

    def reference(x, W, b=None):
        n_batch, _, h, w = x.shape
        out_channels, group_channels, kh, kw = W.shape
        span_h, span_w = dy * (kh - 1) + 1, dx * (kw - 1) + 1
        rounding = math.ceil if cover_all else math.floor
        oh = rounding((h + 2 * ph - span_h) / sy) + 1
        ow = rounding((w + 2 * pw - span_w) / sx) + 1
        padded = numpy.zeros(x.shape[:2] + (max(h + 2 * ph, (oh - 1) * sy + span_h),
                                             max(w + 2 * pw, (ow - 1) * sx + span_w)))
        padded[:, :, ph:ph + h, pw:pw + w] = x
        y = numpy.zeros((n_batch, out_channels, oh, ow))
        per_group = out_channels // groups
        for n, o, i, j in itertools.product(range(n_batch), range(out_channels), range(oh), range(ow)):
            first = (o // per_group) * group_channels
            for c, p, q in itertools.product(range(group_channels), range(kh), range(kw)):
                y[n, o, i, j] += W[o, c, p, q] * padded[n, first + c, i * sy + p * dy, j * sx + q * dx]
            y[n, o, i, j] += 0.0 if b is None else b[o]
        return y
    return reference


def _deconv_reference(stride=1, pad=0, dilate=1, groups=1, outsize=None):
    (sy, sx), (ph, pw), (dy, dx) = _pair(stride), _pair(pad), _pair(dilate)

    def reference(x, W, b=None):
        n_batch, in_channels, h, w = x.shape
        _, group_out, kh, kw = W.shape
        H, Wd = outsize or (sy * (h - 1) + dy * (kh - 1) + 1 - 2 * ph, sx * (w - 1) + dx * (kw - 1) + 1 - 2 * pw)
        y = numpy.zeros((n_batch, group_out * groups, H, Wd))
        per_group = in_channels // groups
        for n, c, i, j in itertools.product(range(n_batch), range(in_channels), range(h), range(w)):
            first = (c // per_group) * group_out
            for o, p, q in itertools.product(range(group_out), range(kh), range(kw)):
                r, s = i * sy + p * dy - ph, j * sx + q * dx - pw
                if 0 <= r < H and 0 <= s < Wd:
                    y[n, first + o, r, s] += x[n, c, i, j] * W[c, o, p, q]
        return y if b is None else y + b.reshape(1, -1, 1, 1)
    return reference


def _conv_spec(name, x_shape, W_shape, bias=True, deconv=False, **kwargs):
    op = F.deconvolution_2d if deconv else F.convolution_2d
    out_channels = W_shape[1] * kwargs.get("groups", 1) if deconv else W_shape[0]

    def inputs(rng, dt):
        arrays = (uniform(rng, x_shape, dt), uniform(rng, W_shape, dt))
        return arrays + ((uniform(rng, (out_channels,), dt),) if bias else ())

    reference = (_deconv_reference if deconv else _conv_reference)(**kwargs)
    register(OpSpec(name, lambda *xs: op(*xs, **kwargs), inputs, reference, covers=(op.__name__,)))


_conv_spec("convolution_2d", (2, 3, 5, 5), (2, 3, 3, 3))
_conv_spec("convolution_2d[nobias]", (1, 2, 4, 4), (2, 2, 3, 3), bias=False)
_conv_spec("convolution_2d[stride2,pad1]", (2, 2, 5, 5), (2, 2, 3, 3), stride=2, pad=1)
_conv_spec("convolution_2d[dilate2,pad1]", (1, 2, 5, 5), (2, 2, 2, 2), pad=1, dilate=2)
_conv_spec("convolution_2d[groups2]", (2, 4, 4, 4), (4, 2, 2, 2), groups=2)
_conv_spec("convolution_2d[stride2,cover_all]", (1, 2, 5, 5), (2, 2, 2, 2), stride=2, cover_all=True)
_conv_spec("convolution_2d[rect:stride(1,2),pad(0,1)]", (1, 2, 4, 5), (2, 2, 2, 3), stride=(1, 2), pad=(0, 1))
_conv_spec("deconvolution_2d", (2, 3, 3, 3), (3, 2, 3, 3), deconv=True)
_conv_spec("deconvolution_2d[stride2,pad1]", (1, 2, 3, 3), (2, 2, 3, 3), bias=False, deconv=True, stride=2, pad=1)
_conv_spec("deconvolution_2d[outsize]", (1, 2, 3, 3), (2, 1, 3, 3), deconv=True, stride=2, pad=1, outsize=(6, 6))
_conv_spec("deconvolution_2d[groups2,dilate2]", (1, 4, 3, 3), (4, 1, 2, 2), deconv=True, groups=2, dilate=2)
_conv_spec("deconvolution_2d[rect:stride(2,1),pad(1,0)]", (1, 2, 3, 2), (2, 2, 3, 2), deconv=True,
           stride=(2, 1), pad=(1, 0))


# --- embed_id: integer ids in, rows of W out ---
def _embed_reference(ignore_label=None):
    def reference(ids, W):
        y = numpy.zeros(ids.shape + W.shape[1:])
        for index in numpy.ndindex(ids.shape):
            if ids[index] != ignore_label:
                y[index] = W[ids[index]]
        return y
    return reference


register(OpSpec("embed_id", F.embed_id,
                lambda rng, dt: (integers(rng, (2, 3), 0, 4), uniform(rng, (4, 3), dt)), _embed_reference()))
register(OpSpec("embed_id[ignore_label]", lambda x, W: F.embed_id(x, W, ignore_label=-1),
                lambda rng, dt: (numpy.array([[0, -1, 3], [3, 2, -1]], numpy.int64), uniform(rng, (4, 3), dt)),
                _embed_reference(-1), covers=("embed_id",)))


# --- dilated_convolution_2d: the same loop as convolution_2d's reference, taps dilate apart ---
def _dilated_spec(name, x_shape, W_shape, bias=True, **kwargs):
    def inputs(rng, dt):
        arrays = (uniform(rng, x_shape, dt), uniform(rng, W_shape, dt))
        return arrays + ((uniform(rng, (W_shape[0],), dt),) if bias else ())

    register(OpSpec(name, lambda *xs: F.dilated_convolution_2d(*xs, **kwargs), inputs, _conv_reference(**kwargs),
                    covers=("dilated_convolution_2d",)))


_dilated_spec("dilated_convolution_2d", (2, 2, 5, 5), (2, 2, 2, 2), dilate=2)
_dilated_spec("dilated_convolution_2d[nobias,rect:dilate(1,2),pad1]", (1, 2, 4, 5), (2, 2, 2, 2), bias=False,
              pad=1, dilate=(1, 2))
_dilated_spec("dilated_convolution_2d[stride2,cover_all]", (1, 1, 6, 6), (2, 1, 2, 2), stride=2, dilate=2,
              cover_all=True)


# --- depthwise_convolution_2d: output channel c*M + m is channel c convolved with W[m, c], by hand ---
def _depthwise_reference(stride=1, pad=0):
    (sy, sx), (ph, pw) = _pair(stride), _pair(pad)

    def reference(x, W, b=None):
        n_batch, channels, h, w = x.shape
        multiplier, _, kh, kw = W.shape
        padded = numpy.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
        oh, ow = (h + 2 * ph - kh) // sy + 1, (w + 2 * pw - kw) // sx + 1
        y = numpy.zeros((n_batch, channels * multiplier, oh, ow))
        for n, c, m, i, j in itertools.product(range(n_batch), range(channels), range(multiplier), range(oh),
                                               range(ow)):
            for p, q in itertools.product(range(kh), range(kw)):
                y[n, c * multiplier + m, i, j] += W[m, c, p, q] * padded[n, c, i * sy + p, j * sx + q]
            y[n, c * multiplier + m, i, j] += 0.0 if b is None else b[c * multiplier + m]
        return y
    return reference


def _depthwise_spec(name, x_shape, W_shape, bias=True, **kwargs):
    def inputs(rng, dt):
        arrays = (uniform(rng, x_shape, dt), uniform(rng, W_shape, dt))
        return arrays + ((uniform(rng, (W_shape[0] * W_shape[1],), dt),) if bias else ())

    register(OpSpec(name, lambda *xs: F.depthwise_convolution_2d(*xs, **kwargs), inputs,
                    _depthwise_reference(**kwargs), covers=("depthwise_convolution_2d",)))


_depthwise_spec("depthwise_convolution_2d", (2, 3, 4, 4), (2, 3, 2, 2))
_depthwise_spec("depthwise_convolution_2d[nobias,stride2,pad1,rect]", (1, 2, 5, 4), (3, 2, 3, 2), bias=False,
                stride=2, pad=1)


# --- bilinear: the sums over j and k written out ---
def _bilinear_reference(e1, e2, W, V1=None, V2=None, b=None):
    e1, e2 = e1.reshape(len(e1), -1), e2.reshape(len(e2), -1)
    J, K, L = W.shape
    y = numpy.zeros((len(e1), L))
    for n, j, k in itertools.product(range(len(e1)), range(J), range(K)):
        y[n] += e1[n, j] * e2[n, k] * W[j, k]
    if V1 is not None:
        y += e1 @ V1 + e2 @ V2 + b
    return y


register(OpSpec("bilinear", F.bilinear,
                lambda rng, dt: tuple(uniform(rng, shape, dt) for shape in ((3, 4), (3, 2), (4, 2, 3), (4, 3),
                                                                             (2, 3), (3,))),
                _bilinear_reference))
register(OpSpec("bilinear[nobias,e1 flattened]", F.bilinear,
                lambda rng, dt: tuple(uniform(rng, shape, dt) for shape in ((2, 2, 2), (2, 3), (4, 3, 2))),
                _bilinear_reference, covers=("bilinear",)))


# --- convolution_nd / deconvolution_nd: the same loops over every output (or input) position, any N ---
def _tuple(v, nd):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * nd


def _conv_nd_reference(stride=1, pad=0, dilate=1, groups=1, cover_all=False):
    def reference(x, W, b=None):
        nd = x.ndim - 2
        s, p, d = _tuple(stride, nd), _tuple(pad, nd), _tuple(dilate, nd)
        out_channels, group_channels, *ksize = W.shape
        rounding = math.ceil if cover_all else math.floor
        span = [di * (k - 1) + 1 for di, k in zip(d, ksize)]
        out = [rounding((n + 2 * pi - sp) / si) + 1 for n, pi, sp, si in zip(x.shape[2:], p, span, s)]
        padded = numpy.zeros(x.shape[:2] + tuple(max(n + 2 * pi, (o - 1) * si + sp)
                                                 for n, pi, o, si, sp in zip(x.shape[2:], p, out, s, span)))
        padded[(slice(None), slice(None)) + tuple(slice(pi, pi + n) for pi, n in zip(p, x.shape[2:]))] = x
        y = numpy.zeros((x.shape[0], out_channels, *out))
        per_group = out_channels // groups
        for n, o in itertools.product(range(x.shape[0]), range(out_channels)):
            first = (o // per_group) * group_channels
            for position in itertools.product(*map(range, out)):
                for c in range(group_channels):
                    for offset in itertools.product(*map(range, ksize)):
                        where = tuple(i * si + k * di for i, si, k, di in zip(position, s, offset, d))
                        y[(n, o) + position] += W[(o, c) + offset] * padded[(n, first + c) + where]
                y[(n, o) + position] += 0.0 if b is None else b[o]
        return y
    return reference


def _deconv_nd_reference(stride=1, pad=0, dilate=1, groups=1, outsize=None):
    def reference(x, W, b=None):
        nd = x.ndim - 2
        s, p, d = _tuple(stride, nd), _tuple(pad, nd), _tuple(dilate, nd)
        in_channels, group_out, *ksize = W.shape
        out = outsize or tuple(si * (n - 1) + di * (k - 1) + 1 - 2 * pi
                               for n, si, di, k, pi in zip(x.shape[2:], s, d, ksize, p))
        y = numpy.zeros((x.shape[0], group_out * groups, *out))
        per_group = in_channels // groups
        for n, c in itertools.product(range(x.shape[0]), range(in_channels)):
            first = (c // per_group) * group_out
            for position in itertools.product(*map(range, x.shape[2:])):
                for o, offset in itertools.product(range(group_out), itertools.product(*map(range, ksize))):
                    where = tuple(i * si + k * di - pi for i, si, k, di, pi in zip(position, s, offset, d, p))
                    if all(0 <= w < size for w, size in zip(where, out)):
                        y[(n, first + o) + where] += x[(n, c) + position] * W[(c, o) + offset]
        return y if b is None else y + b.reshape((1, -1) + (1,) * nd)
    return reference


def _conv_nd_spec(name, x_shape, W_shape, bias=True, deconv=False, **kwargs):
    op = F.deconvolution_nd if deconv else F.convolution_nd
    out_channels = W_shape[1] * kwargs.get("groups", 1) if deconv else W_shape[0]

    def inputs(rng, dt):
        arrays = (uniform(rng, x_shape, dt), uniform(rng, W_shape, dt))
        return arrays + ((uniform(rng, (out_channels,), dt),) if bias else ())

    reference = (_deconv_nd_reference if deconv else _conv_nd_reference)(**kwargs)
    register(OpSpec(name, lambda *xs: op(*xs, **kwargs), inputs, reference, covers=(op.__name__,)))


_conv_nd_spec("convolution_nd[1d]", (2, 2, 7), (3, 2, 3))
_conv_nd_spec("convolution_nd[1d,stride2,pad1,dilate2,cover_all]", (1, 2, 8), (2, 2, 2), bias=False, stride=2, pad=1,
              dilate=2, cover_all=True)
_conv_nd_spec("convolution_nd[1d,groups2]", (1, 4, 5), (2, 2, 2), groups=2)
_conv_nd_spec("convolution_nd[3d]", (1, 2, 3, 4, 3), (2, 2, 2, 2, 2))
_conv_nd_spec("convolution_nd[3d,stride(1,2,1),pad(1,0,1)]", (1, 1, 3, 4, 2), (2, 1, 2, 2, 2), stride=(1, 2, 1),
              pad=(1, 0, 1))
_conv_nd_spec("deconvolution_nd[1d]", (2, 2, 3), (2, 3, 3), deconv=True)
_conv_nd_spec("deconvolution_nd[1d,stride2,pad1,dilate2,groups2]", (1, 4, 3), (4, 1, 2), bias=False, deconv=True,
              stride=2, pad=1, dilate=2, groups=2)
_conv_nd_spec("deconvolution_nd[1d,outsize]", (1, 2, 3), (2, 1, 3), deconv=True, stride=2, pad=1, outsize=(6,))
_conv_nd_spec("deconvolution_nd[3d,stride2,pad1]", (1, 2, 2, 2, 2), (2, 2, 3, 2, 2), deconv=True, stride=2, pad=1)
