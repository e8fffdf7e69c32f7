"""Specs for ``minigrad.functions.connection``.

The references are naive NumPy loops, independent of the im2col code the ops use.
"""

from __future__ import annotations

import itertools
import math

import numpy

import minigrad.functions as F
from minigrad.testing import OpSpec, register
from minigrad.testing.op_specs.draw import integers, uniform, with_dtype

# --- linear ---
register(OpSpec("linear", F.linear,
                lambda rng, dt: (uniform(rng, (3, 4), dt), uniform(rng, (2, 4), dt), uniform(rng, (2,), dt)),
                lambda x, W, b: numpy.einsum("ni,oi->no", x, W) + b, linear_in=(0, 1, 2),
                variants={"empty batch": lambda rng, dt: (uniform(rng, (0, 4), dt), uniform(rng, (3, 4), dt),
                                                          uniform(rng, (3,), dt))}))
register(OpSpec("linear[nobias]", F.linear,
                lambda rng, dt: (uniform(rng, (3, 4), dt), uniform(rng, (2, 4), dt)),
                lambda x, W: numpy.einsum("ni,oi->no", x, W), covers=("linear",), linear_in=(0, 1)))
register(OpSpec("linear[n_batch_axes=2]", lambda x, W, b: F.linear(x, W, b, n_batch_axes=2),
                lambda rng, dt: (uniform(rng, (2, 3, 2, 2), dt), uniform(rng, (3, 4), dt), uniform(rng, (3,), dt)),
                lambda x, W, b: numpy.einsum("abi,oi->abo", x.reshape(2, 3, 4), W) + b, covers=("linear",),
                linear_in=(0, 1, 2)))

# W in another float dtype than x (Chainer's mixed dtypes): computed in the promoted one, the output in x's
for _other in ("float32", "float16"):
    register(OpSpec(f"linear[W {_other}]", F.linear,
                    with_dtype(lambda rng, dt: (uniform(rng, (3, 4), dt), uniform(rng, (2, 4), dt),
                                                uniform(rng, (2,), dt)), _other, (1,)),
                    lambda x, W, b: numpy.einsum("ni,oi->no", x, W) + b, covers=("linear",)))


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


def _conv_spec(name, x_shape, W_shape, bias=True, deconv=False, W_dtype=None, variants=(), **kwargs):
    """``W_dtype``: W in that dtype whatever the sweep's (Chainer's mixed dtypes; b keeps x's); ``variants``:
    (label, x shape, W shape) of edge cases with these arguments."""
    op = F.deconvolution_2d if deconv else F.convolution_2d

    def shaped(x_shape, W_shape):
        out_channels = W_shape[1] * kwargs.get("groups", 1) if deconv else W_shape[0]

        def inputs(rng, dt):
            arrays = (uniform(rng, x_shape, dt), uniform(rng, W_shape, dt))
            return arrays + ((uniform(rng, (out_channels,), dt),) if bias else ())
        return inputs

    reference = (_deconv_reference if deconv else _conv_reference)(**kwargs)

    def typed(inputs):
        return inputs if W_dtype is None else with_dtype(inputs, W_dtype, (1,))

    register(OpSpec(name, lambda *xs: op(*xs, **kwargs), typed(shaped(x_shape, W_shape)), reference,
                    covers=(op.__name__,), linear_in=(0, 1, 2) if bias else (0, 1),
                    variants={label: typed(shaped(x, W)) for label, x, W in variants}))


_conv_spec("convolution_2d", (2, 3, 5, 5), (2, 3, 3, 3), variants=[("empty batch", (0, 3, 5, 5), (2, 3, 3, 3)),
                                                                    ("no output channels", (2, 3, 5, 5), (0, 3, 3, 3))])
_conv_spec("convolution_2d[nobias]", (1, 2, 4, 4), (2, 2, 3, 3), bias=False)
_conv_spec("convolution_2d[stride2,pad1]", (2, 2, 5, 5), (2, 2, 3, 3), stride=2, pad=1)
_conv_spec("convolution_2d[dilate2,pad1]", (1, 2, 5, 5), (2, 2, 2, 2), pad=1, dilate=2)
_conv_spec("convolution_2d[groups2]", (2, 4, 4, 4), (4, 2, 2, 2), groups=2)
_conv_spec("convolution_2d[stride2,cover_all]", (1, 2, 5, 5), (2, 2, 2, 2), stride=2, cover_all=True)
_conv_spec("convolution_2d[rect:stride(1,2),pad(0,1)]", (1, 2, 4, 5), (2, 2, 2, 3), stride=(1, 2), pad=(0, 1))
_conv_spec("deconvolution_2d", (2, 3, 3, 3), (3, 2, 3, 3), deconv=True,
           variants=[("no output channels", (2, 3, 3, 3), (3, 0, 3, 3)),
                     ("no input channels", (2, 0, 3, 3), (0, 2, 3, 3))])
