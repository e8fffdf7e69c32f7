"""simplified_dropconnect: a linear layer whose weights are dropped at random, ``y = x (W * mask / (1 - ratio))^T + b``.

The mask (one per sample with ``use_batchwise_mask``, else one for the batch) is
data, not an input: the product is composed of mul, sum and matmul with the
scaled mask as a constant, so every gradient, to every order, comes from
verified nodes.
"""

from __future__ import annotations

import math
from typing import Any

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.functions.checks import (
    as_input,
    constant,
    given_array,
    in_dtype,
    promoted_dtype,
    require_flag,
    require_ndim,
    require_real,
)
from minigrad.variable import Variable

__all__ = ["simplified_dropconnect"]


def simplified_dropconnect(x: Any, W: Any, b: Any = None, ratio: float = 0.5, train: bool = True, mask: Any = None,
                           use_batchwise_mask: bool = True) -> Variable:
    """Linear layer with simplified dropconnect, as in Chainer: each weight is dropped with probability ``ratio``.

    The kept weights are scaled by ``1 / (1 - ratio)``; ``y[i] = (W * m_i) x[i] / (1 - ratio) + b``.

    Args:
        x: inputs of shape ``(n, ...)``; the axes after the first are flattened to ``N`` features.
        W: weights of shape ``(M, N)``.
        b: optional bias of shape ``(M,)``.
        ratio: the dropping probability, in ``[0, 1)``.
        train: as in Chainer, an argument (not ``config.train``): ``False`` uses
            ratio 0, so every weight is kept unless ``mask`` says otherwise.
        mask: the mask to use instead of a random one (1 keeps a weight, 0 drops
            it), of shape ``(n, M, N)`` with ``use_batchwise_mask``, else ``(M, N)``.
        use_batchwise_mask: draw one mask per sample (True) or one for the batch.

    Returns:
        The output Variable, of shape ``(n, M)``, in ``x``'s dtype. ``W`` may have another float dtype (``b``
        has ``x``'s), as in Chainer: the product is then computed in the promoted dtype, and each gradient
        comes back in its own input's dtype.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x, W = np.array([[1.0, 2.0]]), np.array([[1.0, 1.0], [3.0, -1.0]])
        >>> F.simplified_dropconnect(x, W, mask=np.array([[[1, 0], [1, 1]]]), ratio=0.5).array  # kept * 2
        array([[2., 2.]])
        >>> F.simplified_dropconnect(x, W, train=False).array  # x W^T
        array([[3., 1.]])
    """
    op = "simplified_dropconnect"
    x, W = as_input(op, x, "x", float_only=True), as_input(op, W, "W", float_only=True)
    if x.ndim < 2:
        raise ValueError(f"{op}: x must have a batch axis and features (n, ...), got shape {x.shape}")
    require_ndim(op, W, 2, "W")
    features = math.prod(x.shape[1:])
    if W.shape[1] != features:
        raise ValueError(f"{op}: W of shape {W.shape} needs {W.shape[1]} features, but x of shape {x.shape} has "
                         f"{features}")
    train = require_flag(op, train, "train")
    use_batchwise_mask = require_flag(op, use_batchwise_mask, "use_batchwise_mask")
    ratio = require_real(op, ratio, "ratio") if train else 0.0
    if not 0.0 <= ratio < 1.0:
        raise ValueError(f"{op}: ratio must be in [0, 1), got {ratio}")
    x_dtype = x.dtype  # W may have another float dtype, as in Chainer: computed in the promoted one, y in x's
    dtype = promoted_dtype(x, W)
    x, W = in_dtype(x, dtype), in_dtype(W, dtype)
    mask_shape = ((x.shape[0],) if use_batchwise_mask else ()) + W.shape
    if mask is None:
        mask = (W.xp.random.random_sample(mask_shape) >= ratio).astype(W.dtype)
    else:
        mask = given_array(op, mask, "mask", W, shape=mask_shape)
    dropped = W * constant(mask * W.dtype.type(1.0 / (1.0 - ratio)))
    x = F.reshape(x, (x.shape[0], features))
    if use_batchwise_mask:
        y = F.sum(dropped * F.expand_dims(x, 1), axis=2)  # y[i, m] = sum_k W_i[m, k] x[i, k]
    else:
        y = F.matmul(x, F.transpose(dropped))
    y = in_dtype(y, x_dtype)
    if b is not None:
        b = as_input(op, b, "b")
        if b.shape != (W.shape[0],):
            raise ValueError(f"{op}: b must have shape ({W.shape[0]},) to match W of shape {W.shape}, got {b.shape}")
        if b.dtype != x_dtype:
            raise TypeError(f"{op}: b has dtype {b.dtype}, but x has dtype {x_dtype} (W may have another float "
                            f"dtype, b must have x's)")
        y = y + b
    return y
