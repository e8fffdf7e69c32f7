"""Specs for ``minigrad.functions.array``."""

from __future__ import annotations

import itertools
import math

import numpy

import minigrad.functions as F
from minigrad import backend
from minigrad.testing import OpSpec, register
from minigrad.testing.op_specs.draw import away_from, uniform

# array manipulation takes integer arrays as NumPy does (accepts_integers=True): no [bad:int] case for these
register(OpSpec("identity", lambda x, y: F.identity(x, y),
                lambda rng, dt: (uniform(rng, (2, 3), dt), uniform(rng, (3,), dt)),
                lambda a, b: (a, b), linear_in=(0, 1), accepts_integers=True))
register(OpSpec("reshape", lambda x: F.reshape(x, (3, -1)), lambda rng, dt: (uniform(rng, (2, 3, 2), dt),),
                lambda a: a.reshape(3, 4), linear_in=(0,), accepts_integers=True))
register(OpSpec("transpose", lambda x: F.transpose(x, (2, 0, 1)), lambda rng, dt: (uniform(rng, (2, 3, 4), dt),),
                lambda a: numpy.transpose(a, (2, 0, 1)), linear_in=(0,), accepts_integers=True))
register(OpSpec("broadcast_to", lambda x: F.broadcast_to(x, (2, 3, 4)), lambda rng, dt: (uniform(rng, (3, 1), dt),),
                lambda a: numpy.broadcast_to(a, (2, 3, 4)), linear_in=(0,), accepts_integers=True))
register(OpSpec("broadcast", F.broadcast,
                lambda rng, dt: (uniform(rng, (3, 1), dt), uniform(rng, (2, 1, 4), dt), uniform(rng, (2, 3, 4), dt)),
                lambda a, b, c: tuple(numpy.broadcast_arrays(a, b, c)), accepts_integers=True))
register(OpSpec("broadcast[one input]", lambda x: F.broadcast(x), lambda rng, dt: (uniform(rng, (2, 3), dt),),
                lambda a: a, covers=("broadcast",), linear_in=(0,), accepts_integers=True))
register(OpSpec("cast", lambda x: F.cast(x, numpy.float64), lambda rng, dt: (uniform(rng, (2, 3), dt),),
                lambda a: a, dtypes=("float16", "float32"), preserves_dtype=False, output_dtype="float64",
                linear_in=(0,), kind="elementwise", accepts_integers=True))
register(OpSpec("cast[to float32]", lambda x: F.cast(x, numpy.float32), lambda rng, dt: (uniform(rng, (2, 3), dt),),
                lambda a: a, dtypes=("float64",), preserves_dtype=False, output_dtype="float32", covers=("cast",),
                check_forward_options={"float64": {"atol": 1e-7, "rtol": 1e-6}}, accepts_integers=True))
register(OpSpec("get_item", lambda x: F.get_item(x, (slice(None), numpy.array([2, 0, 2]))),
                lambda rng, dt: (uniform(rng, (2, 3), dt),), lambda a: a[:, [2, 0, 2]], linear_in=(0,),
                accepts_integers=True))
register(OpSpec("get_item[basic]", lambda x: x[1:, None, ..., ::2], lambda rng, dt: (uniform(rng, (3, 4), dt),),
                lambda a: a[1:, None, ..., ::2], covers=("get_item",), linear_in=(0,), accepts_integers=True))
register(OpSpec("get_item[bool]", lambda x: x[numpy.array([True, False, True])],
                lambda rng, dt: (uniform(rng, (3, 2), dt),), lambda a: a[[0, 2]], covers=("get_item",), linear_in=(0,),
                accepts_integers=True))

# --- reshapes and axis permutations ---
register(OpSpec("expand_dims", lambda x: F.expand_dims(x, -2), lambda rng, dt: (uniform(rng, (2, 3), dt),),
                lambda a: a[:, None, :], linear_in=(0,), accepts_integers=True))
register(OpSpec("squeeze", F.squeeze, lambda rng, dt: (uniform(rng, (1, 3, 1, 2), dt),),
                lambda a: a.reshape(3, 2), linear_in=(0,), accepts_integers=True))
