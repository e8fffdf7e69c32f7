"""shift: move each group of channels by one offset of a ``kh x kw`` grid (Chainer's ``F.shift``; Wu et al. 2017,
"Shift: A Zero FLOP, Zero Parameter Alternative to Spatial Convolutions").

The channels are split into ``kh * kw`` groups of ``c // (kh * kw)``; group
``g`` moves by ``(g // kw - kh // 2, g % kw - kw // 2)`` pixels times ``dilate``,
with zeros shifted in, except that the centre group and the last one trade
offsets (the last is the one that also takes the ``c % (kh * kw)`` leftover
channels, so they stay where they are). Composed of ``pad``, slices and
``concat``: the gradient is the opposite shift, and every order follows.
"""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.functions.checks import as_input, require_ndim
from minigrad.functions.connection.sliding_windows import int_tuple, pair
from minigrad.variable import Variable

__all__ = ["shift"]


def _dilation(value: Any) -> tuple[int, int]:
    values = int_tuple("shift", value, "dilate", 2)
    if 0 in values or any(abs(v) > 2 ** 20 for v in values):
        raise ValueError(f"shift: dilate must be non-zero (negative shifts the other way), got {value!r}")
    return int(values[0]), int(values[1])


def shift(x: Any, ksize: int | tuple[int, int] = 3, dilate: int | tuple[int, int] = 1) -> Variable:
    """Shift each group of channels of ``x`` (``(n, c, h, w)``) by one offset of a ``ksize`` grid.

    Args:
        x: float input of shape ``(n, c, h, w)`` with ``c >= kh * kw``.
        ksize: the grid, an odd int or a pair of odd ints ``(kh, kw)``.
        dilate: the step of the grid in pixels, an int or a pair; a negative
            step shifts the other way (the gradient is the shift by ``-dilate``).

    Returns:
        A Variable of ``x``'s shape.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.arange(1.0, 4.0).reshape(1, 3, 1, 1) * np.ones((1, 3, 1, 3))
        >>> F.shift(x, ksize=(1, 3)).array[0, :, 0]   # offsets -1 (left), +1 (right), 0 (the centre, last)
        array([[1., 1., 0.],
               [0., 2., 2.],
               [3., 3., 3.]])
    """
    x = as_input("shift", x, float_only=True)
    require_ndim("shift", x, 4)
    kh, kw = pair("shift", ksize, "ksize", 1)
    if kh % 2 == 0 or kw % 2 == 0:
        raise ValueError(f"shift: ksize must be odd in both axes, got {(kh, kw)}")
    dy, dx = _dilation(dilate)
    n_groups = kh * kw
    channels, height, width = x.shape[1:]
    if channels < n_groups:
        raise ValueError(f"shift: x must have at least kh * kw = {n_groups} channels, got shape {x.shape}")
    py, px = kh // 2 * abs(dy), kw // 2 * abs(dx)
    padded = F.pad(x, ((0, 0), (0, 0), (py, py), (px, px)), "constant")
    group_size, centre = channels // n_groups, (n_groups - 1) // 2
    parts = []
    for i in range(n_groups):
        group = {centre: n_groups - 1, n_groups - 1: centre}.get(i, i)  # the centre group goes last
        ky, kx = group // kw - kh // 2, group % kw - kw // 2
        top, left = py - ky * dy, px - kx * dx                         # y[r, c] = x[r - ky * dy, c - kx * dx]
        stop = (i + 1) * group_size if i < n_groups - 1 else channels
        parts.append(padded[:, i * group_size:stop, top:top + height, left:left + width])
    return F.concat(parts, axis=1)
