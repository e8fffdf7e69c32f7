"""crf1d and argmax_crf1d: a linear-chain conditional random field over a batch of sequences (Chainer's).

The sequences come as time steps, as ``transpose_sequence`` makes them: ``xs[t]``
of shape ``(B_t, K)`` holds the unary scores of the ``B_t`` sequences longer
than ``t`` (batch sizes never increase), ``ys[t]`` their labels, and
``cost[i, j]`` scores the transition from label ``i`` to ``j``. The score of a
labelling is the sum of its unary scores and transitions; ``crf1d`` is the
negative log-likelihood ``logsumexp`` over every labelling minus the score of
``ys`` (the forward algorithm), ``argmax_crf1d`` the best labelling (Viterbi).
Both are composed of logsumexp / max, gathers and sums, so every gradient, to
every order, comes from verified nodes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.backend import get_array_module
from minigrad.functions.checks import as_input, constant, require_integer, require_labels, require_ndim
from minigrad.functions.loss._common import check_reduce, sum_divided
from minigrad.variable import Variable

__all__ = ["crf1d", "argmax_crf1d"]


def _checked(op: str, cost: Any, xs: Any, ys: Any = None) -> tuple[Variable, list[Variable], list[Any]]:
    """``cost`` (K, K), the time steps ``xs[t]`` (B_t, K) with non-increasing ``B_t >= 1``, and the labels
    ``ys[t]`` (B_t,) in ``[0, K)`` as arrays (when given)."""
    cost = as_input(op, cost, "cost", float_only=True)
    require_ndim(op, cost, 2, "cost")
    n_label = cost.shape[0]
    if cost.shape[1] != n_label:
        raise ValueError(f"{op}: cost must be a square (n_label, n_label) matrix, got shape {cost.shape}")
    if not isinstance(xs, (list, tuple)) or not xs:
        raise TypeError(f"{op}: xs must be a non-empty list of time steps, got "
                        f"{type(xs).__name__ if not isinstance(xs, (list, tuple)) else 'an empty one'}")
    xs = [as_input(op, x, f"xs[{t}]", float_only=True) for t, x in enumerate(xs)]
    for t, x in enumerate(xs):
        if x.ndim != 2 or x.shape[1] != n_label or x.dtype != cost.dtype:
            raise ValueError(f"{op}: xs[{t}] must have shape (batch, {n_label}) and dtype {cost.dtype} like cost, "
                             f"got shape {x.shape} and dtype {x.dtype}")
        if not 0 < x.shape[0] <= (xs[t - 1].shape[0] if t else x.shape[0]):
            raise ValueError(f"{op}: the batch sizes of xs must be positive and never increase (sequences longest "
                             f"first, as transpose_sequence gives them); xs[{t}] has {x.shape[0]}")
    labels = []
    if ys is not None:
        if not isinstance(ys, (list, tuple)) or len(ys) != len(xs):
            raise ValueError(f"{op}: ys must be a list of {len(xs)} label arrays, one per time step of xs")
        for t, (x, y) in enumerate(zip(xs, ys)):
            y = as_input(op, y, f"ys[{t}]")
            require_integer(op, y, f"ys[{t}]")
            if y.shape != (x.shape[0],):
                raise ValueError(f"{op}: ys[{t}] must have shape ({x.shape[0]},) like xs[{t}]'s batch, got {y.shape}")
            labels.append(y.array)
        every = constant(cost.xp.concatenate(labels))
        require_labels(op, every, n_label, None, "ys")  # one range check (one device read) for every step
    return cost, xs, labels


def _one_hot(labels: Any, n_label: int, dtype: Any) -> Variable:
    """``(B,)`` labels as a constant ``(B, n_label)`` 0/1 matrix: picking with it needs no index check
    (no device read)."""
    xp = get_array_module(labels)
    return constant((labels[:, None] == xp.arange(n_label)).astype(dtype))


def _split_finished(value: Variable, batch: int, finished: list[Variable]) -> Variable:
    """The rows of ``value`` for the ``batch`` sequences that go on; the others are appended to ``finished``."""
    if value.shape[0] > batch:
        finished.append(value[batch:])
        value = value[:batch]
    return value


def _joined(value: Variable, finished: list[Variable]) -> Variable:
    """``value`` (the longest sequences) with the rows of the sequences that ended earlier, in batch order."""
    return F.concat([value] + finished[::-1], axis=0) if finished else value


def crf1d(cost: Any, xs: Sequence[Any], ys: Sequence[Any], reduce: str = "mean") -> Variable:
    """The negative log-likelihood of the labels ``ys`` under a linear-chain CRF, as in Chainer.

    Args:
        cost: transition scores ``(K, K)``; ``cost[i, j]`` for label ``i`` followed by ``j``.
        xs: a list of time steps ``(B_t, K)`` of unary scores, ``B_0 >= B_1 >= ...``
            (``transpose_sequence`` of sequences sorted longest first).
        ys: a list of integer labels ``(B_t,)`` in ``[0, K)``, one per time step.
        reduce: ``"mean"`` (the sum over the sequences divided by ``B_0``) or
            ``"no"`` (one loss per sequence, shape ``(B_0,)``).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> cost = np.zeros((2, 2))
        >>> xs = [np.array([[0.0, 0.0]]), np.array([[0.0, 0.0]])]  # one sequence of 2 steps, no preference
        >>> ys = [np.array([0]), np.array([1])]
        >>> bool(np.isclose(F.crf1d(cost, xs, ys).array, np.log(4.0)))  # 4 labellings, all equally likely
        True
    """
    op = "crf1d"
    check_reduce(op, reduce, ("mean", "no"))
    cost, xs, ys = _checked(op, cost, xs, ys)
    finished: list[Variable] = []
    alpha = xs[0]  # alpha[b, j]: logsumexp of the scores of the prefixes of sequence b ending in label j
    for x in xs[1:]:
        alpha = _split_finished(alpha, x.shape[0], finished)
        alpha = F.logsumexp(F.expand_dims(alpha, 2) + cost, axis=1) + x
    log_z = F.logsumexp(_joined(alpha, finished), axis=1)
    finished = []
    n_label, dtype = cost.shape[0], cost.dtype
    score = F.sum(xs[0] * _one_hot(ys[0], n_label, dtype), axis=1)  # the gold score, accumulated the same way
    for x, y, y_prev in zip(xs[1:], ys[1:], ys[:-1]):
        score = _split_finished(score, x.shape[0], finished)
        now, before = _one_hot(y, n_label, dtype), _one_hot(y_prev[:x.shape[0]], n_label, dtype)
        transition = F.sum(F.matmul(before, cost) * now, axis=1)  # cost[y_prev, y]
        score = score + F.sum(x * now, axis=1) + transition
    loss = log_z - _joined(score, finished)
    return sum_divided(loss, loss.shape[0]) if reduce == "mean" else loss


def argmax_crf1d(cost: Any, xs: Sequence[Any]) -> tuple[Variable, list[Any]]:
    """The best labelling of each sequence under a linear-chain CRF (Viterbi), as in Chainer.

    Args:
        cost, xs: as in :func:`crf1d`.

    Returns:
        ``(score, path)``: the best scores, a Variable ``(B_0,)`` (differentiable),
        and the labels, a list of integer arrays ``(B_t,)``, one per time step.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> cost = np.array([[0.0, -5.0], [-5.0, 0.0]])  # switching label costs 5
        >>> xs = [np.array([[1.0, 0.0]]), np.array([[0.0, 2.0]]), np.array([[1.0, 0.0]])]
        >>> score, path = F.argmax_crf1d(cost, xs)
        >>> score.array, [int(p[0]) for p in path]  # staying on 0 scores 2, any switch costs more
        (array([2.]), [0, 0, 0])
    """
    op = "argmax_crf1d"
    cost, xs, _ = _checked(op, cost, xs)
    finished: list[Variable] = []
    best_previous = []  # best_previous[t][b, j]: the best label before label j at step t + 1
    alpha = xs[0]
    for x in xs[1:]:
        alpha = _split_finished(alpha, x.shape[0], finished)
        scores = F.expand_dims(alpha, 2) + cost
        best_previous.append(scores.array.argmax(axis=1))
        alpha = F.max(scores, axis=1) + x
    alpha = _joined(alpha, finished)
    xp = alpha.xp
    last = alpha.array.argmax(axis=1)  # each sequence's best last label
    label = last[:xs[-1].shape[0]]
    path = [label]
    for t in range(len(xs) - 1, 0, -1):  # back from the last step: a sequence that ends at t - 1 takes its last label
        followed = best_previous[t - 1][xp.arange(len(label)), label]
        label = xp.concatenate([followed, last[len(label):xs[t - 1].shape[0]]])
        path.append(label)
    return F.max(alpha, axis=1), path[::-1]