register(OpSpec("squeeze[axis]", lambda x: F.squeeze(x, axis=(0, -1)), lambda rng, dt: (uniform(rng, (1, 3, 1), dt),),
                lambda a: a[0, :, 0], covers=("squeeze",), linear_in=(0,), accepts_integers=True))
register(OpSpec("flatten", F.flatten, lambda rng, dt: (uniform(rng, (2, 3, 2), dt),), lambda a: a.reshape(-1),
                linear_in=(0,), accepts_integers=True))
register(OpSpec("swapaxes", lambda x: F.swapaxes(x, 0, 2), lambda rng, dt: (uniform(rng, (2, 3, 4), dt),),
                lambda a: numpy.transpose(a, (2, 1, 0)), linear_in=(0,), accepts_integers=True))
register(OpSpec("moveaxis", lambda x: F.moveaxis(x, (0, 1), (-1, 0)), lambda rng, dt: (uniform(rng, (2, 3, 4), dt),),
                lambda a: numpy.transpose(a, (1, 2, 0)), linear_in=(0,), accepts_integers=True))


# --- joining and splitting (references build the result by hand, element block by block) ---
def _concat_reference(axis):
    def reference(*arrays):
        shape = list(arrays[0].shape)
        shape[axis] = sum(a.shape[axis] for a in arrays)
        out, start = numpy.empty(shape), 0
        for a in arrays:
            index = (slice(None),) * axis + (slice(start, start + a.shape[axis]),)
            out[index] = a
            start += a.shape[axis]
        return out
    return reference


register(OpSpec("concat", lambda a, b, c: F.concat((a, b, c)),
                lambda rng, dt: (uniform(rng, (2, 1, 2), dt), uniform(rng, (2, 3, 2), dt), uniform(rng, (2, 2, 2), dt)),
                _concat_reference(1), linear_in=(0, 1, 2)))
register(OpSpec("concat[axis=-1]", lambda a, b: F.concat([a, b], axis=-1),
                lambda rng, dt: (uniform(rng, (3, 2), dt), uniform(rng, (3, 1), dt)),
                _concat_reference(1), covers=("concat",), linear_in=(0, 1)))
register(OpSpec("stack", lambda a, b: F.stack((a, b), axis=1),
                lambda rng, dt: (uniform(rng, (2, 3), dt), uniform(rng, (2, 3), dt)),
                lambda a, b: _concat_reference(1)(a[:, None], b[:, None]), linear_in=(0, 1)))
register(OpSpec("hstack", lambda a, b: F.hstack((a, b)),
                lambda rng, dt: (uniform(rng, (2, 1), dt), uniform(rng, (2, 3), dt)), _concat_reference(1),
                linear_in=(0, 1)))
register(OpSpec("hstack[1d]", lambda a, b: F.hstack((a, b)),
                lambda rng, dt: (uniform(rng, (2,), dt), uniform(rng, (3,), dt)), _concat_reference(0),
                covers=("hstack",), linear_in=(0, 1)))
register(OpSpec("vstack", lambda a, b: F.vstack((a, b)),
                lambda rng, dt: (uniform(rng, (1, 3), dt), uniform(rng, (3,), dt)),
                lambda a, b: _concat_reference(0)(a, b[None, :]), linear_in=(0, 1)))
register(OpSpec("split_axis", lambda x: F.split_axis(x, [1, 3], axis=1),
                lambda rng, dt: (uniform(rng, (2, 5), dt),),
                lambda a: (a[:, :1], a[:, 1:3], a[:, 3:]), linear_in=(0,), accepts_integers=True))
register(OpSpec("split_axis[sections]", lambda x: F.split_axis(x, 2, axis=0),
                lambda rng, dt: (uniform(rng, (4, 3), dt),),
                lambda a: (a[:2], a[2:]), covers=("split_axis",), linear_in=(0,), accepts_integers=True))
# Only some outputs are used: the others' gradients never arrive and count as zeros.
register(OpSpec("split_axis[unused outputs]", lambda x: F.split_axis(x, [1, 2, 4], axis=-1)[1::2],
                lambda rng, dt: (uniform(rng, (2, 3, 5), dt),),
                lambda a: (a[..., 1:2], a[..., 4:]), covers=("split_axis",), linear_in=(0,), accepts_integers=True))
