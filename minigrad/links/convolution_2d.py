"""``Convolution2D``: a 2-D convolution layer over ``(N, C, H, W)`` inputs."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.links._convolution_layer import _ConvolutionLayer
from minigrad.links._utils import given_params
from minigrad.variable import Variable

__all__ = ["Convolution2D"]


class Convolution2D(_ConvolutionLayer):
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

    layer_name = "Convolution2D"

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
        super().__init__(in_channels, out_channels, ksize, nobias, initialW, initial_bias, groups)
        self.stride, self.pad, self.dilate = stride, pad, dilate

    @classmethod
    def from_params(cls, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0, nobias: bool = False, *,
                    dilate: Any = 1, groups: int = 1) -> Convolution2D:
        """A Convolution2D whose parameters start as ``W`` (out, in / groups, kh, kw) and ``b`` (Chainer's
        ``from_params``).

        Example:
            >>> import numpy as np, minigrad.links as L
            >>> layer = L.Convolution2D.from_params(np.ones((4, 3, 2, 2), np.float32), stride=2)
            >>> layer.in_channels, layer.out_channels, layer.ksize, layer.stride
            (3, 4, (2, 2), 2)
        """
        W, b = given_params("Convolution2D", W, b, ndim=4)
        return cls(W.shape[1] * groups, W.shape[0], W.shape[2:], stride, pad, nobias, initialW=W,
                   initial_bias=None if nobias else b, dilate=dilate, groups=groups)


    def forward(self, x: Any) -> Variable:
        """``x`` of shape ``(N, C, H, W)`` -> ``(N, out_channels, H', W')``."""
        self._initialize_from_input(x)
        return F.convolution_2d(x, self.W, self.b, self.stride, self.pad, dilate=self.dilate, groups=self.groups)
