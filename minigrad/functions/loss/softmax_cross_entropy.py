"""softmax_cross_entropy: ``-log softmax(x)[t]``, fused into one node for speed.

The forward computes the log-softmax stably (in float32 for float16 scores)
and keeps ``exp(x - max)`` and its row sums (``cache_score``), so the backward
needs one division for the softmax. The gradient ``(softmax(x) - onehot(t)) * c``
(``c`` = output gradient x class weight / normalizer, per row) is its own node,
``SoftmaxCrossEntropyGrad``, whose forward is that one fused NumPy expression
and whose backward is written with minigrad ops — so the loss is always twice
differentiable (``enable_double_backprop`` is accepted for Chainer
compatibility and has no effect).

Both nodes work on 2-D scores ``(M, C)``; the wrapper moves the class axis of
``(N, C, d1, ...)`` scores last and folds the rest into ``M``.
"""

from __future__ import annotations

from typing import Any

import numpy

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.backend import get_array_module
from minigrad.configuration import config
from minigrad.function_node import FunctionNode
from minigrad.functions.activation.softmax import softmax_array
from minigrad.functions.checks import as_input, constant, require_flag, require_labels, require_nonempty
from minigrad.functions.loss._common import check_reduce, widened
from minigrad.variable import Variable

__all__ = ["SoftmaxCrossEntropy", "SoftmaxCrossEntropyGrad", "softmax_cross_entropy"]


class SoftmaxCrossEntropy(FunctionNode):
    def __init__(self, normalize: bool, cache_score: bool, class_weight: Any, ignore_label: int,
                 reduce: str, batch_size: int) -> None:
        self.normalize = normalize
        self.cache_score = cache_score
        self.class_weight = class_weight
        self.ignore_label = ignore_label
        self.reduce = reduce
        self.batch_size = batch_size
        self.exp_scores = self.row_sums = None

    def forward(self, inputs):
        self.retain_inputs((0,))
        x, t = inputs
        xp = get_array_module(x)
        scores = widened(x)
        max_scores = scores.max(axis=1, keepdims=True)
        exp_scores = scores - max_scores
        xp.exp(exp_scores, out=exp_scores)
        row_sums = exp_scores.sum(axis=1)
        valid = t != self.ignore_label
        self.labels = t * valid  # ignored rows point at class 0; their weight is 0
        self.rows = xp.arange(len(t))
        log_p = scores[self.rows, self.labels] - max_scores[:, 0] - xp.log(row_sums)
        weight = valid.astype(scores.dtype)
        if self.class_weight is not None:
            weight *= self.class_weight.astype(scores.dtype, copy=False)[self.labels]
        if self.reduce == "mean":
            if self.normalize:
                weight /= xp.maximum(valid.sum(), 1).astype(scores.dtype)
            else:
                weight *= scores.dtype.type(1 / max(self.batch_size, 1))
            loss = -log_p.dot(weight)
        else:
            loss = -log_p * weight
        self.row_weight = weight  # d loss / d log_p[row], up to sign
        if self.cache_score:
            self.exp_scores, self.row_sums = exp_scores, row_sums
        return xp.asarray(loss, dtype=x.dtype),

    def softmax(self, x: Any, reuse_cache: bool = False) -> Any:
        """softmax(x) as a fresh array in the working dtype (float32 for float16 scores).

        ``reuse_cache`` turns the cached exponentials into the result in place
        (no allocation) and drops the cache; a later call recomputes from ``x``.
        """
        exp_scores = self.exp_scores
        if exp_scores is None:
            return softmax_array(widened(x), 1)
        if reuse_cache:
            self.exp_scores = None
            exp_scores /= self.row_sums[:, None]
            return exp_scores
        return exp_scores / self.row_sums[:, None]

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return SoftmaxCrossEntropyGrad(self).apply((x, grad_outputs[0]))[0], None