register(OpSpec("separate", lambda x: F.separate(x, axis=1), lambda rng, dt: (uniform(rng, (2, 3, 2), dt),),
                lambda a: tuple(a[:, i, :] for i in range(3)), linear_in=(0,), accepts_integers=True))
register(OpSpec("separate[unused outputs]", lambda x: F.separate(x)[2], lambda rng, dt: (uniform(rng, (4, 3), dt),),
                lambda a: a[2], covers=("separate",), linear_in=(0,), accepts_integers=True))


# --- repetition ---
def _tile_reference(a, reps):
    out = numpy.empty((a.shape[0] * reps[0], a.shape[1] * reps[1]))
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = a[i % a.shape[0], j % a.shape[1]]
    return out


register(OpSpec("tile", lambda x: F.tile(x, (2, 3)), lambda rng, dt: (uniform(rng, (2, 2), dt),),
                lambda a: _tile_reference(a, (2, 3)), linear_in=(0,), accepts_integers=True))
register(OpSpec("tile[promote]", lambda x: F.tile(x, (2, 1, 2)), lambda rng, dt: (uniform(rng, (3,), dt),),
                lambda a: numpy.stack([_tile_reference(a[None, :], (1, 2))] * 2), covers=("tile",), linear_in=(0,),
                accepts_integers=True))
register(OpSpec("repeat", lambda x: F.repeat(x, 2, axis=1), lambda rng, dt: (uniform(rng, (2, 3), dt),),
                lambda a: a[:, [0, 0, 1, 1, 2, 2]], linear_in=(0,), accepts_integers=True))
register(OpSpec("repeat[counts]", lambda x: F.repeat(x, (2, 0, 3), axis=0), lambda rng, dt: (uniform(rng, (3, 2), dt),),
                lambda a: a[[0, 0, 2, 2, 2]], covers=("repeat",), linear_in=(0,), accepts_integers=True))
register(OpSpec("repeat[axis=None]", lambda x: F.repeat(x, 3), lambda rng, dt: (uniform(rng, (2, 2), dt),),
                lambda a: numpy.array([v for v in a.reshape(-1) for _ in range(3)]), covers=("repeat",),
                linear_in=(0,), accepts_integers=True))


# --- pad: one spec per mode; references index the source element by hand ---
def _pad_reference(a, widths, source):
    out = numpy.empty(tuple(n + b + e for n, (b, e) in zip(a.shape, widths)))
    for index in numpy.ndindex(out.shape):
        picked = [source(i - b, n) for i, n, (b, _) in zip(index, a.shape, widths)]
        out[index] = numpy.nan if None in picked else a[tuple(picked)]
    return out


def _reflect(i, n):
    while not 0 <= i < n:
        i = -i if i < 0 else 2 * (n - 1) - i
    return i


register(OpSpec("pad[constant]", lambda x: F.pad(x, ((1, 0), (2, 1)), "constant", constant_values=0.5),
                lambda rng, dt: (uniform(rng, (2, 3), dt),),
                lambda a: numpy.nan_to_num(_pad_reference(a, ((1, 0), (2, 1)), lambda i, n: i if 0 <= i < n else None),
                                           nan=0.5),
                covers=("pad",), linear_in=(0,), accepts_integers=True))
def _pad_constant_reference(a, widths, values):
    """numpy.pad's constant mode rebuilt from concatenations, one axis after the other."""
    out = a.astype(numpy.float64)
    for axis, ((before, after), (v_before, v_after)) in enumerate(zip(widths, values)):
        side = list(out.shape)
        parts = []
        for width, value in ((before, v_before), (after, v_after)):
            side[axis] = width
            parts.append(numpy.full(side, value))
        out = numpy.concatenate([parts[0], out, parts[1]], axis=axis)
    return out