_conv_spec("deconvolution_2d[stride2,pad1]", (1, 2, 3, 3), (2, 2, 3, 3), bias=False, deconv=True, stride=2, pad=1)
_conv_spec("deconvolution_2d[outsize]", (1, 2, 3, 3), (2, 1, 3, 3), deconv=True, stride=2, pad=1, outsize=(6, 6))
_conv_spec("deconvolution_2d[groups2,dilate2]", (1, 4, 3, 3), (4, 1, 2, 2), deconv=True, groups=2, dilate=2)
_conv_spec("deconvolution_2d[rect:stride(2,1),pad(1,0)]", (1, 2, 3, 2), (2, 2, 3, 2), deconv=True,
           stride=(2, 1), pad=(1, 0))
_conv_spec("convolution_2d[W float32]", (1, 2, 4, 4), (2, 2, 3, 3), W_dtype="float32", pad=1)
_conv_spec("deconvolution_2d[W float32]", (1, 2, 3, 3), (2, 2, 2, 2), deconv=True, W_dtype="float32", stride=2)


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
                lambda rng, dt: (integers(rng, (2, 3), 0, 4), uniform(rng, (4, 3), dt)), _embed_reference(),
                variants={"0-wide rows": lambda rng, dt: (integers(rng, (2, 3), 0, 4), uniform(rng, (4, 0), dt))}))
register(OpSpec("embed_id[ignore_label]", lambda x, W: F.embed_id(x, W, ignore_label=-1),
                lambda rng, dt: (numpy.array([[0, -1, 3], [3, 2, -1]], numpy.int64), uniform(rng, (4, 3), dt)),
                _embed_reference(-1), covers=("embed_id",)))


# --- n_step_lstm / n_step_gru / n_step_rnn and their bidirectional forms ---
# The reference runs each sequence on its own (no shrinking batch), layer by layer, in plain NumPy.
def _np_sigmoid(v):
    return 1 / (1 + numpy.exp(-v))


def _np_lstm_step(x, h, c, w, b):
    def gate(j):
        return x @ w[j].T + h @ w[j + 4].T + b[j] + b[j + 4]
    c_new = _np_sigmoid(gate(1)) * c + _np_sigmoid(gate(0)) * numpy.tanh(gate(2))
    return _np_sigmoid(gate(3)) * numpy.tanh(c_new), c_new


def _np_gru_step(x, h, c, w, b):
    r = _np_sigmoid(x @ w[0].T + h @ w[3].T + b[0] + b[3])
    z = _np_sigmoid(x @ w[1].T + h @ w[4].T + b[1] + b[4])
    h_bar = numpy.tanh(x @ w[2].T + b[2] + r * (h @ w[5].T + b[5]))
    return (1 - z) * h_bar + z * h, None


def _np_rnn_pre_activation(x, h, w, b):
    return x @ w[0].T + h @ w[1].T + b[0] + b[1]


def _np_rnn_step(activation):
    def step(x, h, c, w, b):
        pre = _np_rnn_pre_activation(x, h, w, b)
        return (numpy.tanh(pre) if activation == "tanh" else numpy.maximum(pre, 0)), None
    return step


_N_STEP_KINDS = {"lstm": (8, _np_lstm_step), "gru": (6, _np_gru_step), "rnn": (2, None)}


