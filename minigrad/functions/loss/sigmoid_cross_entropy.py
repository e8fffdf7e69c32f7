"""sigmoid_cross_entropy: binary cross entropy on logits, ``log(1 + exp(x)) - t * x``.

Computed as ``max(x, 0) - t * x + log(1 + exp(-|x|))`` so that no large
exponential is ever formed; the gradient is ``sigmoid(x) - t``.
"""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input, constant, require_flag, require_labels, require_same_shape
from minigrad.functions.loss._common import check_reduce, widened
from minigrad.variable import Variable

__all__ = ["SigmoidCrossEntropy", "sigmoid_cross_entropy"]

IGNORE_LABEL = -1


class SigmoidCrossEntropy(FunctionNode):
    def __init__(self, normalize: bool, reduce: str) -> None:
        self.normalize = normalize
        self.reduce = reduce

    def forward(self, inputs):
        self.retain_inputs((0,))
        x, t = inputs
        xp = get_array_module(x)
        logits = widened(x)
        valid = t != IGNORE_LABEL
        target = (t * valid).astype(logits.dtype)
        loss = (xp.maximum(logits, 0) - logits * target + xp.log1p(xp.exp(-abs(logits)))) * valid
        weight = valid.astype(logits.dtype)
        if self.reduce == "mean":
            if self.normalize:
                weight /= xp.maximum(valid.sum(), 1).astype(logits.dtype)
            else:
                weight *= logits.dtype.type(1 / max(len(x), 1))
            loss = loss.reshape(-1).dot(weight.reshape(-1))
        self.weight = weight.astype(x.dtype, copy=False)
        self.target = target.astype(x.dtype, copy=False)
        return xp.asarray(loss, dtype=x.dtype),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return (F.sigmoid(x) - constant(self.target)) * constant(self.weight) * grad_outputs[0], None


def sigmoid_cross_entropy(x: Any, t: Any, normalize: bool = True, reduce: str = "mean") -> Variable:
    """Binary cross entropy between ``sigmoid(x)`` and labels ``t`` in ``{0, 1}`` (``-1`` is ignored).

    Args:
        x: float logits of any shape.
        t: integer labels of ``x``'s shape: 0, 1, or -1 (ignored).
        normalize: with ``reduce="mean"``, divide the summed loss by the
            number of labels that are not ignored (True) or by ``len(x)`` (False).
        reduce: ``"mean"`` (a 0-dim loss) or ``"no"`` (elementwise, 0 where ignored).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.sigmoid_cross_entropy(np.array([[0.0, 2.0]]), np.array([[1, -1]])).array
        array(0.69314718)
    """
    op = "sigmoid_cross_entropy"
    x = as_input(op, x, float_only=True)
    t = as_input(op, t, "t")
    if t.dtype.kind not in "iu":
        raise TypeError(f"{op}: t must hold integer labels (0, 1, or -1 to ignore), got dtype {t.dtype}")
    require_same_shape(op, x, t, ("x", "t"))
    if x.ndim == 0:
        raise ValueError(f"{op}: x must have at least one dimension, got shape {x.shape}")
    require_labels(op, t, 2, IGNORE_LABEL)
    reduce = check_reduce(op, reduce, ("mean", "no"))
    return SigmoidCrossEntropy(require_flag("sigmoid_cross_entropy", normalize, "normalize"), reduce).apply((x, t))[0]
