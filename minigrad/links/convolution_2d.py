"""``Convolution2D``: a 2-D convolution layer over ``(N, C, H, W)`` inputs."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad import initializers
from minigrad.backend import get_array_module
from minigrad.link import Link
from minigrad.links._utils import pair, positive_int, require_input
from minigrad.variable import Parameter, Variable

__all__ = ["Convolution2D"]


class Convolution2D(Link):
    """2-D convolution with weight ``W`` of shape ``(out_channels, in_channels / groups, kh, kw)``.

    Args:
        in_channels: input channels, or ``None`` to learn them from the first
            input. ``Convolution2D(out_channels, ksize)`` is short for
            ``Convolution2D(None, out_channels, ksize)``.
        out_channels: output channels.
        ksize: kernel size (int or pair).
        stride, pad: as in ``F.convolution_2d``.
        nobias: no bias when True.
        initialW: initializer of ``W``; default ``LeCunNormal()``.
        initial_bias: initializer of ``b``; default 0.
        dilate, groups: as in ``F.convolution_2d``.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> conv = L.Convolution2D(None, 4, ksize=3, pad=1)
        >>> conv(np.ones((2, 3, 5, 5), dtype=np.float32)).shape, conv.W.shape
        ((2, 4, 5, 5), (4, 3, 3, 3))
    """

    def __init__(
        self,
        in_channels: int | None,
        out_channels: int,
        ksize: Any = None,
        stride: Any = 1,
        pad: Any = 0,
        nobias: bool = False,
        initialW: Any = None,
        initial_bias: Any = None,
        *,
        dilate: Any = 1,
        groups: int = 1,
    ) -> None:
        super().__init__()
        if ksize is None:
            in_channels, out_channels, ksize = None, in_channels, out_channels
        self.in_channels = positive_int("Convolution2D", "in_channels", in_channels, allow_none=True)
        self.out_channels = positive_int("Convolution2D", "out_channels", out_channels)
        self.ksize = pair("Convolution2D", "ksize", ksize)
        self.stride, self.pad, self.dilate = stride, pad, dilate
        self.groups = positive_int("Convolution2D", "groups", groups)
        if self.out_channels % self.groups:
            raise ValueError(
                f"Convolution2D: out_channels ({self.out_channels}) must be divisible by groups ({self.groups})"
            )
        with self.init_scope():
            self.W = Parameter(initializers._get_initializer(initialW, initializers.LeCunNormal()))
            if self.in_channels is not None:
                self._initialize_params(self.in_channels)
            if nobias:
                self.b = None
            else:
                self.b = Parameter(initializers._get_initializer(initial_bias, initializers.Zero()), self.out_channels)

    def _initialize_params(self, in_channels: int, xp: Any = None) -> None:
        if in_channels % self.groups:
            raise ValueError(
                f"Convolution2D: in_channels ({in_channels}) must be divisible by groups ({self.groups})"
            )
        shape = (self.out_channels, in_channels // self.groups, *self.ksize)
        self.W.initialize(shape, xp=self.xp if xp is None else xp)

    def forward(self, x: Any) -> Variable:
        """``x`` of shape ``(N, C, H, W)`` -> ``(N, out_channels, H', W')``."""
        if self.W.array is None:
            require_input("Convolution2D", x, 4)
            self.in_channels = int(x.shape[1])
            self._initialize_params(self.in_channels, get_array_module(x))
        return F.convolution_2d(x, self.W, self.b, self.stride, self.pad, dilate=self.dilate, groups=self.groups)
