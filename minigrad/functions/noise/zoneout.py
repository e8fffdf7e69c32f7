"""zoneout: in training, each element of the new state ``x`` is replaced by the previous state ``h``
with probability ``ratio``.

The choice is data, not an input: the output is ``h * flag_h + x * flag_x``
with constant 0/1 arrays (``flag_x`` the mask, ``flag_h = 1 - flag_x``), so
each gradient is the output gradient times a constant, and every higher order
follows. The node keeps the flags under Chainer's names (ported tests read
them from ``y.creator``). In test mode the output is ``x``, as in Chainer.
"""

from __future__ import annotations

from typing import Any

from minigrad.configuration import config
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import (
    as_input,
    constant,
    given_array,
    require_keywords,
    require_real,
    require_same_shape,
)
from minigrad.variable import Variable

__all__ = ["Zoneout", "zoneout"]


class Zoneout(FunctionNode):
    def __init__(self, mask: Any) -> None:
        self.flag_x, self.flag_h = mask, 1 - mask  # where x is taken, where h is kept

    def forward(self, inputs):
        h, x = inputs
        return h * self.flag_h + x * self.flag_x,

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        return tuple(gy * constant((self.flag_h, self.flag_x)[i]) for i in indexes)


def zoneout(h: Any, x: Any, ratio: float = 0.5, **kwargs: Any) -> Variable | tuple[Variable, Any]:
    """Zoneout: keep each element of the previous state ``h`` with probability ``ratio``, else take ``x``.

    Args:
        h: the previous state, a float array.
        x: the new state, of ``h``'s shape and dtype.
        ratio: the probability of keeping ``h``, in ``[0, 1]``.
        mask: (keyword, minigrad's addition to Chainer's signature) where to take
            ``x`` (1) and where ``h`` (0) instead of a fresh draw, an array of
            ``x``'s shape on its device; makes the function deterministic.
        return_mask: (keyword) also return the mask used (``None`` in test mode).

    Returns:
        The output Variable (``x`` itself in test mode), or ``(output, mask)``
        with ``return_mask=True``.

    Example:
        >>> import numpy as np, minigrad as mg, minigrad.functions as F
        >>> h, x = np.zeros(4), np.ones(4)
        >>> F.zoneout(h, x, mask=np.array([1.0, 0.0, 0.0, 1.0])).array
        array([1., 0., 0., 1.])
        >>> with mg.using_config("train", False):
        ...     F.zoneout(h, x).array
        array([1., 1., 1., 1.])
    """
    require_keywords("zoneout", kwargs, ("mask", "return_mask"))
    return_mask = bool(kwargs.get("return_mask", False))
    h = as_input("zoneout", h, "h", float_only=True)
    x = as_input("zoneout", x, "x", float_only=True)
    require_same_shape("zoneout", h, x, ("h", "x"))
    if h.dtype != x.dtype:
        raise TypeError(f"zoneout: h and x must have the same dtype, got {h.dtype} and {x.dtype}")
    ratio = require_real("zoneout", ratio, "ratio")
    if not 0.0 <= ratio <= 1.0:
        raise ValueError(f"zoneout: ratio must be in [0, 1], got {ratio}")
    if not config.train:
        return (x, None) if return_mask else x
    mask = kwargs.get("mask")
    if mask is None:
        mask = (x.xp.random.random_sample(x.shape) >= ratio).astype(x.dtype)
    else:
        mask = given_array("zoneout", mask, "mask", x)
    y = Zoneout(mask).apply((h, x))[0]
    return (y, mask) if return_mask else y
