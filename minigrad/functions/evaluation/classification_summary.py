"""classification_summary (precision, recall, F-beta score and support per class), precision, recall, f1_score.

None is differentiable: the results are constants of the graph. As in
Chainer, a ratio with nothing to count is NaN: the precision of a class that
is never predicted, the recall of a class with no support, and the F-beta
score where either is NaN or both are 0. (Chainer also warns then; minigrad
does not.)
"""

from __future__ import annotations

from typing import Any

import numpy

from minigrad.functions.checks import as_input, require_real, require_size
from minigrad.variable import Variable

__all__ = ["classification_summary", "precision", "recall", "f1_score"]


def classification_summary(y: Any, t: Any, label_num: int | None = None, beta: float = 1.0,
                           ignore_label: int = -1) -> tuple[Variable, Variable, Variable, Variable]:
    """Precision, recall, F-beta score and support of the predictions ``argmax(y, axis=1)``, per class.

    For each class ``c``: precision ``tp / (tp + fp)``, recall ``tp / (tp + fn)``,
    F-beta ``(1 + beta**2) * P * R / (beta**2 * P + R)``, and support (the
    number of labels equal to ``c``). A ratio of 0 / 0 is NaN (see the module
    note). A prediction of a class ``>= label_num`` counts for no class.

    Args:
        y: float scores of shape ``(N, C)`` or ``(N, C, d1, ...)``; trailing
            axes beyond ``t``'s must have length 1 (as in Chainer).
        t: integer labels of shape ``(N,)`` or ``(N, d1, ...)``, each in
            ``[0, label_num)`` or equal to ``ignore_label``.
        label_num: the number of classes; ``None`` takes ``max(t) + 1``.
        beta: the weight of recall against precision in the F-beta score.
        ignore_label: positions labelled with this value are left out (their
            labels and their predictions). It may be a class, as in Chainer's
            tests (a background class 0): that class then has support 0 and
            recall NaN, and its precision counts its predictions at the
            positions that are not left out.

    Returns:
        ``(precision, recall, fbeta, support)``, each of shape ``(label_num,)``:
        three Variables of ``y``'s dtype and one of integer counts, none needing a gradient.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> y = np.array([[0.9, 0.1], [0.2, 0.8], [0.7, 0.3], [0.6, 0.4]])  # predicts 0, 1, 0, 0
        >>> p, r, f, s = F.classification_summary(y, np.array([0, 1, 1, 1]))
        >>> p.array, r.array, s.array
        (array([0.33333333, 1.        ]), array([1.        , 0.33333333]), array([1, 3]))
        >>> f.array
        array([0.5, 0.5])
    """
    return _summary("classification_summary", y, t, label_num, beta, ignore_label)


def precision(y: Any, t: Any, label_num: int | None = None, ignore_label: int = -1) -> tuple[Variable, Variable]:
    """``(precision, support)`` per class, as in :func:`classification_summary` (NaN for a class never predicted).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> p, s = F.precision(np.array([[0.9, 0.1], [0.8, 0.2]]), np.array([0, 1]))
        >>> p.array, s.array  # class 1 is never predicted
        (array([0.5, nan]), array([1, 1]))
    """
    summary = _summary("precision", y, t, label_num, 1.0, ignore_label)
    return summary[0], summary[3]


def recall(y: Any, t: Any, label_num: int | None = None, ignore_label: int = -1) -> tuple[Variable, Variable]:
    """``(recall, support)`` per class, as in :func:`classification_summary` (NaN for a class with no support).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> r, s = F.recall(np.array([[0.9, 0.1], [0.2, 0.8]]), np.array([0, 0]), label_num=2)
        >>> r.array, s.array
        (array([0.5, nan]), array([2, 0]))
    """
    summary = _summary("recall", y, t, label_num, 1.0, ignore_label)
    return summary[1], summary[3]