register(OpSpec("pad[constant-per-side]",
                lambda x: F.pad(x, ((2, 1), (1, 2)), "constant", constant_values=((0.25, -1.0), (2.0, -0.5))),
                lambda rng, dt: (uniform(rng, (2, 3), dt),),
                lambda a: _pad_constant_reference(a, ((2, 1), (1, 2)), ((0.25, -1.0), (2.0, -0.5))),
                covers=("pad",), accepts_integers=True))
register(OpSpec("pad[edge]", lambda x: F.pad(x, ((2, 1), (0, 3)), "edge"), lambda rng, dt: (uniform(rng, (2, 3), dt),),
                lambda a: _pad_reference(a, ((2, 1), (0, 3)), lambda i, n: min(max(i, 0), n - 1)), covers=("pad",),
                linear_in=(0,), accepts_integers=True))
# Widths beyond the axis length reflect more than once.
register(OpSpec("pad[reflect]", lambda x: F.pad(x, ((1, 2), (4, 1)), "reflect"),
                lambda rng, dt: (uniform(rng, (3, 3), dt),),
                lambda a: _pad_reference(a, ((1, 2), (4, 1)), _reflect), covers=("pad",), linear_in=(0,),
                accepts_integers=True))


# --- selection ---
register(OpSpec("where", lambda c, x, y: F.where(c, x, y),
                lambda rng, dt: (rng.uniform(size=(2, 3)) < 0.5, uniform(rng, (2, 3), dt), uniform(rng, (2, 3), dt)),
                lambda c, a, b: numpy.array([[a[i, j] if c[i, j] else b[i, j] for j in range(3)] for i in range(2)]),
                accepts_integers=True))
register(OpSpec("where[broadcast]", lambda c, x, y: F.where(c, x, y),
                lambda rng, dt: (rng.uniform(size=(2, 1, 3)) < 0.5, uniform(rng, (4, 1), dt), uniform(rng, (3,), dt)),
                lambda c, a, b: numpy.where(c, a, b), covers=("where",), accepts_integers=True))
register(OpSpec("select_item", F.select_item,
                lambda rng, dt: (uniform(rng, (4, 3), dt), numpy.array([2, 0, 1, 2], dtype=numpy.int32)),
                lambda a, t: numpy.array([a[i, t[i]] for i in range(len(t))]), accepts_integers=True))


# --- im2col: the reference copies every window element by element ---
def _im2col_reference(ksize, stride=1, pad=0, dilate=1, cover_all=False):
    def two(v):
        return tuple(v) if isinstance(v, tuple) else (v, v)

    (kh, kw), (sy, sx), (ph, pw), (dy, dx) = two(ksize), two(stride), two(pad), two(dilate)

    def reference(x):
        n_batch, channels, h, w = x.shape
        rounding = math.ceil if cover_all else math.floor
        oh = rounding((h + 2 * ph - dy * (kh - 1) - 1) / sy) + 1
        ow = rounding((w + 2 * pw - dx * (kw - 1) - 1) / sx) + 1
        y = numpy.zeros((n_batch, channels * kh * kw, oh, ow))
        for n, c, i, j, p, q in itertools.product(range(n_batch), range(channels), range(oh), range(ow),
                                                  range(kh), range(kw)):
            r, s = i * sy + p * dy - ph, j * sx + q * dx - pw
            if 0 <= r < h and 0 <= s < w:
                y[n, (c * kh + p) * kw + q, i, j] = x[n, c, r, s]
        return y
    return reference


def _im2col_spec(name, x_shape, ksize, **kwargs):
    register(OpSpec(name, lambda x: F.im2col(x, ksize, **kwargs), lambda rng, dt: (uniform(rng, x_shape, dt),),
                    _im2col_reference(ksize, **kwargs), covers=("im2col",)))


_im2col_spec("im2col", (2, 2, 3, 3), 2)
_im2col_spec("im2col[k3,stride2,pad1]", (1, 2, 5, 4), 3, stride=2, pad=1)
_im2col_spec("im2col[rect k(2,3),dilate2,cover_all]", (1, 1, 6, 7), (2, 3), stride=(2, 3), dilate=2, cover_all=True)


