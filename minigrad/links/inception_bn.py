"""``InceptionBN``: the inception module of the batch-normalized GoogLeNet (Inception v2)."""

from __future__ import annotations

from typing import Any

import numpy

import minigrad.functions as F
from minigrad.dtypes import get_dtype
from minigrad.link import Chain
from minigrad.links._utils import positive_int
from minigrad.links.batch_normalization import BatchNormalization
from minigrad.links.convolution_2d import Convolution2D
from minigrad.variable import Variable

__all__ = ["InceptionBN"]

_NAME = "InceptionBN"


class InceptionBN(Chain):
    """Like :class:`Inception`, with batch normalization after every convolution (which has no bias), the 5x5
    path replaced by two 3x3 convolutions, and a choice of pooling::

        y = concat(relu(bn(conv1(x))),                                    (only when out1 > 0)
                   relu(bn(conv3(relu(bn(proj3(x)))))),
                   relu(bn(conv33b(relu(bn(conv33a(relu(bn(proj33(x))))))))),
                   pool(x), or relu(bn(poolp(pool(x)))) with proj_pool)

    The last convolution of each path and the pooling (3x3, ``pad=1``) have
    ``stride``, so the output's spatial size is the input's divided by it.

    Args:
        in_channels: input channels (``None``: learned from the first input).
        out1: output channels of the 1x1 path; 0 leaves the path out.
        proj3, out3: channels of the 3x3 path's projection and convolution.
        proj33, out33: channels of the double 3x3 path's projection and convolutions.
        pooltype: ``'max'`` or ``'avg'``.
        proj_pool: output channels of the pooling path's projection, or ``None`` for no projection (the
            pooled input itself is concatenated).
        stride: the stride of each path's last convolution and of the pooling. With ``out1 > 0`` it must be 1
            and ``proj_pool`` given (as in Chainer).
        conv_init: initializer of the convolutions' weights.
        dtype: of the batch normalizations' parameters and statistics (default ``config.dtype``, float16
            under ``mixed16``: as in Chainer, which resolves it here).

    See: Ioffe and Szegedy, `Batch Normalization <https://arxiv.org/abs/1502.03167>`_.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> block = L.InceptionBN(3, 2, 2, 3, 2, 3, "max", proj_pool=4)
        >>> block(np.ones((2, 3, 5, 5), dtype=np.float32)).shape  # 2 + 3 + 3 + 4 channels
        (2, 12, 5, 5)
        >>> L.InceptionBN(3, 0, 2, 3, 2, 3, "avg", stride=2)(np.ones((2, 3, 5, 5), dtype=np.float32)).shape
        (2, 9, 3, 3)
    """

    def __init__(self, in_channels: int | None, out1: int, proj3: int, out3: int, proj33: int, out33: int,
                 pooltype: str, proj_pool: int | None = None, stride: int = 1, conv_init: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        if pooltype not in ("max", "avg"):
            raise ValueError(f"{_NAME}: pooltype must be 'max' or 'avg', got {pooltype!r}")
        in_channels = positive_int(_NAME, "in_channels", in_channels, allow_none=True)
        proj3, out3, proj33, out33 = (positive_int(_NAME, name, value) for name, value in
                                      (("proj3", proj3), ("out3", out3), ("proj33", proj33), ("out33", out33)))
        self.proj_pool = positive_int(_NAME, "proj_pool", proj_pool, allow_none=True)
        self.stride = positive_int(_NAME, "stride", stride)
        if isinstance(out1, bool) or not isinstance(out1, (int, numpy.integer)) or out1 < 0:
            raise TypeError(f"{_NAME}: out1 must be a non-negative int (0: no 1x1 path), got {out1!r}")
        if out1 > 0 and (self.stride != 1 or self.proj_pool is None):
            raise ValueError(f"{_NAME}: a 1x1 path (out1={out1}) needs stride=1 and a proj_pool, got "
                             f"stride={stride}, proj_pool={proj_pool}")
        self.out1, self.pooltype = int(out1), pooltype
        dtype = get_dtype(dtype)  # (float16 under mixed16, as Chainer passes it on)

        def conv(n_in: int | None, n_out: int, ksize: int, stride: int = 1) -> Convolution2D:
            return Convolution2D(n_in, n_out, ksize, stride=stride, pad=ksize // 2, nobias=True, initialW=conv_init)

        with self.init_scope():
            self.proj3, self.proj3n = conv(in_channels, proj3, 1), BatchNormalization(proj3, dtype=dtype)
            self.conv3, self.conv3n = conv(proj3, out3, 3, self.stride), BatchNormalization(out3, dtype=dtype)
            self.proj33, self.proj33n = conv(in_channels, proj33, 1), BatchNormalization(proj33, dtype=dtype)
            self.conv33a, self.conv33an = conv(proj33, out33, 3), BatchNormalization(out33, dtype=dtype)
            self.conv33b, self.conv33bn = conv(out33, out33, 3, self.stride), BatchNormalization(out33, dtype=dtype)
            if out1 > 0:
                self.conv1, self.conv1n = conv(in_channels, out1, 1), BatchNormalization(out1, dtype=dtype)
            if self.proj_pool is not None:
                self.poolp = conv(in_channels, self.proj_pool, 1)
                self.poolpn = BatchNormalization(self.proj_pool, dtype=dtype)

    def forward(self, x: Any) -> Variable:
        """``x`` of shape ``(N, C, H, W)`` -> ``(N, out1 + out3 + out33 + (proj_pool or C), H', W')``."""
        outs = [F.relu(self.conv1n(self.conv1(x)))] if self.out1 > 0 else []
        h3 = F.relu(self.proj3n(self.proj3(x)))
        outs.append(F.relu(self.conv3n(self.conv3(h3))))
        h33 = F.relu(self.proj33n(self.proj33(x)))
        h33 = F.relu(self.conv33an(self.conv33a(h33)))
        outs.append(F.relu(self.conv33bn(self.conv33b(h33))))
        if self.pooltype == "max":
            pool = F.max_pooling_2d(x, 3, stride=self.stride, pad=1, cover_all=False)
        else:
            pool = F.average_pooling_2d(x, 3, stride=self.stride, pad=1)
        if self.proj_pool is not None:
            pool = F.relu(self.poolpn(self.poolp(pool)))
        outs.append(pool)
        return F.concat(outs, axis=1)
