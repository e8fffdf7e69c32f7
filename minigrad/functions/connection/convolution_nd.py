"""convolution_nd: convolution over any number of spatial axes (1-d signals, 3-d volumes, ...).

The nodes of ``convolution_2d`` already work for any number of spatial axes
(im2col and col2im in ``sliding_windows`` are N-d), so this is its argument
check with the dimensionality taken from ``x``.
"""

from __future__ import annotations

from typing import Any

from minigrad.functions.checks import as_input, require_ndim
from minigrad.functions.connection.convolution_2d import checked_convolution
from minigrad.variable import Variable

__all__ = ["convolution_nd", "convolution_1d", "convolution_3d"]


def spatial_axes(op: str, x: Variable, W: Variable, nd: int | None = None) -> int:
    """The number of spatial axes of ``x`` (N, C, *size), which ``W`` must share; at least one, ``nd`` if given."""
    if nd is not None:
        require_ndim(op, x, nd + 2, "x")
    if x.ndim < 3:
        raise ValueError(f"{op}: x must have at least 3 dimensions (N, C, *size), got shape {x.shape}")
    if W.ndim != x.ndim:
        raise ValueError(f"{op}: W must have as many dimensions as x ({x.ndim}: 2 + one kernel size per spatial "
                         f"axis), got W of shape {W.shape} for x of shape {x.shape}")
    return x.ndim - 2


def convolution_nd(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0, cover_all: bool = False,
                   dilate: Any = 1, groups: int = 1) -> Variable:
    """N-dimensional convolution (cross-correlation), as ``convolution_2d`` on ``N = x.ndim - 2`` spatial axes.

    ``y[n, o, i_1, ..., i_N] = b[o] + sum_{c, k_1..k_N} W[o, c, k_1, ..., k_N] *
    xpad[n, g*C/G + c, i_1*s_1 + k_1*d_1, ..., i_N*s_N + k_N*d_N]`` with ``g`` the group of ``o``.

    Args:
        x: inputs of shape ``(N, C, d_1, ..., d_N)``.
        W: filters of shape ``(O, C // groups, k_1, ..., k_N)``.
        b: optional bias of shape ``(O,)``, of any float dtype. The output has ``x``'s dtype; ``W`` and ``b``
            may have other float dtypes, as in Chainer (computed in the promoted dtype, each gradient in its
            own input's dtype).
        stride: an int or a tuple of N ints.
        pad: zero padding, an int or a tuple of N ints.
        cover_all: add a last, partial window at the end of each axis.
        dilate: spacing between the filter taps, an int or a tuple of N ints.
        groups: split the channels into this many independent groups.

    Returns:
        Output of shape ``(N, O, out_1, ..., out_N)``,
        ``out_i = (d_i + 2*p_i - (dil_i*(k_i-1) + 1)) // s_i + 1``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.convolution_nd(np.arange(5.0).reshape(1, 1, 5), np.ones((1, 1, 2)), stride=2).array  # 1-d
        array([[[1., 5.]]])
        >>> F.convolution_nd(np.ones((1, 2, 4, 4, 4)), np.ones((3, 2, 2, 2, 2)), pad=1).shape  # 3-d
        (1, 3, 5, 5, 5)
    """
    return _convolution("convolution_nd", None, x, W, b, stride, pad, cover_all, dilate, groups)


def convolution_1d(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0, cover_all: bool = False,
                   dilate: Any = 1, groups: int = 1) -> Variable:
    """``convolution_nd`` on signals of shape ``(N, C, L)`` with filters ``(O, C // groups, k)`` (Chainer's alias).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.convolution_1d(np.arange(5.0).reshape(1, 1, 5), np.ones((1, 1, 2)), stride=2).array
        array([[[1., 5.]]])
    """
    return _convolution("convolution_1d", 1, x, W, b, stride, pad, cover_all, dilate, groups)


def convolution_3d(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0, cover_all: bool = False,
                   dilate: Any = 1, groups: int = 1) -> Variable:
    """``convolution_nd`` on volumes of shape ``(N, C, D, H, W)`` with filters ``(O, C // groups, kd, kh, kw)``
    (Chainer's alias).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.convolution_3d(np.ones((1, 2, 4, 4, 4)), np.ones((3, 2, 2, 2, 2)), pad=1).shape
        (1, 3, 5, 5, 5)
    """
    return _convolution("convolution_3d", 3, x, W, b, stride, pad, cover_all, dilate, groups)


def _convolution(op: str, nd: int | None, x: Any, W: Any, b: Any, stride: Any, pad: Any, cover_all: bool,
                 dilate: Any, groups: int) -> Variable:
    """``convolution_nd`` named ``op``, on ``nd`` spatial axes (None: any number)."""
    x, W = as_input(op, x, "x"), as_input(op, W, "W")
    return checked_convolution(op, x, W, b, stride, pad, cover_all, dilate, groups, spatial_axes(op, x, W, nd),
                               any_bias_dtype=True)
