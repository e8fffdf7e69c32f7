"""accuracy and binary_accuracy: the fraction of correct predictions (not differentiable)."""

from __future__ import annotations

from typing import Any

import numpy

from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["accuracy", "binary_accuracy"]


def accuracy(y: Any, t: Any, ignore_label: int | None = None) -> Variable:
    """Fraction of predictions ``argmax(y, axis=1)`` equal to ``t``, as a 0-dim Variable of ``y``'s dtype.

    The result needs no gradient (it is a constant of the graph).

    Args:
        y: float scores of shape ``(N, C)`` or ``(N, C, d1, ...)``.
        t: integer labels of shape ``(N,)`` or ``(N, d1, ...)``.
        ignore_label: labels with this value are left out of the count. When
            nothing is counted (every label ignored, or ``N == 0``) the accuracy is 0.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> y = np.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]])
        >>> F.accuracy(y, np.array([1, 1, 1])).array
        array(0.66666667)
    """
    op = "accuracy"
    y = as_input(op, y, "y", float_only=True)
    t = as_input(op, t, "t")
    if t.dtype.kind not in "iu":
        raise TypeError(f"{op}: t must hold integer class labels, got dtype {t.dtype}")
    if y.ndim < 2 or y.shape[1] == 0:
        raise ValueError(f"{op}: y must have shape (N, C) or (N, C, d1, ...) with C >= 1, got shape {y.shape}")
    expected = y.shape[:1] + y.shape[2:]
    if t.shape != expected:
        raise ValueError(f"{op}: t must have shape {expected} for y of shape {y.shape}, got {t.shape}")
    if ignore_label is not None and (isinstance(ignore_label, bool)
                                     or not isinstance(ignore_label, (int, numpy.integer))):
        raise TypeError(f"{op}: ignore_label must be an int or None, got {type(ignore_label).__name__}")
    xp = y.xp
    correct = y.array.argmax(axis=1) == t.array
    total = correct.size
    if ignore_label is not None:
        counted = t.array != ignore_label
        correct, total = correct & counted, counted.sum()
    value = correct.sum() / xp.maximum(total, 1)  # 0 when nothing is counted
    return Variable(xp.asarray(value, dtype=y.dtype), requires_grad=False)


def binary_accuracy(y: Any, t: Any) -> Variable:
    """Fraction of predictions ``y >= 0`` (``y`` are logits) equal to the labels ``t`` (0 or 1; -1 is ignored).

    Returns a 0-dim Variable of ``y``'s dtype that needs no gradient; 0 when every label is ignored.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.binary_accuracy(np.array([2.0, -1.0, 0.5]), np.array([1, 1, -1])).array
        array(0.5)
    """
    op = "binary_accuracy"
    y = as_input(op, y, "y", float_only=True)
    t = as_input(op, t, "t")
    if t.dtype.kind not in "iu":
        raise TypeError(f"{op}: t must hold integer labels (0, 1, or -1 to ignore), got dtype {t.dtype}")
    if t.shape != y.shape:
        raise ValueError(f"{op}: t must have y's shape {y.shape}, got {t.shape}")
    xp = y.xp
    counted = t.array != -1
    correct = ((y.array >= 0) == (t.array == 1)) & counted
    value = correct.sum() / xp.maximum(counted.sum(), 1)  # 0 when nothing is counted
    return Variable(xp.asarray(value, dtype=y.dtype), requires_grad=False)