class SoftmaxCrossEntropyGrad(FunctionNode):
    """``gx = (softmax(x) - onehot(t)) * (gy * row_weight)[:, None]`` for a SoftmaxCrossEntropy node."""

    def __init__(self, loss: SoftmaxCrossEntropy) -> None:
        self.loss = loss

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, gy = inputs
        loss = self.loss
        # Without double backprop this node's backward never runs, so the cache can be consumed.
        gx = loss.softmax(x, reuse_cache=not config.enable_backprop)
        gx[loss.rows, loss.labels] -= 1
        gx *= (loss.row_weight * gy.astype(gx.dtype, copy=False))[:, None]
        return gx.astype(x.dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        x, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        loss = self.loss
        y = F.Softmax(1, loss.softmax(x.array).astype(x.dtype, copy=False)).apply((x,))[0]
        row_weight = constant(loss.row_weight.astype(x.dtype, copy=False))
        result = []
        for i in indexes:
            if i == 0:  # the softmax Jacobian (symmetric) applied to ggx * c
                g = ggx * (gy * row_weight).reshape((x.shape[0], 1))
                result.append(y * (g - F.sum(y * g, axis=1, keepdims=True)))
            else:
                onehot = x.xp.zeros(x.shape, dtype=x.dtype)
                onehot[loss.rows, loss.labels] = 1
                per_row = F.sum(ggx * (y - constant(onehot)), axis=1) * row_weight
                result.append(F.sum(per_row) if gy.ndim == 0 else per_row)
        return tuple(result)


def softmax_cross_entropy(
    x: Any,
    t: Any,
    normalize: bool = True,
    cache_score: bool = True,
    class_weight: Any = None,
    ignore_label: int = -1,
    reduce: str = "mean",
    enable_double_backprop: bool = False,
    soft_target_loss: str = "cross-entropy",
) -> Variable:
    """Cross entropy between ``softmax(x, axis=1)`` and integer labels ``t`` (or soft targets).

    Args:
        x: float scores of shape ``(N, C)`` or ``(N, C, d1, ...)``.
        t: integer labels of shape ``(N,)`` or ``(N, d1, ...)``, in ``[0, C)``
            or equal to ``ignore_label``; or, as in Chainer v7, soft targets:
            a float array of ``x``'s shape and dtype holding a distribution over
            the classes (axis 1) at each position. ``t`` gets no gradient.
        normalize: with ``reduce="mean"``, divide by the number of labels that
            are not ignored (True) or by the batch size ``N`` (False).
        cache_score: keep the softmax from the forward pass for the backward
            (faster, more memory); False recomputes it.
        class_weight: optional float array of shape ``(C,)``: the loss of a
            label ``k`` is multiplied by ``class_weight[k]``.
        ignore_label: labels with this value contribute nothing.
        reduce: ``"mean"`` (a 0-dim loss) or ``"no"`` (one loss per label, of
            ``t``'s shape, 0 where ignored).
        enable_double_backprop: accepted for Chainer compatibility; the loss is
            always twice differentiable.
        soft_target_loss: with soft targets, ``"cross-entropy"``
            (``-sum(t * log softmax(x))`` over the classes) or ``"kl-divergence"``
            (that minus the entropy of ``t``, taking ``0 log 0 = 0``). Soft
            targets ignore ``normalize``, ``ignore_label`` and ``cache_score``;
            ``"mean"`` divides by the number of positions (``x.size / C``).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.array([[0.0, 0.0], [0.0, np.log(3.0)]])
        >>> F.softmax_cross_entropy(x, np.array([0, 1])).array
        array(0.49041463)
    """
    op = "softmax_cross_entropy"
    x = as_input(op, x, float_only=True)
    t = as_input(op, t, "t")
    if x.ndim < 2:
        raise ValueError(f"{op}: x must have shape (N, C) or (N, C, d1, ...), got shape {x.shape}")
    if isinstance(ignore_label, bool) or not isinstance(ignore_label, (int, numpy.integer)):
        raise TypeError(f"{op}: ignore_label must be an int, got {type(ignore_label).__name__}")
    reduce = check_reduce(op, reduce, ("mean", "no"))
    require_flag(op, enable_double_backprop, "enable_double_backprop")
    if soft_target_loss not in _SOFT_TARGET_LOSSES:
        raise ValueError(f"{op}: soft_target_loss must be one of {_SOFT_TARGET_LOSSES}, got {soft_target_loss!r}")
    if t.dtype.kind == "f":
        return _soft_target_loss(op, x, t, class_weight, reduce, soft_target_loss)
    if t.dtype.kind not in "iu":
        raise TypeError(f"{op}: t must hold integer class labels (or float soft targets), got dtype {t.dtype}")
    expected = x.shape[:1] + x.shape[2:]
    if t.shape != expected:
        raise ValueError(f"{op}: t must have shape {expected} for x of shape {x.shape}, got {t.shape}")
    n_classes = x.shape[1]
    require_labels(op, t, n_classes, ignore_label)
    if class_weight is not None:
        class_weight = getattr(class_weight, "array", class_weight)
        if not hasattr(class_weight, "dtype") or class_weight.dtype.kind != "f" or class_weight.shape != (n_classes,):
            raise ValueError(
                f"{op}: class_weight must be a float array of shape ({n_classes},), got "
                f"{getattr(class_weight, 'shape', type(class_weight).__name__)}"
            )
        class_weight = x.xp.asarray(class_weight)
    scores, labels = x, t
    if x.ndim > 2:
        scores = F.reshape(F.transpose(x, (0,) + tuple(range(2, x.ndim)) + (1,)), (-1, n_classes))
        labels = as_input(op, t.array.reshape(-1), "t")
    flags = require_flag(op, normalize, "normalize"), require_flag(op, cache_score, "cache_score")
    node = SoftmaxCrossEntropy(*flags, class_weight, int(ignore_label), reduce, x.shape[0])
    loss = node.apply((scores, labels))[0]
    if reduce == "no" and x.ndim > 2:
        loss = F.reshape(loss, t.shape)
    return loss


_SOFT_TARGET_LOSSES = ("cross-entropy", "kl-divergence")


def _soft_target_loss(op: str, x: Variable, t: Variable, class_weight: Any, reduce: str, kind: str) -> Variable:
    """``-sum(t * log_softmax(x), axis=1)`` (minus ``t``'s entropy for KL), composed of minigrad ops."""
    if t.shape != x.shape or t.dtype != x.dtype:
        labels = t.shape == x.shape[:1] + x.shape[2:]
        raise ValueError(f"{op}: a float t is read as soft targets, which must have x's shape {x.shape} and dtype "
                         f"{x.dtype}; got shape {t.shape} and dtype {t.dtype}"
                         + ("; for class labels, give t an integer dtype (t.astype(numpy.int32))" if labels else ""))
    if class_weight is not None:
        raise ValueError(f"{op}: class_weight is not supported with soft targets (t of dtype {t.dtype})")
    target = constant(t.array)  # no gradient flows into the targets, as in Chainer
    loss = -F.sum(target * F.log_softmax(x, axis=1), axis=1)
    if kind == "kl-divergence":
        xp, p = x.xp, t.array
        entropy_term = (p * xp.log(xp.where(p > 0, p, 1))).sum(axis=1)  # 0 log 0 = 0, with no log(0) warning
        loss = loss + constant(entropy_term.astype(x.dtype, copy=False))
    if reduce == "no":
        return loss
    return F.sum(loss) / float(require_nonempty(op, loss))
