"""deformable_convolution_2d_sampler: convolution whose taps read the input at learned offsets (Dai et al. 2017;
Chainer's ``F.deformable_convolution_2d_sampler``).

Tap ``(p, q)`` of the window at output ``(i, j)`` reads the zero-padded input at
``(i sy + p + dy, j sx + q + dx)``, ``(dx, dy)`` its offset, by bilinear
interpolation (``spatial_transformer_sampler``; zero outside the padded image).
The samples of every window, one row per output position, then meet the
filters in a ``matmul``. Composed of ``pad``, ``spatial_transformer_sampler``
and ``matmul``, so gradients reach ``x``, the offsets, ``W`` and ``b`` at every
order (Chainer's, through its sampler, has first order only). With zero
offsets it is ``convolution_2d``.
"""

from __future__ import annotations

from typing import Any

import numpy

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.functions.checks import as_input, constant, require_ndim
from minigrad.functions.connection.sliding_windows import conv_outsize, ntuple
from minigrad.variable import Variable

__all__ = ["deformable_convolution_2d_sampler"]

_OP = "deformable_convolution_2d_sampler"


def _sampling_grid(offset: Variable, ksize: tuple[int, int], stride: tuple[int, int],
                   padded: tuple[int, int]) -> Variable:
    """The points each tap reads, in the sampler's coordinates (``-1`` and ``1``: the padded image's first and
    last pixels): ``(n, 2, kh * kw, out_h * out_w)``, x first."""
    n, _, out_h, out_w = offset.shape
    (kh, kw), (sy, sx), (height, width) = ksize, stride, padded
    xp, dtype = offset.xp, offset.dtype
    taps_y, taps_x = numpy.divmod(numpy.arange(kh * kw), kw)           # tap t is (t // kw, t % kw)
    rows, cols = numpy.meshgrid(numpy.arange(out_h) * sy, numpy.arange(out_w) * sx, indexing="ij")
    base_x = (taps_x[:, None, None] + cols[None]).reshape(1, kh * kw, out_h, out_w)
    base_y = (taps_y[:, None, None] + rows[None]).reshape(1, kh * kw, out_h, out_w)
    x = offset[:, :kh * kw] + constant(xp.asarray(base_x, dtype=dtype))
    y = offset[:, kh * kw:] + constant(xp.asarray(base_y, dtype=dtype))
    x = x * (2.0 / (width - 1)) - 1.0
    y = y * (2.0 / (height - 1)) - 1.0
    return F.reshape(F.stack((x, y), axis=1), (n, 2, kh * kw, out_h * out_w))


def deformable_convolution_2d_sampler(x: Any, offset: Any, W: Any, b: Any = None, stride: Any = 1,
                                      pad: Any = 0) -> Variable:
    """Two-dimensional deformable convolution with given offsets.

    Args:
        x: ``(n, c_in, h, w)`` input images.
        offset: ``(n, 2 kh kw, out_h, out_w)``: for each output position, the horizontal offsets of the ``kh kw``
            taps (in row-major tap order), then their vertical offsets, in pixels; ``out_h = (h + 2 ph - kh) //
            sy + 1`` and likewise ``out_w``. Of ``x``'s dtype.
        W: ``(c_out, c_in, kh, kw)`` filters, of ``x``'s dtype.
        b: optional ``(c_out,)`` bias.
        stride: an int or a pair ``(sy, sx)``.
        pad: zero padding, an int or a pair ``(ph, pw)``.

    Returns:
        ``(n, c_out, out_h, out_w)``. A point outside the padded image reads zeros (bilinearly, from the
        border), as in Chainer.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.arange(9.0).reshape(1, 1, 3, 3)
        >>> W = np.ones((1, 1, 1, 1))
        >>> still = np.zeros((1, 2, 3, 3))
        >>> np.array_equal(F.deformable_convolution_2d_sampler(x, still, W).array, x)  # a 1x1 convolution
        True
        >>> right = np.concatenate([np.full((1, 1, 3, 3), 0.5), np.zeros((1, 1, 3, 3))], axis=1)
        >>> F.deformable_convolution_2d_sampler(x, right, W).array[0, 0]  # half a pixel to the right
        array([[0.5, 1.5, 1. ],
               [3.5, 4.5, 2.5],
               [6.5, 7.5, 4. ]])
    """
    x, offset, W = (as_input(_OP, v, name, float_only=True) for v, name in ((x, "x"), (offset, "offset"), (W, "W")))
    b = None if b is None else as_input(_OP, b, "b", float_only=True)
    for value, name in ((x, "x"), (offset, "offset"), (W, "W")):
        require_ndim(_OP, value, 4, name)
    for value, name in ((offset, "offset"), (W, "W"), (b, "b")):
        if value is not None and value.dtype != x.dtype:
            raise TypeError(f"{_OP}: {name} has dtype {value.dtype}, but x has dtype {x.dtype}")
    stride, pad = ntuple(_OP, stride, "stride", 1, 2), ntuple(_OP, pad, "pad", 0, 2)
    (n, channels, h, w), (out_channels, w_channels, kh, kw) = x.shape, W.shape
    if w_channels != channels or min(kh, kw) < 1:
        raise ValueError(f"{_OP}: W of shape {W.shape} must be (c_out, {channels}, kh, kw) with kh, kw >= 1 for x "
                         f"of shape {x.shape}")
    if b is not None and b.shape != (out_channels,):
        raise ValueError(f"{_OP}: b must have shape ({out_channels},), got {b.shape}")
    padded = (h + 2 * pad[0], w + 2 * pad[1])
    if min(padded) < 2:
        raise ValueError(f"{_OP}: the padded input {padded} must be at least 2 pixels high and wide (its "
                         f"coordinates are scaled by its size minus 1)")
    out_h, out_w = conv_outsize(h, kh, stride[0], pad[0]), conv_outsize(w, kw, stride[1], pad[1])
    if offset.shape != (n, 2 * kh * kw, out_h, out_w):
        raise ValueError(f"{_OP}: offset must have shape {(n, 2 * kh * kw, out_h, out_w)} (n, 2 kh kw, out_h, "
                         f"out_w) for x {x.shape}, W {W.shape}, stride {stride} and pad {pad}, got {offset.shape}")
    if min(out_h, out_w) < 1:
        raise ValueError(f"{_OP}: the kernel {(kh, kw)} is bigger than the padded input {padded}")
    x_pad = F.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])), "constant")
    samples = F.spatial_transformer_sampler(x_pad, _sampling_grid(offset, (kh, kw), stride, padded))
    windows = F.reshape(F.transpose(samples, (0, 3, 1, 2)), (n * out_h * out_w, channels * kh * kw))
    filters = F.reshape(F.transpose(W, (1, 2, 3, 0)), (channels * kh * kw, out_channels))
    y = F.transpose(F.reshape(F.matmul(windows, filters), (n, out_h, out_w, out_channels)), (0, 3, 1, 2))
    return y if b is None else y + F.reshape(b, (1, out_channels, 1, 1))
