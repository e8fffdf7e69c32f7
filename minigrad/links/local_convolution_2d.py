"""``LocalConvolution2D``: a locally connected layer, one filter bank per output position
(``F.local_convolution_2d``)."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad import initializers
from minigrad.functions.checks import require_result_size
from minigrad.functions.connection.sliding_windows import pair
from minigrad.link import Link
from minigrad.links._utils import positive_int
from minigrad.variable import Parameter, Variable

__all__ = ["LocalConvolution2D"]


class LocalConvolution2D(Link):
    """Local convolution with ``W`` of shape ``(out_channels, out_h, out_w, in_channels, kh, kw)`` and a bias
    ``b`` of shape ``(out_channels, out_h, out_w)``.

    Args:
        in_channels: input channels, or ``None`` to learn them (and ``in_size``) from the first input.
        out_channels: output channels.
        in_size: the input's ``(h, w)`` (or one int for both), or ``None`` to learn it.
        ksize: the window, an int or a pair.
        stride: the step between windows, an int or a pair.
        nobias: no bias when True.
        initialW: initializer of ``W``; default ``LeCunNormal()``.
        initial_bias: initializer of ``b``; default 0.

    The output positions are ``((h - kh) // sy + 1, (w - kw) // sx + 1)``; Chainer's
    link leaves the stride out of that count (its ``W`` then has too many
    positions for a stride above 1, and its forward fails).

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> layer = L.LocalConvolution2D(None, 4, ksize=2)
        >>> layer(np.ones((2, 3, 5, 5), dtype=np.float32)).shape, layer.W.shape, layer.b.shape
        ((2, 4, 4, 4), (4, 4, 4, 3, 2, 2), (4, 4, 4))
    """

    def __init__(self, in_channels: int | None, out_channels: int, in_size: Any = None, ksize: Any = None,
                 stride: Any = 1, nobias: bool = False, initialW: Any = None, initial_bias: Any = None) -> None:
        super().__init__()
        where = "LocalConvolution2D"
        self.in_channels = positive_int(where, "in_channels", in_channels, allow_none=True)
        self.out_channels = positive_int(where, "out_channels", out_channels)
        if ksize is None:
            raise TypeError(f"{where}: ksize is required (an int or a pair)")
        self.ksize = pair(where, ksize, "ksize", 1, each=positive_int)
        self.stride = pair(where, stride, "stride", 1, each=positive_int)
        self.in_size = None if in_size is None else pair(where, in_size, "in_size", 1, each=positive_int)
        self.nobias = nobias
        with self.init_scope():
            self.W = Parameter(initializers.get_initializer(initialW, initializers.LeCunNormal()))
            self.b = None if nobias else Parameter(initializers.get_initializer(initial_bias, initializers.Zero()))
        if self.in_channels is not None and self.in_size is not None:
            self._initialize_params(self.in_channels, self.in_size)

    def _initialize_params(self, in_channels: int, in_size: tuple[int, int], xp: Any = None) -> None:
        positions = tuple((size - k) // s + 1 for size, k, s in zip(in_size, self.ksize, self.stride))
        if min(positions) < 1:
            raise ValueError(f"LocalConvolution2D: a window of {self.ksize} does not fit an input of size {in_size}")
        shape = (self.out_channels, *positions, in_channels, *self.ksize)
        require_result_size("LocalConvolution2D", shape, "the sizes")
        self.in_channels, self.in_size = in_channels, tuple(in_size)
        self.W.initialize(shape, xp=self.xp if xp is None else xp)
        if self.b is not None:
            self.b.initialize(shape[:3], xp=self.xp if xp is None else xp)

    def forward(self, x: Any) -> Variable:
        """``x`` of shape ``(n, in_channels, h, w)`` -> ``(n, out_channels, out_h, out_w)``."""
        self.initialize_from_input(self.W, x, 4, lambda x, xp: self._initialize_params(x.shape[1], x.shape[2:], xp),
                                   "LocalConvolution2D")
        return F.local_convolution_2d(x, self.W, self.b, self.stride)
