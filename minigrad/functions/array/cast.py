"""cast: change the dtype; the gradient is cast back."""

from __future__ import annotations

from typing import Any

import numpy

from minigrad.configuration import config
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["Cast", "cast"]


class Cast(FunctionNode):
    def __init__(self, dtype: numpy.dtype) -> None:
        self.dtype = dtype

    def forward(self, inputs):
        x, = inputs
        self.in_dtype = x.dtype
        return x.astype(self.dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        return cast(grad_outputs[0], self.in_dtype),


def cast(x: Any, typ: Any) -> Variable:
    """Cast ``x`` to dtype ``typ``.

    As in Chainer, the result is a new node of the graph even when the dtype
    already matches (so ``grad`` tells it apart from ``x``); only with backprop
    disabled is ``x`` itself returned then.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.cast(np.array([1.5]), np.float32).dtype
        dtype('float32')
    """
    x = as_input("cast", x)
    try:
        dtype = numpy.dtype(typ)
    except TypeError:
        raise TypeError(f"cast: {typ!r} is not a dtype") from None
    if x.dtype == dtype and not config.enable_backprop:
        return x
    return Cast(dtype).apply((x,))[0]
