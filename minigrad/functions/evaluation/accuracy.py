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
        t: integer labels of shape ``(N,)`` or ``(N, d1, ...)`` (axes of size 1 that end ``y``'s shape may be
            left out of ``t``'s, as in Chainer).
        ignore_label: labels with this value are left out of the count. When
            nothing is counted (every label ignored, or ``N == 0``) the accuracy is 0.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> y = np.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]])
        >>> F.accuracy(y, np.array([1, 1, 1])).array
        array(0.66666667)
    """
    op = "accuracy"
    y, t = _scores_and_labels(op, y, t, "class labels")
    if y.ndim < 2 or y.shape[1] == 0:
        raise ValueError(f"{op}: y must have shape (N, C) or (N, C, d1, ...) with C >= 1, got shape {y.shape}")
    expected = y.shape[:1] + y.shape[2:]
    trailing_ones = t.ndim >= 1 and t.shape == expected[:t.ndim] and all(n == 1 for n in expected[t.ndim:])
    if not trailing_ones:  # (y may have trailing axes of size 1 that t leaves out, as in Chainer)
        raise ValueError(f"{op}: t must have shape {expected} for y of shape {y.shape} (axes of size 1 at the end "
                         f"may be left out), got {t.shape}")
    if ignore_label is not None and (isinstance(ignore_label, bool)
                                     or not isinstance(ignore_label, (int, numpy.integer))):
        raise TypeError(f"{op}: ignore_label must be an int or None, got {type(ignore_label).__name__}")
    correct = y.array.argmax(axis=1).reshape(t.shape) == t.array
    return _fraction(y, correct, None if ignore_label is None else t.array != ignore_label)


def binary_accuracy(y: Any, t: Any) -> Variable:
    """Fraction of predictions ``y >= 0`` (``y`` are logits) equal to the labels ``t`` (0 or 1; -1 is ignored).

    Returns a 0-dim Variable of ``y``'s dtype that needs no gradient; 0 when every label is ignored.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.binary_accuracy(np.array([2.0, -1.0, 0.5]), np.array([1, 1, -1])).array
        array(0.5)
    """
    op = "binary_accuracy"
    y, t = _scores_and_labels(op, y, t, "labels (0, 1, or -1 to ignore)")
    if t.shape != y.shape:
        raise ValueError(f"{op}: t must have y's shape {y.shape}, got {t.shape}")
    return _fraction(y, (y.array >= 0) == (t.array == 1), t.array != -1)


def _scores_and_labels(op: str, y: Any, t: Any, labels: str) -> tuple[Variable, Variable]:
    """Float scores ``y`` and integer labels ``t`` as Variables (a TypeError naming ``op`` otherwise)."""
    y = as_input(op, y, "y", float_only=True)
    t = as_input(op, t, "t")
    if t.dtype.kind not in "iu":
        raise TypeError(f"{op}: t must hold integer {labels}, got dtype {t.dtype}")
    return y, t


def _fraction(y: Variable, correct: Any, counted: Any) -> Variable:
    """The fraction of the ``counted`` positions (all when None) that are ``correct``, as a constant of
    ``y``'s dtype; 0 when nothing is counted."""
    if counted is not None:
        correct = correct & counted
    total = correct.size if counted is None else counted.sum()
    value = correct.sum() / y.xp.maximum(total, 1)
    return Variable(y.xp.asarray(value, dtype=y.dtype), requires_grad=False)
