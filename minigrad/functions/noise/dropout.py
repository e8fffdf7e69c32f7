"""dropout: in training, zero each element with probability ``ratio`` and scale the rest.

The mask (0 or ``1 / (1 - ratio)`` per element) is drawn once per call, kept
by the node, and used again by the backward; passing ``mask=`` yourself makes
the op deterministic, which is how the gradient checker evaluates it at
perturbed inputs.
"""

from __future__ import annotations

from typing import Any

from minigrad.backend import get_array_module
from minigrad.configuration import config
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input, constant, given_array, require_keywords, require_real
from minigrad.variable import Variable

__all__ = ["Dropout", "dropout"]


class Dropout(FunctionNode):
    def __init__(self, mask: Any) -> None:
        self.mask = mask

    def forward(self, inputs):
        x, = inputs
        return x * self.mask,

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * constant(self.mask),


def dropout(x: Any, ratio: float = 0.5, **kwargs: Any) -> Variable | tuple[Variable, Any]:
    """Randomly zero elements of ``x`` with probability ``ratio`` in training; identity otherwise.

    Kept elements are scaled by ``1 / (1 - ratio)`` so that the expectation is
    unchanged. When ``minigrad.config.train`` is False, ``x`` is returned as is.

    Args:
        x: float Variable or array.
        ratio: the dropping probability, in ``[0, 1)``.
        mask: (keyword) an array of ``x``'s shape to multiply by instead of a
            random one (its values are normally 0 or ``1 / (1 - ratio)``);
            ``ratio`` is then ignored. Makes the op deterministic.
        return_mask: (keyword) also return the mask used (``None`` outside training).

    Returns:
        The output Variable, or ``(output, mask)`` with ``return_mask=True``.

    Example:
        >>> import numpy as np, minigrad as mg, minigrad.functions as F
        >>> x = np.ones(4, dtype=np.float32)
        >>> F.dropout(x, mask=np.array([0, 2, 2, 0], dtype=np.float32)).array
        array([0., 2., 2., 0.], dtype=float32)
        >>> with mg.using_config("train", False):
        ...     F.dropout(x).array
        array([1., 1., 1., 1.], dtype=float32)
    """
    require_keywords("dropout", kwargs, ("mask", "return_mask"))
    mask, return_mask = kwargs.get("mask"), bool(kwargs.get("return_mask", False))
    x = as_input("dropout", x, float_only=True)
    ratio = require_real("dropout", ratio, "ratio")
    if not 0.0 <= ratio < 1.0:
        raise ValueError(f"dropout: ratio must be in [0, 1), got {ratio}")
    if not config.train:
        return (x, None) if return_mask else x
    xp = get_array_module(x.array)
    if mask is None:
        keep = xp.random.random_sample(x.shape) >= ratio
        mask = keep.astype(x.dtype) * x.dtype.type(1.0 / (1.0 - ratio))
    else:
        mask = given_array("dropout", mask, "mask", x)
    y = Dropout(mask).apply((x,))[0]
    return (y, mask) if return_mask else y
