"""``Deconvolution2D``: the transposed 2-D convolution layer."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad import initializers
from minigrad.backend import get_array_module
from minigrad.link import Link
from minigrad.links._utils import pair, positive_int, require_input
from minigrad.variable import Parameter, Variable

__all__ = ["Deconvolution2D"]


class Deconvolution2D(Link):
    """Transposed convolution with weight ``W`` of shape ``(in_channels, out_channels / groups, kh, kw)``.

    Args:
        in_channels: input channels, or ``None`` to learn them from the first
            input. ``Deconvolution2D(out_channels, ksize)`` is short for
            ``Deconvolution2D(None, out_channels, ksize)``.
        out_channels: output channels.
        ksize: kernel size (int or pair).
        stride, pad, outsize: as in ``F.deconvolution_2d``.
        nobias: no bias when True.
        initialW: initializer of ``W``; default ``LeCunNormal()``.
        initial_bias: initializer of ``b``; default 0.
        dilate, groups: as in ``F.deconvolution_2d``.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> deconv = L.Deconvolution2D(3, 2, ksize=2, stride=2)
        >>> deconv(np.ones((1, 3, 4, 4), dtype=np.float32)).shape
        (1, 2, 8, 8)
    """

    def __init__(
        self,
        in_channels: int | None,
        out_channels: int,
        ksize: Any = None,
        stride: Any = 1,
        pad: Any = 0,
        nobias: bool = False,
        outsize: Any = None,
        initialW: Any = None,
        initial_bias: Any = None,
        *,
        dilate: Any = 1,
        groups: int = 1,
    ) -> None:
        super().__init__()
        if ksize is None:
            in_channels, out_channels, ksize = None, in_channels, out_channels
        self.in_channels = positive_int("Deconvolution2D", "in_channels", in_channels, allow_none=True)
        self.out_channels = positive_int("Deconvolution2D", "out_channels", out_channels)
        self.ksize = pair("Deconvolution2D", "ksize", ksize)
        self.stride, self.pad, self.outsize, self.dilate = stride, pad, outsize, dilate
        self.groups = positive_int("Deconvolution2D", "groups", groups)
        if self.out_channels % self.groups:
            raise ValueError(
                f"Deconvolution2D: out_channels ({self.out_channels}) must be divisible by groups ({self.groups})"
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
                f"Deconvolution2D: in_channels ({in_channels}) must be divisible by groups ({self.groups})"
            )
        shape = (in_channels, self.out_channels // self.groups, *self.ksize)
        self.W.initialize(shape, xp=self.xp if xp is None else xp)

    def forward(self, x: Any) -> Variable:
        """``x`` of shape ``(N, C, H, W)`` -> ``(N, out_channels, H', W')``."""
        if self.W.array is None:
            require_input("Deconvolution2D", x, 4)
            self.in_channels = int(x.shape[1])
            self._initialize_params(self.in_channels, get_array_module(x))
        return F.deconvolution_2d(x, self.W, self.b, self.stride, self.pad, self.outsize,
                                  dilate=self.dilate, groups=self.groups)