def _n_step_reference(kind, n_layers, directions, batches, activation=None, record=None):
    n_weights, step = _N_STEP_KINDS[kind]
    step = step or _np_rnn_step(activation or "tanh")
    n_states, use_cell = n_layers * directions, kind == "lstm"
    lengths = [sum(1 for b in batches if b > i) for i in range(batches[0])]

    def reference(*arrays):
        arrays = list(arrays)
        hx = arrays.pop(0)
        cx = arrays.pop(0) if use_cell else numpy.zeros_like(hx)
        ws = [arrays[k * n_weights:(k + 1) * n_weights] for k in range(n_states)]
        arrays = arrays[n_states * n_weights:]
        bs = [arrays[k * n_weights:(k + 1) * n_weights] for k in range(n_states)]
        xs = arrays[n_states * n_weights:]
        hy, cy = numpy.zeros_like(hx), numpy.zeros_like(cx)
        outputs = []
        for i, length in enumerate(lengths):  # sequence i: its rows xs[t][i] for t < length
            seq = numpy.stack([xs[t][i] for t in range(length)])
            for layer in range(n_layers):
                per_direction = []
                for d in range(directions):
                    k = layer * directions + d
                    h, c, out = hx[k, i], cx[k, i], [None] * length
                    for t in (range(length) if d == 0 else reversed(range(length))):
                        if record is not None and kind == "rnn":
                            record.append(_np_rnn_pre_activation(seq[t], h, ws[k], bs[k]))
                        h, c = step(seq[t], h, c, ws[k], bs[k])
                        out[t] = h
                    hy[k, i] = h
                    if use_cell:
                        cy[k, i] = c
                    per_direction.append(numpy.stack(out))
                seq = numpy.concatenate(per_direction, axis=1)
            outputs.append(seq)
        ys = [numpy.stack([outputs[i][t] for i in range(batches[t])]) for t in range(len(batches))]
        return (hy, cy, *ys) if use_cell else (hy, *ys)
    return reference


