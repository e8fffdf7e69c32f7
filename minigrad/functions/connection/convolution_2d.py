"""convolution_2d: 2-D convolution (cross-correlation) of NCHW images, via im2col and one matmul.

Shapes: x (N, C, H, W), W (O, C/groups, kh, kw), b (O,) -> y (N, O, out_h, out_w).
The nodes work for any number of spatial axes (``convolution_nd`` uses them
too): x (N, C, *size), W (O, C/groups, *ksize).
The three linear maps of a convolution close under differentiation:

    y  = conv(x, W)            (Convolution2D)
    gx = deconv(gy, W)         (Deconvolution2D: the adjoint in x)
    gW = conv_grad_W(x, gy)    (Convolution2DGradW: the adjoint in W)

and the backward of each is written with the other two, so every order works.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import (
    as_input,
    in_dtype,
    promoted_dtype,
    require_flag,
    require_ndim,
    require_result_size,
)
from minigrad.functions.connection.sliding_windows import Sizes, conv_outsize, im2col_array, ntuple
from minigrad.variable import Variable

__all__ = ["Convolution2D", "Convolution2DGradW", "convolution_2d"]  # checked_convolution: for this family


@dataclass(frozen=True)
class ConvGeometry:
    """Stride, padding, dilation and groups shared by a convolution and its adjoints."""

    stride: Sizes
    pad: Sizes
    dilate: Sizes
    groups: int


def grouped_col(x: Any, ksize: Sizes, geometry: ConvGeometry, outsize: Sizes) -> Any:
    """im2col of ``x`` as a contiguous (N, groups, C/groups*prod(ksize), prod(outsize)) matrix stack (the one copy)."""
    n, c = x.shape[:2]
    col = im2col_array(x, ksize, geometry.stride, geometry.pad, geometry.dilate, outsize)
    return col.reshape(n, geometry.groups, c // geometry.groups * math.prod(ksize), math.prod(outsize))


def channel_bias(b: Any, ndim: int) -> Any:
    """``b`` (C,) shaped to broadcast over (N, C, *spatial) of ``ndim`` axes."""
    return b.reshape((1, -1) + (1,) * (ndim - 2))


def spatial_sum(gy: Variable) -> Variable:
    """The bias gradient: ``gy`` summed over the batch and every spatial axis."""
    return F.sum(gy, axis=(0,) + tuple(range(2, gy.ndim)))


class Convolution2D(FunctionNode):
    def __init__(self, geometry: ConvGeometry, outsize: Sizes) -> None:
        self.geometry = geometry
        self.outsize = tuple(outsize)

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, W = inputs[:2]
        out_channels, groups = W.shape[0], self.geometry.groups
        self.col = grouped_col(x, W.shape[2:], self.geometry, self.outsize)  # kept for gW (a hand-written
        # NumPy convolution reuses it too); released once the backward has used it
        # (N, groups, O/groups, out_h*out_w); sizes spelled out, since -1 is ambiguous for 0-size W
        y = W.reshape(groups, out_channels // groups, math.prod(W.shape[1:])) @ self.col
        y = y.reshape(x.shape[0], out_channels, *self.outsize)
        if len(inputs) == 3:
            y += channel_bias(inputs[2], y.ndim)
        return y,

    def backward(self, indexes, grad_outputs):
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        col, self.col = self.col, None
        grads = []
        for i in indexes:
            if i == 0:
                grads.append(F.Deconvolution2D(self.geometry, x.shape[2:]).apply((gy, W))[0])
            elif i == 1:
                grads.append(Convolution2DGradW(self.geometry, W.shape, col).apply((x, gy))[0])
            else:
                grads.append(spatial_sum(gy))
        return tuple(grads)


class Convolution2DGradW(FunctionNode):
    """(x, gy) -> gW of shape ``W_shape``: the convolution's adjoint in its weight."""

    def __init__(self, geometry: ConvGeometry, W_shape: tuple[int, ...], col: Any = None) -> None:
        self.geometry = geometry
        self.W_shape = W_shape
        self.col = col

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, gy = inputs
        (n, out_channels), outsize = gy.shape[:2], gy.shape[2:]
        groups = self.geometry.groups
        col = self.col if self.col is not None else grouped_col(x, self.W_shape[2:], self.geometry, outsize)
        self.col = None
        gy = gy.reshape(n, groups, out_channels // groups, math.prod(outsize))
        gW = (gy @ col.swapaxes(2, 3)).sum(axis=0)  # (groups, O/groups, C/groups*kh*kw)
        return gW.reshape(self.W_shape),

    def backward(self, indexes, grad_outputs):
        x, gy = self.get_retained_inputs()
        ggW, = grad_outputs
        grads = []
        for i in indexes:
            if i == 0:
                grads.append(F.Deconvolution2D(self.geometry, x.shape[2:]).apply((gy, ggW))[0])
            else:
                grads.append(Convolution2D(self.geometry, gy.shape[2:]).apply((x, ggW))[0])
        return tuple(grads)


def check_conv_args(op: str, x: Variable, W: Variable, b: Variable | None, stride: Any, pad: Any,
                    dilate: Any, groups: Any, nd: int = 2, any_bias_dtype: bool = False) -> ConvGeometry:
    """Validation shared by the convolutions and deconvolutions (which check channels themselves);
    ``nd`` spatial axes. ``W`` may have another float dtype than ``x``; ``b`` too with ``any_bias_dtype``
    (Chainer's N-d ops), else it must have ``x``'s (Chainer's 2-D ones)."""
    require_ndim(op, x, nd + 2, "x")
    require_ndim(op, W, nd + 2, "W")
    if b is not None and not any_bias_dtype and b.dtype != x.dtype:
        raise TypeError(f"{op}: b has dtype {b.dtype}, but x has dtype {x.dtype} (W may have another float dtype, "
                        "b must have x's)")
    if isinstance(groups, bool) or not isinstance(groups, (int, numpy.integer)) or groups < 1:
        raise ValueError(f"{op}: groups must be a positive int, got {groups!r}")
    return ConvGeometry(ntuple(op, stride, "stride", 1, nd), ntuple(op, pad, "pad", 0, nd),
                        ntuple(op, dilate, "dilate", 1, nd), int(groups))


def convolution_2d(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0, cover_all: bool = False, *,
                   dilate: Any = 1, groups: int = 1) -> Variable:
    """Two-dimensional convolution (cross-correlation, as in Chainer and every deep-learning library).

    ``y[n, o, i, j] = b[o] + sum_{c, p, q} W[o, c, p, q] * xpad[n, g*C/G + c, i*sy + p*dy, j*sx + q*dx]``
    with ``g`` the group of output channel ``o``.

    Args:
        x: images of shape ``(N, C, H, W)``.
        W: filters of shape ``(O, C // groups, kh, kw)``.
        b: optional bias of shape ``(O,)``, in ``x``'s dtype.
        stride: an int or a pair ``(sy, sx)``.
        pad: zero padding, an int or a pair ``(ph, pw)``.
        cover_all: add a last, partial window on the bottom/right so that
            every input pixel is used (``out = ceil(...) + 1``).
        dilate: spacing between the filter taps, an int or a pair.
        groups: split the channels into this many independent groups.

    Returns:
        Output of shape ``(N, O, out_h, out_w)`` with
        ``out_h = (H + 2*ph - (dy*(kh-1) + 1)) // sy + 1`` (and likewise out_w),
        in ``x``'s dtype. ``W`` may have another float dtype, as in Chainer: the
        convolution is then computed in the promoted dtype, and each gradient
        comes back in its own input's dtype.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.arange(16.0).reshape(1, 1, 4, 4)
        >>> F.convolution_2d(x, np.ones((1, 1, 2, 2)), stride=2).array
        array([[[[10., 18.],
                 [42., 50.]]]])
    """
    return checked_convolution("convolution_2d", x, W, b, stride, pad, cover_all, dilate, groups)


def checked_convolution(op: str, x: Any, W: Any, b: Any, stride: Any, pad: Any, cover_all: bool, dilate: Any,
                        groups: Any, nd: int = 2, any_bias_dtype: bool = False) -> Variable:
    """``convolution_2d`` over ``nd`` spatial axes, its errors naming ``op`` (the functions built on it call this)."""
    x, W = as_input(op, x, "x", float_only=True), as_input(op, W, "W", float_only=True)
    b = None if b is None else as_input(op, b, "b", float_only=True)
    geometry = check_conv_args(op, x, W, b, stride, pad, dilate, groups, nd, any_bias_dtype)
    in_channels, out_channels, group_channels = x.shape[1], W.shape[0], W.shape[1]
    if in_channels % groups or out_channels % groups:
        raise ValueError(f"{op}: groups={groups} must divide the input channels of x {x.shape} and the output "
                         f"channels of W {W.shape}")
    if group_channels * groups != in_channels:
        raise ValueError(f"{op}: x of shape {x.shape} has {in_channels} channels, but W of shape {W.shape} "
                         f"expects {group_channels * groups} (W.shape[1] * groups={groups})")
    if b is not None and b.shape != (out_channels,):
        raise ValueError(f"{op}: b must have shape ({out_channels},) to match W of shape {W.shape}, got {b.shape}")
    if min(W.shape[2:], default=1) < 1:
        raise ValueError(f"{op}: W of shape {W.shape} has an empty kernel (a zero-width window sees nothing)")
    cover_all = require_flag(op, cover_all, "cover_all")
    outsize = tuple(conv_outsize(size, k, s, p, d, cover_all) for size, k, s, p, d in zip(
        x.shape[2:], W.shape[2:], geometry.stride, geometry.pad, geometry.dilate))
    padded = tuple(size + 2 * p for size, p in zip(x.shape[2:], geometry.pad))  # (what im2col allocates)
    require_result_size(op, x.shape[:2] + padded, "pad")
    if min(outsize) < 1:
        raise ValueError(f"{op}: the kernel {W.shape[2:]} (dilate={geometry.dilate}) is bigger than the padded "
                         f"input: x of shape {x.shape} with pad={geometry.pad}")
    require_result_size(op, x.shape[:2] + tuple(W.shape[2:]) + outsize, "x, W, stride and dilate")  # (im2col's)
    return in_promoted_dtype(Convolution2D(geometry, outsize), x, W, b)


def in_promoted_dtype(node: FunctionNode, x: Variable, W: Variable, b: Variable | None) -> Variable:
    """``node`` applied to (x, W[, b]) in their promoted dtype, its output in ``x``'s (Chainer's mixed dtypes)."""
    dtype = promoted_dtype(x, W, b)
    inputs = (x, W) if b is None else (x, W, b)
    return in_dtype(node.apply(tuple(in_dtype(v, dtype) for v in inputs))[0], x.dtype)
