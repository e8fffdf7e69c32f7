"""depthwise_convolution_2d: every input channel convolved with its own ``channel_multiplier`` filters.

Chainer's weight layout is ``W (multiplier, C, kh, kw)`` and output channel
``c * multiplier + m`` is channel ``c`` convolved with ``W[m, c]``: a grouped
convolution with ``groups = C`` and filters ``W.transpose(1, 0, 2, 3)``,
which is how it is computed (the transpose is a differentiable op, so every
derivative order follows from ``convolution_2d``'s).
"""

from __future__ import annotations

from typing import Any

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.functions.checks import as_input, require_ndim
from minigrad.functions.connection.convolution_2d import checked_convolution
from minigrad.variable import Variable

__all__ = ["depthwise_convolution_2d"]


def depthwise_convolution_2d(x: Any, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0) -> Variable:
    """Two-dimensional depthwise convolution.

    ``y[n, c*M + m, i, j] = b[c*M + m] + sum_{p, q} W[m, c, p, q] * xpad[n, c, i*sy + p, j*sx + q]``
    with ``M = W.shape[0]`` (the channel multiplier).

    Args:
        x: images of shape ``(N, C, H, W)``.
        W: filters of shape ``(M, C, kh, kw)``.
        b: optional bias of shape ``(C * M,)``.
        stride: an int or a pair ``(sy, sx)``.
        pad: zero padding, an int or a pair ``(ph, pw)``.

    Returns:
        Output of shape ``(N, C * M, out_h, out_w)``, ``out_h = (H + 2*ph - kh) // sy + 1``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.stack([np.ones((3, 3)), 2 * np.ones((3, 3))])[None]  # (1, 2, 3, 3)
        >>> W = np.stack([np.ones((2, 2, 2)), -np.ones((2, 2, 2))])  # multiplier 2: (2, 2, 2, 2)
        >>> F.depthwise_convolution_2d(x, W)[0, :, 0, 0].array  # channel c*2 + m
        array([ 4., -4.,  8., -8.])
    """
    op = "depthwise_convolution_2d"
    x, W = as_input(op, x, "x"), as_input(op, W, "W")
    require_ndim(op, x, 4, "x")
    require_ndim(op, W, 4, "W")
    multiplier, channels = W.shape[:2]
    if x.shape[1] != channels:
        raise ValueError(f"{op}: x of shape {x.shape} has {x.shape[1]} channels, but W of shape {W.shape} "
                         f"expects {channels} (W.shape[1])")
    if b is not None:
        b = as_input(op, b, "b")
        if b.shape != (channels * multiplier,):
            raise ValueError(f"{op}: b must have shape ({channels * multiplier},) (channels * multiplier) to match "
                             f"W of shape {W.shape}, got {b.shape}")
    # one group per channel; with no channels, an ordinary convolution of nothing (an empty output)
    grouped_W = F.reshape(F.transpose(W, (1, 0, 2, 3)), (channels * multiplier, min(channels, 1)) + W.shape[2:])
    return checked_convolution(op, x, grouped_W, b, stride, pad, False, 1, max(channels, 1))