# --- flips, rollaxis and dstack: references index or stack by hand ---
register(OpSpec("flip", lambda x: F.flip(x, -2), lambda rng, dt: (uniform(rng, (2, 3, 2), dt),),
                lambda a: numpy.stack([a[:, 2 - i] for i in range(3)], axis=1), linear_in=(0,), accepts_integers=True))
register(OpSpec("fliplr", F.fliplr, lambda rng, dt: (uniform(rng, (2, 3), dt),),
                lambda a: numpy.array([[row[2], row[1], row[0]] for row in a]), linear_in=(0,), accepts_integers=True))
register(OpSpec("flipud", F.flipud, lambda rng, dt: (uniform(rng, (3, 2), dt),),
                lambda a: numpy.array([a[2], a[1], a[0]]), linear_in=(0,), accepts_integers=True))
register(OpSpec("rollaxis", lambda x: F.rollaxis(x, 2, 1), lambda rng, dt: (uniform(rng, (2, 3, 4), dt),),
                lambda a: numpy.einsum("ijk->ikj", a), linear_in=(0,), accepts_integers=True))
register(OpSpec("rollaxis[start=ndim]", lambda x: F.rollaxis(x, 0, 3), lambda rng, dt: (uniform(rng, (2, 3, 4), dt),),
                lambda a: numpy.einsum("ijk->jki", a), covers=("rollaxis",), linear_in=(0,), accepts_integers=True))


def _depth_stack(*arrays):
    shaped = [a.reshape(1, -1, 1) if a.ndim == 1 else a[:, :, None] if a.ndim == 2 else a for a in arrays]
    out = numpy.zeros(shaped[0].shape[:2] + (sum(s.shape[2] for s in shaped),))
    offset = 0
    for s in shaped:
        out[:, :, offset:offset + s.shape[2]] = s
        offset += s.shape[2]
    return out


register(OpSpec("dstack", lambda a, b, c: F.dstack((a, b, c)),
                lambda rng, dt: (uniform(rng, (2, 3), dt), uniform(rng, (2, 3, 2), dt), uniform(rng, (2, 3), dt)),
                _depth_stack, linear_in=(0, 1, 2)))
register(OpSpec("dstack[1-d]", lambda a, b: F.dstack((a, b)), lambda rng, dt: (uniform(rng, (3,), dt),
                                                                                 uniform(rng, (3,), dt)),
                _depth_stack, covers=("dstack",), linear_in=(0, 1)))


# --- diagonal: the reference picks x[..., i, i + offset] by hand, axes moved last ---
def _diagonal_reference(offset, axis1, axis2):
    def reference(a):
        moved = numpy.moveaxis(a, (axis1, axis2), (-2, -1))
        rows, cols = moved.shape[-2:]
        picks = [moved[..., i, i + offset] for i in range(rows) if 0 <= i + offset < cols]
        return numpy.stack(picks, axis=-1) if picks else numpy.zeros(moved.shape[:-2] + (0,))
    return reference


register(OpSpec("diagonal", F.diagonal, lambda rng, dt: (uniform(rng, (3, 3), dt),), _diagonal_reference(0, 0, 1),
                linear_in=(0,), accepts_integers=True))
register(OpSpec("diagonal[offset=1,axes 2,0]", lambda x: F.diagonal(x, 1, 2, 0),
                lambda rng, dt: (uniform(rng, (3, 2, 4), dt),), _diagonal_reference(1, 2, 0), covers=("diagonal",),
                linear_in=(0,), accepts_integers=True))
register(OpSpec("diagonal[offset=-1,axes 1,2]", lambda x: F.diagonal(x, -1, axis1=1, axis2=2),
                lambda rng, dt: (uniform(rng, (2, 4, 3), dt),), _diagonal_reference(-1, 1, 2), covers=("diagonal",),
                linear_in=(0,), accepts_integers=True))


# --- transpose_sequence: the reference picks row t of each long-enough sequence by hand ---
def _transpose_sequence_reference(*xs):
    return tuple(numpy.stack([x[t] for x in xs if len(x) > t]) for t in range(len(xs[0])))


register(OpSpec("transpose_sequence", lambda a, b, c: F.transpose_sequence([a, b, c]),
                lambda rng, dt: (uniform(rng, (3, 2), dt), uniform(rng, (3, 2), dt), uniform(rng, (1, 2), dt)),
                _transpose_sequence_reference, linear_in=(0, 1, 2)))