def _n_step_spec(name, kind, n_layers, directions, batches, in_size=3, out_size=2, activation=None):
    n_weights = _N_STEP_KINDS[kind][0]
    n_states, use_cell = n_layers * directions, kind == "lstm"
    op = getattr(F, f"n_step_{'bi' if directions == 2 else ''}{kind}")
    kwargs = {} if activation is None else {"activation": activation}

    def func(*variables):
        variables = list(variables)
        states = [variables.pop(0) for _ in range(2 if use_cell else 1)]
        ws = [variables[k * n_weights:(k + 1) * n_weights] for k in range(n_states)]
        variables = variables[n_states * n_weights:]
        bs = [variables[k * n_weights:(k + 1) * n_weights] for k in range(n_states)]
        xs = variables[n_states * n_weights:]
        *final, ys = op(n_layers, 0.0, *states, ws, bs, xs, **kwargs)
        return (*final, *ys)

    def draw(rng, dt):
        shape = (n_states, batches[0], out_size)
        states = [uniform(rng, shape, dt) for _ in range(2 if use_cell else 1)]
        ws = [uniform(rng, (out_size, (in_size if k < directions else out_size * directions)
                                if j < n_weights // 2 else out_size), dt)
              for k in range(n_states) for j in range(n_weights)]
        bs = [uniform(rng, (out_size,), dt) for _ in range(n_states * n_weights)]
        xs = [uniform(rng, (b, in_size), dt) for b in batches]
        return (*states, *ws, *bs, *xs)

    def inputs(rng, dt):
        if activation != "relu":
            return draw(rng, dt)
        for _ in range(500):  # keep every pre-activation of relu clear of 0 (its kink)
            arrays = draw(rng, dt)
            pre = []
            _n_step_reference(kind, n_layers, directions, batches, activation, pre)(
                *(a.astype(numpy.float64) for a in arrays))
            if min(float(numpy.abs(p).min()) for p in pre) > 0.05:
                return arrays
        raise RuntimeError(f"{name}: could not draw inputs clear of relu's kink")

    register(OpSpec(name, func, inputs, _n_step_reference(kind, n_layers, directions, batches, activation),
                    covers=(op.__name__,),
                    kinks="relu's pre-activations drawn at least 0.05 from 0" if activation == "relu" else ""))


_n_step_spec("n_step_lstm", "lstm", 1, 1, (3, 2, 1))
_n_step_spec("n_step_lstm[n_layers=2]", "lstm", 2, 1, (2, 2, 1))
_n_step_spec("n_step_bilstm", "lstm", 1, 2, (2, 1))
_n_step_spec("n_step_gru", "gru", 1, 1, (3, 2, 1))
_n_step_spec("n_step_gru[n_layers=2]", "gru", 2, 1, (2, 2, 1))
_n_step_spec("n_step_bigru", "gru", 1, 2, (3, 2, 1))
_n_step_spec("n_step_rnn", "rnn", 1, 1, (3, 2, 1))
_n_step_spec("n_step_rnn[n_layers=2]", "rnn", 2, 1, (2, 2, 1))
_n_step_spec("n_step_rnn[relu]", "rnn", 2, 1, (3, 1), activation="relu")
_n_step_spec("n_step_birnn", "rnn", 1, 2, (3, 2, 1))
# two layers of two directions (the second layer reads both directions) is one loop for every cell type:
# checked here on the cheapest cell, as a 2-layer bidirectional LSTM would cost the sweep 10 s
_n_step_spec("n_step_birnn[n_layers=2]", "rnn", 2, 2, (2, 1), in_size=2)
_n_step_spec("n_step_birnn[relu]", "rnn", 2, 2, (2, 1), in_size=2, activation="relu")
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


def _depthwise_spec(name, x_shape, W_shape, bias=True, variants=(), **kwargs):
    def shaped(x_shape, W_shape):
        def inputs(rng, dt):
            arrays = (uniform(rng, x_shape, dt), uniform(rng, W_shape, dt))
            return arrays + ((uniform(rng, (W_shape[0] * W_shape[1],), dt),) if bias else ())
        return inputs

    register(OpSpec(name, lambda *xs: F.depthwise_convolution_2d(*xs, **kwargs), shaped(x_shape, W_shape),
                    _depthwise_reference(**kwargs), covers=("depthwise_convolution_2d",),
                    variants={label: shaped(x, W) for label, x, W in variants}))


_depthwise_spec("depthwise_convolution_2d", (2, 3, 4, 4), (2, 3, 2, 2),
                variants=[("no channels", (2, 0, 4, 4), (2, 0, 2, 2))])
_depthwise_spec("depthwise_convolution_2d[nobias,stride2,pad1,rect]", (1, 2, 5, 4), (3, 2, 3, 2), bias=False,
                stride=2, pad=1, variants=[("no channels", (1, 0, 5, 4), (3, 0, 3, 2))])


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


def _conv_nd_spec(name, x_shape, W_shape, bias=True, deconv=False, op=None, W_dtype=None, **kwargs):
    """``op``: the N-d function by default, or one of its fixed-dimension aliases (``convolution_1d``...);
    ``W_dtype``: W and b in that dtype whatever the sweep's (Chainer's mixed dtypes)."""
    op = op or (F.deconvolution_nd if deconv else F.convolution_nd)
    out_channels = W_shape[1] * kwargs.get("groups", 1) if deconv else W_shape[0]

    def inputs(rng, dt):
        arrays = (uniform(rng, x_shape, dt), uniform(rng, W_shape, dt))
        return arrays + ((uniform(rng, (out_channels,), dt),) if bias else ())

    reference = (_deconv_nd_reference if deconv else _conv_nd_reference)(**kwargs)
    register(OpSpec(name, lambda *xs: op(*xs, **kwargs),
                    inputs if W_dtype is None else with_dtype(inputs, W_dtype, (1, 2)), reference,
                    covers=(op.__name__,), linear_in=(0, 1, 2) if bias else (0, 1)))


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
_conv_nd_spec("convolution_nd[1d,W,b float32]", (2, 2, 5), (3, 2, 3), W_dtype="float32", pad=1)
_conv_nd_spec("deconvolution_nd[1d,W,b float32]", (1, 2, 3), (2, 3, 2), deconv=True, W_dtype="float32", stride=2)
# Chainer's fixed-dimension aliases: the same nodes, their own argument check
_conv_nd_spec("convolution_1d[stride2,pad1]", (2, 2, 6), (3, 2, 3), op=F.convolution_1d, stride=2, pad=1)
_conv_nd_spec("convolution_3d", (1, 2, 3, 3, 2), (2, 2, 2, 2, 2), op=F.convolution_3d)
_conv_nd_spec("deconvolution_1d[stride2]", (1, 2, 3), (2, 3, 2), deconv=True, op=F.deconvolution_1d, stride=2)
_conv_nd_spec("deconvolution_3d", (1, 2, 2, 2, 1), (2, 2, 2, 1, 2), deconv=True, op=F.deconvolution_3d)


# --- shift: each output element read from its channel group's offset, one at a time ---
def _shift_reference(kh, kw, dy, dx):
    def reference(x):
        n, c, h, w = x.shape
        n_groups, y = kh * kw, numpy.zeros_like(x)
        size = c // n_groups
        for ch in range(c):
            group = ch // size
            group = {(n_groups - 1) // 2: n_groups - 1, n_groups - 1: (n_groups - 1) // 2}.get(group, group)
            ky, kx = (group // kw - kh // 2, group % kw - kw // 2) if group < n_groups else (0, 0)
            for r in range(h):
                for col in range(w):
                    source_r, source_c = r - ky * dy, col - kx * dx
                    if 0 <= source_r < h and 0 <= source_c < w:
                        y[:, ch, r, col] = x[:, ch, source_r, source_c]
        return y
    return reference


register(OpSpec("shift", F.shift, lambda rng, dt: (uniform(rng, (2, 10, 3, 4), dt),), _shift_reference(3, 3, 1, 1)))
register(OpSpec("shift[ksize(1,3),dilate(2,-1)]", lambda x: F.shift(x, ksize=(1, 3), dilate=(2, -1)),
                lambda rng, dt: (uniform(rng, (1, 4, 2, 4), dt),), _shift_reference(1, 3, 2, -1), covers=("shift",)))


# --- local_convolution_2d: a loop over output positions, each with its own filters ---
def _local_conv_reference(stride):
    def reference(x, W, b=None):
        c_out, out_h, out_w, _, kh, kw = W.shape
        y = numpy.zeros((x.shape[0], c_out, out_h, out_w))
        for i, j in itertools.product(range(out_h), range(out_w)):
            window = x[:, :, i * stride[0]:i * stride[0] + kh, j * stride[1]:j * stride[1] + kw]
            y[:, :, i, j] = numpy.einsum("ncuv,ocuv->no", window, W[:, i, j])
        return y if b is None else y + b
    return reference


register(OpSpec("local_convolution_2d", F.local_convolution_2d,
                lambda rng, dt: (uniform(rng, (2, 2, 4, 4), dt), uniform(rng, (3, 3, 3, 2, 2, 2), dt),
                                 uniform(rng, (3, 3, 3), dt)), _local_conv_reference((1, 1))))
register(OpSpec("local_convolution_2d[nobias,stride(2,1)]", lambda x, W: F.local_convolution_2d(x, W, stride=(2, 1)),
                lambda rng, dt: (uniform(rng, (1, 2, 5, 3), dt), uniform(rng, (2, 2, 2, 2, 2, 2), dt)),
                _local_conv_reference((2, 1)), covers=("local_convolution_2d",)))


# --- deformable_convolution_2d_sampler: each tap read bilinearly at its offset (zeros outside), offsets with
# fractional parts in (0.15, 0.85): the bilinear weights are piecewise linear, with kinks at whole pixels ---
def _deformable_reference(stride, pad):
    def bilinear(image, y, x):
        value = 0.0
        for row, weight_y in ((numpy.floor(y), 1 - (y - numpy.floor(y))), (numpy.floor(y) + 1, y - numpy.floor(y))):
            for col, weight_x in ((numpy.floor(x), 1 - (x - numpy.floor(x))), (numpy.floor(x) + 1, x - numpy.floor(x))):
                if 0 <= row < image.shape[0] and 0 <= col < image.shape[1]:
                    value += weight_y * weight_x * image[int(row), int(col)]
        return value

    def reference(x, offset, W, b=None):
        padded = numpy.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
        (n, c), (out_c, _, kh, kw), (out_h, out_w) = x.shape[:2], W.shape, offset.shape[2:]
        y = numpy.zeros((n, out_c, out_h, out_w))
        for i, o, r, s in itertools.product(range(n), range(out_c), range(out_h), range(out_w)):
            for ch, p, q in itertools.product(range(c), range(kh), range(kw)):
                tap = p * kw + q
                read = bilinear(padded[i, ch], r * stride[0] + p + offset[i, kh * kw + tap, r, s],
                                s * stride[1] + q + offset[i, tap, r, s])
                y[i, o, r, s] += W[o, ch, p, q] * read
            y[i, o, r, s] += 0.0 if b is None else b[o]
        return y
    return reference


def _offsets(rng, dt, shape):
    return (rng.integers(-1, 1, shape) + rng.uniform(0.15, 0.85, shape)).astype(dt)


register(OpSpec("deformable_convolution_2d_sampler",
                lambda x, offset, W, b: F.deformable_convolution_2d_sampler(x, offset, W, b, (1, 2), (1, 0)),
                lambda rng, dt: (uniform(rng, (1, 2, 3, 4), dt), _offsets(rng, dt, (1, 8, 4, 2)),
                                 uniform(rng, (2, 2, 2, 2), dt), uniform(rng, (2,), dt)),
                _deformable_reference((1, 2), (1, 0)),
                kinks="whole-pixel sampling points: offsets' fractional parts in (0.15, 0.85)"))
register(OpSpec("deformable_convolution_2d_sampler[no bias,1x2]",
                lambda x, offset, W: F.deformable_convolution_2d_sampler(x, offset, W),
                lambda rng, dt: (uniform(rng, (2, 1, 2, 3), dt), _offsets(rng, dt, (2, 4, 2, 2)),
                                 uniform(rng, (2, 1, 1, 2), dt)),
                _deformable_reference((1, 1), (0, 0)), covers=("deformable_convolution_2d_sampler",)))
