"""deconvolution_nd: the transposed convolution over any number of spatial axes.

``deconvolution_2d``'s nodes are N-d already; this is its argument check with
the dimensionality taken from ``x``.
"""

from __future__ import annotations

from typing import Any

from minigrad.functions.checks import as_input
from minigrad.functions.connection.convolution_nd import spatial_axes
from minigrad.functions.connection.deconvolution_2d import checked_deconvolution
from minigrad.variable import Variable

__all__ = ["deconvolution_nd"]


def deconvolution_nd(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0, outsize: Any = None,
                     dilate: Any = 1, groups: int = 1) -> Variable:
    """N-dimensional transposed convolution: the adjoint of ``convolution_nd`` in x.

    Args:
        x: inputs of shape ``(N, C_in, d_1, ..., d_N)``.
        W: filters of shape ``(C_in, C_out // groups, k_1, ..., k_N)``.
        b: optional bias of shape ``(C_out,)``.
        stride: an int or a tuple of N ints.
        pad: cropped from each border, an int or a tuple of N ints.
        outsize: the output's spatial size; by default
            ``s_i*(d_i-1) + dil_i*(k_i-1) + 1 - 2*p_i``. A given size must be one
            a convolution with the same arguments maps back to the input's.
        dilate: spacing between the filter taps, an int or a tuple of N ints.
        groups: split the channels into this many independent groups.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.deconvolution_nd(np.array([[[1.0, 2.0]]]), np.ones((1, 1, 2)), stride=2).array  # 1-d
        array([[[1., 1., 2., 2.]]])
        >>> F.deconvolution_nd(np.ones((1, 2, 2, 2, 2)), np.ones((2, 3, 3, 3, 3)), stride=2, pad=1).shape
        (1, 3, 3, 3, 3)
    """
    op = "deconvolution_nd"
    x, W = as_input(op, x, "x"), as_input(op, W, "W")
    return checked_deconvolution(op, x, W, b, stride, pad, outsize, dilate, groups, spatial_axes(op, x, W))