# --- pad_sequence, permutate, copy, forget ---
def _pad_sequence_reference(length=None, padding=0.0):
    def reference(*arrays):
        n = max(len(a) for a in arrays) if length is None else length
        out = numpy.full((len(arrays), n) + arrays[0].shape[1:], padding)
        for i, a in enumerate(arrays):
            for t in range(len(a)):
                out[i, t] = a[t]
        return out
    return reference


register(OpSpec("pad_sequence", lambda a, b, c: F.pad_sequence([a, b, c]),
                lambda rng, dt: (uniform(rng, (3, 2), dt), uniform(rng, (1, 2), dt), uniform(rng, (2, 2), dt)),
                _pad_sequence_reference()))
register(OpSpec("pad_sequence[length,padding]", lambda a, b: F.pad_sequence((a, b), length=4, padding=-0.5),
                lambda rng, dt: (uniform(rng, (2,), dt), uniform(rng, (3,), dt)),
                _pad_sequence_reference(4, -0.5), covers=("pad_sequence",)))


def _permutate_reference(order, axis, inv):
    def reference(a, *_):
        moved = numpy.moveaxis(a, axis, 0)
        out = numpy.empty_like(moved)
        for i, j in enumerate(order):
            if inv:
                out[j] = moved[i]
            else:
                out[i] = moved[j]
        return numpy.moveaxis(out, 0, axis)
    return reference


register(OpSpec("permutate", lambda x: F.permutate(x, numpy.array([2, 0, 3, 1], dtype=numpy.int32)),
                lambda rng, dt: (uniform(rng, (4, 3), dt),), _permutate_reference([2, 0, 3, 1], 0, False),
                linear_in=(0,), accepts_integers=True))
register(OpSpec("permutate[inv,axis=-1,indices input]", lambda x, p: F.permutate(x, p, axis=-1, inv=True),
                lambda rng, dt: (uniform(rng, (2, 3), dt), numpy.array([1, 2, 0], dtype=numpy.int32)),
                _permutate_reference([1, 2, 0], 1, True), covers=("permutate",), accepts_integers=True))
# Same device: the sweep's backend (NumPy or CuPy); crossing devices is tested in tests/functions/array.
register(OpSpec("copy", lambda x: F.copy(x, backend.get_device_from_array(x.array)),
                lambda rng, dt: (uniform(rng, (2, 3), dt),), lambda a: a, kind="elementwise", accepts_integers=True))
register(OpSpec("forget", lambda x, y: F.forget(lambda a, b: F.tanh(a * b) + a * a, x, y),
                lambda rng, dt: (uniform(rng, (2, 3), dt), uniform(rng, (2, 3), dt)),
                lambda a, b: numpy.tanh(a * b) + a * a, accepts_integers=True))
register(OpSpec("forget[two outputs]", lambda x: F.forget(lambda a: (F.exp(a), F.sum(a * a, axis=1)), x),
                lambda rng, dt: (uniform(rng, (2, 3), dt),),
                lambda a: (numpy.exp(a), (a * a).sum(axis=1)), covers=("forget",), accepts_integers=True))


# --- depth2space / space2depth: the references move each element by its index formula ---
def _depth2space_reference(r):
    def reference(a):
        n, channels, h, w = a.shape
        c = channels // (r * r)
        out = numpy.empty((n, c, h * r, w * r))
        for b, k, p, q, i, j in itertools.product(range(n), range(c), range(h), range(w), range(r), range(r)):
            out[b, k, p * r + i, q * r + j] = a[b, (i * r + j) * c + k, p, q]
        return out
    return reference


def _space2depth_reference(r):
    def reference(a):
        n, c, height, width = a.shape
        h, w = height // r, width // r
        out = numpy.empty((n, c * r * r, h, w))
        for b, k, p, q, i, j in itertools.product(range(n), range(c), range(h), range(w), range(r), range(r)):
            out[b, (i * r + j) * c + k, p, q] = a[b, k, p * r + i, q * r + j]
        return out
    return reference


