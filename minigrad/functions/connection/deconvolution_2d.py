"""deconvolution_2d: the transposed convolution (the adjoint of convolution_2d in its input).

Shapes: x (N, C_in, h, w), W (C_in, C_out/groups, kh, kw), b (C_out,) ->
y (N, C_out, H, W). One matmul makes the columns, col2im sums them into the
image; the backward is a convolution (for x) and Convolution2DGradW (for W).
"""

from __future__ import annotations

import math
from typing import Any

import minigrad.functions as F
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input
from minigrad.functions.connection.convolution_2d import (
    ConvGeometry,
    channel_bias,
    check_conv_args,
    in_promoted_dtype,
    spatial_sum,
)
from minigrad.functions.connection.sliding_windows import Sizes, col2im_array, conv_outsize, deconv_outsize, ntuple
from minigrad.variable import Variable

__all__ = ["Deconvolution2D", "deconvolution_2d"]  # checked_deconvolution: for this family


class Deconvolution2D(FunctionNode):
    def __init__(self, geometry: ConvGeometry, outsize: Sizes) -> None:
        self.geometry = geometry
        self.outsize = tuple(outsize)

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, W = inputs[:2]
        (n, in_channels), size, groups = x.shape[:2], x.shape[2:], self.geometry.groups
        # (groups, C_out/groups*prod(ksize), C_in/groups); sizes spelled out, since -1 is ambiguous for 0-size W
        W_t = W.reshape(groups, in_channels // groups, math.prod(W.shape[1:])).swapaxes(1, 2)
        col = W_t @ x.reshape(n, groups, in_channels // groups, math.prod(size))
        col = col.reshape(n, W.shape[1] * groups, *W.shape[2:], *size)
        g = self.geometry
        y = col2im_array(col, self.outsize, g.stride, g.pad, g.dilate)
        if len(inputs) == 3:
            y += channel_bias(inputs[2], y.ndim)
        return y,

    def backward(self, indexes, grad_outputs):
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        grads = []
        for i in indexes:
            if i == 0:
                grads.append(F.Convolution2D(self.geometry, x.shape[2:]).apply((gy, W))[0])
            elif i == 1:
                grads.append(F.Convolution2DGradW(self.geometry, W.shape).apply((gy, x))[0])
            else:
                grads.append(spatial_sum(gy))
        return tuple(grads)


def deconvolution_2d(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0, outsize: Any = None, *,
                     dilate: Any = 1, groups: int = 1) -> Variable:
    """Two-dimensional transposed convolution ("deconvolution"): the adjoint of ``convolution_2d`` in x.

    Each input pixel scatters ``W`` (scaled by its value) into the output at
    stride spacing; overlapping contributions add up, and ``pad`` is cropped
    from the borders.

    Args:
        x: images of shape ``(N, C_in, h, w)``.
        W: filters of shape ``(C_in, C_out // groups, kh, kw)``.
        b: optional bias of shape ``(C_out,)``, in ``x``'s dtype.
        stride: an int or a pair ``(sy, sx)``.
        pad: cropped from each border, an int or a pair ``(ph, pw)``.
        outsize: ``(H, W)`` of the output; by default
            ``H = sy*(h-1) + dy*(kh-1) + 1 - 2*ph``. A given size must be one a
            convolution with the same arguments maps back to ``(h, w)``.
        dilate: spacing between the filter taps, an int or a pair.
        groups: split the channels into this many independent groups.

    The output has ``x``'s dtype. ``W`` may have another float dtype, as in
    Chainer: the result is then computed in the promoted dtype, and each
    gradient comes back in its own input's dtype.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.deconvolution_2d(np.array([[[[1.0, 2.0]]]]), np.ones((1, 1, 2, 2)), stride=2).array
        array([[[[1., 1., 2., 2.],
                 [1., 1., 2., 2.]]]])
    """
    return checked_deconvolution("deconvolution_2d", x, W, b, stride, pad, outsize, dilate, groups)


def checked_deconvolution(op: str, x: Any, W: Any, b: Any, stride: Any, pad: Any, outsize: Any, dilate: Any,
                          groups: Any, nd: int = 2, any_bias_dtype: bool = False) -> Variable:
    """``deconvolution_2d`` over ``nd`` spatial axes, its errors naming ``op``."""
    x, W = as_input(op, x, "x", float_only=True), as_input(op, W, "W", float_only=True)
    b = None if b is None else as_input(op, b, "b", float_only=True)
    geometry = check_conv_args(op, x, W, b, stride, pad, dilate, groups, nd, any_bias_dtype)
    in_channels = x.shape[1]
    if W.shape[0] != in_channels:
        raise ValueError(f"{op}: x of shape {x.shape} has {in_channels} channels, but W of shape {W.shape} "
                         f"expects {W.shape[0]} (W.shape[0])")
    if in_channels % groups:
        raise ValueError(f"{op}: groups={groups} must divide the input channels of x {x.shape}")
    out_channels = W.shape[1] * groups
    if b is not None and b.shape != (out_channels,):
        raise ValueError(f"{op}: b must have shape ({out_channels},) to match W of shape {W.shape} and "
                         f"groups={groups}, got {b.shape}")
    args = tuple(zip(x.shape[2:], W.shape[2:], geometry.stride, geometry.pad, geometry.dilate))
    if outsize is None:
        outsize = tuple(deconv_outsize(h, k, s, p, d) for h, k, s, p, d in args)
        if min(outsize) < 1:
            raise ValueError(f"{op}: pad={geometry.pad} crops away the whole output for x of shape {x.shape} and "
                             f"W of shape {W.shape}")
    else:
        outsize = ntuple(op, outsize, "outsize", 1, nd)
        for size, (h, k, s, p, d) in zip(outsize, args):
            if h not in (conv_outsize(size, k, s, p, d), conv_outsize(size, k, s, p, d, cover_all=True)):
                raise ValueError(f"{op}: outsize={outsize} does not match x of shape {x.shape}: a convolution with "
                                 f"W of shape {W.shape}, stride={geometry.stride}, pad={geometry.pad} and "
                                 f"dilate={geometry.dilate} maps it to another size")
    return in_promoted_dtype(Deconvolution2D(geometry, outsize), x, W, b)