def f1_score(y: Any, t: Any, label_num: int | None = None, ignore_label: int = -1) -> tuple[Variable, Variable]:
    """``(F1 score, support)`` per class: the F-beta score of :func:`classification_summary` with ``beta = 1``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> f, s = F.f1_score(np.array([[0.9, 0.1], [0.8, 0.2], [0.1, 0.9]]), np.array([0, 1, 1]))
        >>> f.array  # class 0: P = 1/2, R = 1; class 1: P = 1, R = 1/2
        array([0.66666667, 0.66666667])
    """
    summary = _summary("f1_score", y, t, label_num, 1.0, ignore_label)
    return summary[2], summary[3]


def _summary(op: str, y: Any, t: Any, label_num: Any, beta: Any,
             ignore_label: Any) -> tuple[Variable, Variable, Variable, Variable]:
    y = as_input(op, y, "y", float_only=True)
    t = as_input(op, t, "t")
    if t.dtype.kind not in "iu":
        raise TypeError(f"{op}: t must hold integer class labels, got dtype {t.dtype}")
    if (y.ndim < 2 or t.ndim < 1 or y.ndim < t.ndim + 1 or y.shape[:1] + y.shape[2:t.ndim + 1] != t.shape
            or any(n != 1 for n in y.shape[t.ndim + 1:])):
        raise ValueError(f"{op}: y of shape (N, C, d1, ...) needs t of shape (N, d1, ...) (further axes of y of "
                         f"length 1); got y of shape {y.shape} and t of shape {t.shape}")
    for value, argname in ((label_num, "label_num"), (ignore_label, "ignore_label")):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, numpy.integer))):
            raise TypeError(f"{op}: {argname} must be an int{' or None' if argname == 'label_num' else ''}, "
                            f"got {type(value).__name__}")
    if ignore_label is None:
        raise TypeError(f"{op}: ignore_label must be an int, got NoneType")
    beta = require_real(op, beta, "beta")
    xp = y.xp
    labels = t.array.reshape(-1)
    counted = labels != ignore_label
    if label_num is None:
        if labels.size == 0:
            raise ValueError(f"{op}: label_num=None takes max(t) + 1, but t is empty (shape {t.shape})")
        label_num = int(labels.max()) + 1
    label_num = require_size(op, label_num, "label_num", minimum=1)  # it sizes the per-class counts
    bad = counted & ((labels < 0) | (labels >= label_num))
    if bool(bad.any()):
        raise ValueError(f"{op}: t has labels outside [0, {label_num}) or ignore_label={ignore_label}: "
                         f"{labels[bad][:5].tolist()} (shape {t.shape})")
    # ignored positions and predictions beyond the classes go to the extra bin label_num, which is dropped
    predicted = xp.minimum(y.array.argmax(axis=1).reshape(-1), label_num)
    predicted = xp.where(counted, predicted, label_num)
    truth = xp.where(counted, labels, label_num)
    support = xp.bincount(truth, minlength=label_num + 1)[:label_num]
    relevant = xp.bincount(predicted, minlength=label_num + 1)[:label_num]
    tp = xp.bincount(xp.where(predicted == truth, truth, label_num), minlength=label_num + 1)[:label_num]
    prec = _ratio(xp, tp, relevant)
    rec = _ratio(xp, tp, support)
    b2 = beta * beta
    fbeta = _ratio(xp, (1 + b2) * prec * rec, b2 * prec + rec)

    def result(array: Any) -> Variable:
        return Variable(array.astype(y.dtype) if array.dtype.kind == "f" else array, requires_grad=False)

    return result(prec), result(rec), result(fbeta), result(support)


def _ratio(xp: Any, numerator: Any, denominator: Any) -> Any:
    """``numerator / denominator`` in float64, NaN where the denominator is 0 (NaN stays NaN), without a warning."""
    numerator = numerator.astype(numpy.float64)
    denominator = denominator.astype(numpy.float64)
    zero = denominator == 0
    return xp.where(zero, numpy.nan, numerator / xp.where(zero, 1.0, denominator))