register(OpSpec("depth2space", lambda x: F.depth2space(x, 2), lambda rng, dt: (uniform(rng, (2, 8, 2, 3), dt),),
                _depth2space_reference(2), linear_in=(0,), accepts_integers=True))
register(OpSpec("space2depth", lambda x: F.space2depth(x, 2), lambda rng, dt: (uniform(rng, (2, 2, 4, 6), dt),),
                _space2depth_reference(2), linear_in=(0,), accepts_integers=True))
register(OpSpec("space2depth[r=3]", lambda x: F.space2depth(x, 3), lambda rng, dt: (uniform(rng, (1, 1, 3, 6), dt),),
                _space2depth_reference(3), covers=("space2depth",), linear_in=(0,), accepts_integers=True))


# --- resize_images: the reference samples each output pixel from its position formula ---
def _resize_reference(out_shape, mode, align_corners):
    def position(i, n_in, n_out):
        if mode == "nearest":
            return float(min(math.floor(i * n_in / n_out), n_in - 1))
        if align_corners:
            return 0.0 if n_out == 1 else i * (n_in - 1) / (n_out - 1)
        return max((i + 0.5) * n_in / n_out - 0.5, 0.0)

    def reference(a):
        n, c, h, w = a.shape
        out = numpy.empty((n, c) + tuple(out_shape))
        for i, j in itertools.product(range(out_shape[0]), range(out_shape[1])):
            v, u = position(i, h, out_shape[0]), position(j, w, out_shape[1])
            v0, u0 = math.floor(v), math.floor(u)
            v1, u1 = min(v0 + 1, h - 1), min(u0 + 1, w - 1)
            fv, fu = v - v0, u - u0
            out[:, :, i, j] = ((1 - fv) * (1 - fu) * a[:, :, v0, u0] + (1 - fv) * fu * a[:, :, v0, u1]
                               + fv * (1 - fu) * a[:, :, v1, u0] + fv * fu * a[:, :, v1, u1])
        return out
    return reference


def _resize_spec(name, x_shape, out_shape, **kwargs):
    mode, align_corners = kwargs.get("mode", "bilinear"), kwargs.get("align_corners", True)
    register(OpSpec(name, lambda x: F.resize_images(x, out_shape, **kwargs),
                    lambda rng, dt: (uniform(rng, x_shape, dt),), _resize_reference(out_shape, mode, align_corners),
                    covers=("resize_images",),
                    kinks="none in x: linear in x (nearest is piecewise constant in position only)"))


_resize_spec("resize_images", (2, 2, 3, 4), (5, 3))
_resize_spec("resize_images[align_corners=False,up]", (1, 2, 2, 3), (5, 7), align_corners=False)
_resize_spec("resize_images[align_corners=False,down]", (1, 1, 5, 6), (2, 4), align_corners=False)
_resize_spec("resize_images[to 1x1]", (1, 2, 3, 3), (1, 1))
_resize_spec("resize_images[nearest,up]", (1, 2, 2, 3), (5, 4), mode="nearest")
_resize_spec("resize_images[nearest,down]", (2, 1, 5, 6), (2, 4), mode="nearest")


# --- scatter_add: numpy.add.at on a copy ---
def _scatter_add_reference(slices):
    def reference(a, b):
        out = a.copy()
        numpy.add.at(out, slices, b)
        return out
    return reference


register(OpSpec("scatter_add", lambda a, b: F.scatter_add(a, (numpy.array([0, 2, 0]), slice(1, None)), b),
                lambda rng, dt: (uniform(rng, (3, 3), dt), uniform(rng, (3, 2), dt)),
                _scatter_add_reference((numpy.array([0, 2, 0]), slice(1, None))), linear_in=(0, 1)))
register(OpSpec("scatter_add[basic]", lambda a, b: F.scatter_add(a, (slice(1, 3), None, Ellipsis, 0), b),
                lambda rng, dt: (uniform(rng, (3, 2, 2), dt), uniform(rng, (2, 1, 2), dt)),
                _scatter_add_reference((slice(1, 3), None, Ellipsis, 0)), covers=("scatter_add",), linear_in=(0, 1)))
