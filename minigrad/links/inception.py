"""``Inception``: GoogLeNet's inception module, four paths concatenated along the channels."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.link import Chain
from minigrad.links._utils import positive_int
from minigrad.links.convolution_2d import Convolution2D
from minigrad.variable import Variable

__all__ = ["Inception"]


class Inception(Chain):
    """The inception module of GoogLeNet: a 1x1 convolution, a 3x3 and a 5x5 convolution each after a 1x1
    projection, and a 3x3 max pooling followed by a 1x1 projection, concatenated along the channels; every
    output keeps the input's spatial size::

        y = relu(concat(conv1(x), conv3(relu(proj3(x))), conv5(relu(proj5(x))), projp(max_pool_3x3(x))))

    Args:
        in_channels: input channels (``None``: learned from the first input).
        out1: output channels of the 1x1 path.
        proj3, out3: channels of the 3x3 path's projection and convolution.
        proj5, out5: channels of the 5x5 path's projection and convolution.
        proj_pool: output channels of the pooling path's projection.
        conv_init, bias_init: initializers of every convolution's weight and bias.

    See: Szegedy et al., `Going Deeper with Convolutions <https://arxiv.org/abs/1409.4842>`_.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> block = L.Inception(3, 2, 2, 3, 2, 3, 4)
        >>> block(np.ones((1, 3, 5, 5), dtype=np.float32)).shape  # 2 + 3 + 3 + 4 channels
        (1, 12, 5, 5)
    """

    def __init__(self, in_channels: int | None, out1: int, proj3: int, out3: int, proj5: int, out5: int,
                 proj_pool: int, conv_init: Any = None, bias_init: Any = None) -> None:
        super().__init__()
        in_channels = positive_int("Inception", "in_channels", in_channels, allow_none=True)
        sizes = {"out1": out1, "proj3": proj3, "out3": out3, "proj5": proj5, "out5": out5, "proj_pool": proj_pool}
        out1, proj3, out3, proj5, out5, proj_pool = (positive_int("Inception", k, v) for k, v in sizes.items())
        init = {"initialW": conv_init, "initial_bias": bias_init}
        with self.init_scope():
            self.conv1 = Convolution2D(in_channels, out1, 1, **init)
            self.proj3 = Convolution2D(in_channels, proj3, 1, **init)
            self.conv3 = Convolution2D(proj3, out3, 3, pad=1, **init)
            self.proj5 = Convolution2D(in_channels, proj5, 1, **init)
            self.conv5 = Convolution2D(proj5, out5, 5, pad=2, **init)
            self.projp = Convolution2D(in_channels, proj_pool, 1, **init)

    def forward(self, x: Any) -> Variable:
        """``x`` of shape ``(N, C, H, W)`` -> ``(N, out1 + out3 + out5 + proj_pool, H, W)``."""
        out1 = self.conv1(x)
        out3 = self.conv3(F.relu(self.proj3(x)))
        out5 = self.conv5(F.relu(self.proj5(x)))
        pool = self.projp(F.max_pooling_2d(x, 3, stride=1, pad=1))
        return F.relu(F.concat((out1, out3, out5, pool), axis=1))
