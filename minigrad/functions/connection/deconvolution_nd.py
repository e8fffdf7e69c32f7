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

__all__ = ["deconvolution_nd", "deconvolution_1d", "deconvolution_3d"]


def deconvolution_nd(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0, outsize: Any = None,
                     dilate: Any = 1, groups: int = 1) -> Variable:
    """N-dimensional transposed convolution: the adjoint of ``convolution_nd`` in x.

    Args:
        x: inputs of shape ``(N, C_in, d_1, ..., d_N)``.
        W: filters of shape ``(C_in, C_out // groups, k_1, ..., k_N)``.
        b: optional bias of shape ``(C_out,)``, of any float dtype. The output has ``x``'s dtype; ``W`` and ``b``
            may have other float dtypes, as in Chainer (computed in the promoted dtype, each gradient in its
            own input's dtype).
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
    return _deconvolution("deconvolution_nd", None, x, W, b, stride, pad, outsize, dilate, groups)


def deconvolution_1d(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0, outsize: Any = None,
                     dilate: Any = 1, groups: int = 1) -> Variable:
    """``deconvolution_nd`` on signals of shape ``(N, C, L)`` with filters ``(C, O // groups, k)`` (Chainer's alias).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.deconvolution_1d(np.array([[[1.0, 2.0]]]), np.ones((1, 1, 2)), stride=2).array
        array([[[1., 1., 2., 2.]]])
    """
    return _deconvolution("deconvolution_1d", 1, x, W, b, stride, pad, outsize, dilate, groups)


def deconvolution_3d(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0, outsize: Any = None,
                     dilate: Any = 1, groups: int = 1) -> Variable:
    """``deconvolution_nd`` on volumes of shape ``(N, C, D, H, W)`` with filters ``(C, O // groups, kd, kh, kw)``
    (Chainer's alias).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.deconvolution_3d(np.ones((1, 2, 2, 2, 2)), np.ones((2, 3, 3, 3, 3)), stride=2, pad=1).shape
        (1, 3, 3, 3, 3)
    """
    return _deconvolution("deconvolution_3d", 3, x, W, b, stride, pad, outsize, dilate, groups)


def _deconvolution(op: str, nd: int | None, x: Any, W: Any, b: Any, stride: Any, pad: Any, outsize: Any,
                   dilate: Any, groups: int) -> Variable:
    """``deconvolution_nd`` named ``op``, on ``nd`` spatial axes (None: any number)."""
    x, W = as_input(op, x, "x"), as_input(op, W, "W")
    return checked_deconvolution(op, x, W, b, stride, pad, outsize, dilate, groups, spatial_axes(op, x, W, nd),
                                 any_bias_dtype=True)