register(OpSpec("scatter_add[bool]", lambda a, b: F.scatter_add(a, numpy.array([True, False, True]), b),
                lambda rng, dt: (uniform(rng, (3, 2), dt), uniform(rng, (2, 2), dt)),
                _scatter_add_reference(numpy.array([True, False, True])), covers=("scatter_add",), linear_in=(0, 1)))


# --- the spatial transformer: an affine grid, and bilinear reads with zeros outside the image ---
def _st_grid_reference(theta, out_h=3, out_w=4):
    grid = numpy.zeros((theta.shape[0], 2, out_h, out_w))
    for i in range(out_h):
        for j in range(out_w):
            point = numpy.array([-1 + 2 * j / (out_w - 1), -1 + 2 * i / (out_h - 1), 1.0])
            grid[:, :, i, j] = theta @ point
    return grid


def _st_sampler_reference(x, grid):
    n, c, h, w = x.shape
    y = numpy.zeros((n, c) + grid.shape[2:])
    for b in range(n):
        for i, j in itertools.product(range(grid.shape[2]), range(grid.shape[3])):
            u = min(max((grid[b, 0, i, j] + 1) * (w - 1) / 2, -1.0), float(w))   # pixel coordinates
            v = min(max((grid[b, 1, i, j] + 1) * (h - 1) / 2, -1.0), float(h))
            u0, v0 = math.floor(u), math.floor(v)
            for row, col in itertools.product((v0, v0 + 1), (u0, u0 + 1)):
                if 0 <= row < h and 0 <= col < w:
                    y[b, :, i, j] += (1 - abs(v - row)) * (1 - abs(u - col)) * x[b, :, row, col]
    return y


_ST_KINKS = (-5 / 3, -1.0, -1 / 3, 1 / 3, 1.0, 5 / 3)   # pixel centres of a size of 4, and the clipping bounds

register(OpSpec("spatial_transformer_grid", lambda theta: F.spatial_transformer_grid(theta, (3, 4)),
                lambda rng, dt: (uniform(rng, (2, 2, 3), dt),), _st_grid_reference))
register(OpSpec("spatial_transformer_sampler", F.spatial_transformer_sampler,
                lambda rng, dt: (uniform(rng, (2, 2, 4, 4), dt),
                                 away_from(rng, (2, 2, 3, 2), dt, _ST_KINKS, margin=0.08, low=-1.9, high=1.9)),
                _st_sampler_reference, kinks="grid points on pixel centres (the bilinear weights' kinks) and at the "
                                             "clipping bounds"))


# --- as_strided: overlapping windows (their gradients add up), a reversed read, a broadcast axis ---
def _strided_reference(shape, strides, offset):
    def reference(a):
        flat = a.ravel()
        out = numpy.empty(shape)
        for index in numpy.ndindex(*shape):
            out[index] = flat[offset + sum(i * s for i, s in zip(index, strides))]
        return out
    return reference


_NOT_A_VIEW = {"views": "as_strided reads x's memory in C order, as Chainer's view of its buffer does: a "
                        "non-contiguous x is refused (its memory order is not its element order)"}
register(OpSpec("as_strided", lambda x: F.as_strided(x, (3, 2), (1, 1), 0), lambda rng, dt: (uniform(rng, (4,), dt),),
                _strided_reference((3, 2), (1, 1), 0), expected_failures=_NOT_A_VIEW, accepts_integers=True))
register(OpSpec("as_strided[negative stride,offset]", lambda x: F.as_strided(x, (3, 3), (-1, 2), 3),
                lambda rng, dt: (uniform(rng, (2, 4), dt),), _strided_reference((3, 3), (-1, 2), 3),
                covers=("as_strided",), expected_failures=_NOT_A_VIEW, accepts_integers=True))
register(OpSpec("as_strided[zero stride]", lambda x: F.as_strided(x, (2, 3, 4), (0, 4, 1)),
                lambda rng, dt: (uniform(rng, (3, 4), dt),), _strided_reference((2, 3, 4), (0, 4, 1), 0),
                covers=("as_strided",), expected_failures=_NOT_A_VIEW, accepts_integers=True))
