"""Memory layouts: Chainer's names for channel-first and channel-last arrays, and their shapes.

Chainer 7 can keep an image batch channel-last in memory (cuDNN's NHWC, under
``config.compute_mode = 'cudnn_fast'``) while the Variable still reports the
channel-first shape. That is a cuDNN speed feature; minigrad's arrays are
always channel-first, so its Variables have no ``layout``. This module keeps
Chainer's names (the constants, and the conversions between the two orders of
axes), so code and tests that import ``chainer.memory_layouts`` port; the
channel-first layouts are ``None``, as in Chainer.

Example:
    >>> import numpy as np
    >>> from minigrad import memory_layouts as ml
    >>> x = np.zeros((2, 5, 7, 3))  # N, H, W, C in memory
    >>> ml.get_semantic_shape(x, assumed_layout=ml.CUDNN_CHANNEL_LAST_X)
    (2, 3, 5, 7)
"""

from __future__ import annotations

from typing import Any

__all__ = ["CUDNN_CHANNEL_FIRST_X", "CUDNN_CHANNEL_LAST_X", "CUDNN_CHANNEL_FIRST_W", "CUDNN_CHANNEL_LAST_W",
           "get_raw_shape", "get_semantic_shape", "transpose_axes"]

CUDNN_CHANNEL_FIRST_X = None
CUDNN_CHANNEL_LAST_X = "CUDNN_CHANNEL_LAST_X"
CUDNN_CHANNEL_FIRST_W = None
CUDNN_CHANNEL_LAST_W = "CUDNN_CHANNEL_LAST_W"

_CHANNEL_LAST = {CUDNN_CHANNEL_LAST_X, CUDNN_CHANNEL_LAST_W}
_UNSPECIFIED = object()


def transpose_axes(ndim: int, src_layout: str | None, dst_layout: str | None) -> tuple[int, ...] | None:
    """The axes that turn an ``ndim``-dimensional array in ``src_layout`` into ``dst_layout`` (None: none needed).

    Only a channel-first layout and its channel-last form convert into each other (the channel axis is 1 in the
    first and last in the second); anything else is a ``ValueError``.

    Example:
        >>> from minigrad import memory_layouts as ml
        >>> ml.transpose_axes(4, None, ml.CUDNN_CHANNEL_LAST_X), ml.transpose_axes(4, ml.CUDNN_CHANNEL_LAST_X, None)
        ((0, 2, 3, 1), (0, 3, 1, 2))
    """
    if src_layout == dst_layout:
        return None
    if src_layout is None and dst_layout in _CHANNEL_LAST:
        axes = (0, *range(2, ndim), 1)
    elif dst_layout is None and src_layout in _CHANNEL_LAST:
        axes = (0, ndim - 1, *range(1, ndim - 1))
    else:
        raise ValueError(f"memory_layouts: unknown layout conversion from {src_layout!r} to {dst_layout!r}")
    if ndim < 3:
        raise ValueError(f"memory_layouts: a {ndim}-dimensional array has no channel axis to move (it needs >= 3)")
    return axes


def get_raw_shape(arr_or_var: Any) -> tuple[int, ...]:
    """The shape of the array as it is in memory (minigrad's arrays: their shape).

    Example:
        >>> import numpy as np
        >>> from minigrad import memory_layouts as ml
        >>> ml.get_raw_shape(np.zeros((2, 3)))
        (2, 3)
    """
    return tuple(arr_or_var.shape)


def get_semantic_shape(arr_or_var: Any, *, assumed_layout: Any = _UNSPECIFIED) -> tuple[int, ...]:
    """The channel-first shape of an array stored in ``assumed_layout`` (a Variable: its shape).

    Example:
        >>> import numpy as np
        >>> from minigrad import memory_layouts as ml
        >>> ml.get_semantic_shape(np.zeros((2, 3, 4, 5)))
        (2, 3, 4, 5)
    """
    shape = tuple(arr_or_var.shape)
    if assumed_layout is _UNSPECIFIED:
        return shape
    if hasattr(arr_or_var, "creator"):  # a Variable
        if assumed_layout is not None:
            raise ValueError(f"get_semantic_shape: a minigrad Variable is always channel-first (layout None), "
                             f"not {assumed_layout!r}")
        return shape
    axes = transpose_axes(len(shape), assumed_layout, None)
    return shape if axes is None else tuple(shape[i] for i in axes)
