"""connectionist_temporal_classification: the CTC loss (Chainer's), the negative log of the probability that a
frame-wise labelling collapses to the target.

An alignment labels each of the ``T`` frames with a symbol or the blank; it
collapses to a target by merging repeats and dropping blanks. The loss is
``-log`` of the sum of the probabilities of the alignments that collapse to
``t``: the forward algorithm over the target with blanks around and between its
labels (``2L + 1`` states), in log space. It is composed of log_softmax,
logsumexp, where and concat with the target's structure as constants, so every
gradient, to every order, comes from verified nodes; float16 inputs are summed
in float32.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.functions.checks import as_input, constant, require_integer, require_ndim
from minigrad.functions.loss._common import check_reduce, sum_divided
from minigrad.variable import Variable

__all__ = ["connectionist_temporal_classification"]

_LOG_ZERO = -1e30  # the log-probability of an unreachable state: finite, so no inf - inf ever makes a NaN


def connectionist_temporal_classification(x: Sequence[Any] | Any, t: Any, blank_symbol: int, input_length: Any = None,
                                          label_length: Any = None, reduce: str = "mean") -> Variable:
    """The CTC loss of the frame scores ``x`` for the targets ``t``, as in Chainer.

    Args:
        x: the unnormalized log-probabilities of the ``V`` symbols at each of
            ``T`` frames: a list of ``T`` arrays ``(B, V)`` (or one ``(T, B, V)`` array).
        t: the targets, integers ``(B, L)`` in ``[0, V)``; the labels after
            ``label_length[b]`` are padding and may hold anything.
        blank_symbol: the blank's symbol, in ``[0, V)``.
        input_length: the frames of each sample, ``(B,)`` integers in ``[1, T]``
            (default: all ``T``); later frames are ignored.
        label_length: the labels of each target, ``(B,)`` integers in ``[0, L]`` (default: all ``L``).
        reduce: ``"mean"`` (the losses summed over the batch, divided by ``B``) or ``"no"`` (``(B,)``).

    A target that no alignment reaches (too few frames for its labels and
    the blanks its repeats need) has probability 0: its loss is about 1e30.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = [np.zeros((1, 2))] * 2  # two frames, symbols {blank 0, a 1} equally likely
        >>> loss = F.connectionist_temporal_classification(x, np.array([[1]]), blank_symbol=0)
        >>> bool(np.isclose(loss.array, -np.log(3 / 4)))  # "a" from "a-", "-a" or "aa" of the 4 alignments
        True
    """
    op = "connectionist_temporal_classification"
    check_reduce(op, reduce, ("mean", "no"))
    if not isinstance(x, (list, tuple)):
        x = as_input(op, x, "x", float_only=True)
        require_ndim(op, x, 3, "x")
        x = F.separate(x, axis=0)
    if not x:
        raise ValueError(f"{op}: x must hold at least one frame")
    xs = [as_input(op, frame, f"x[{i}]", float_only=True) for i, frame in enumerate(x)]
    if any(frame.ndim != 2 or frame.shape != xs[0].shape or frame.dtype != xs[0].dtype for frame in xs):
        raise ValueError(f"{op}: every frame must be a (batch, n_symbol) array of x[0]'s shape and dtype "
                         f"{xs[0].shape} {xs[0].dtype}; got {[(f.shape, str(f.dtype)) for f in xs]}")
    n_frame, (batch, n_symbol), dtype = len(xs), xs[0].shape, xs[0].dtype
    xp = xs[0].xp
    t, blank = _targets(op, t, blank_symbol, batch, n_symbol, xp)
    n_label = t.shape[1]
    frames = _lengths(op, input_length, "input_length", batch, n_frame, xp)
    labels = _lengths(op, label_length, "label_length", batch, n_label, xp)
    _require_in_range(op, t, frames, labels, n_frame, n_symbol, xp)

    # the states: blank, t_1, blank, t_2, ..., blank (2L + 1 of them); padding labels read as blanks
    padded = xp.where(xp.arange(n_label) < labels[:, None], t, blank)
    states = xp.full((batch, 2 * n_label + 1), blank, dtype=t.dtype)
    states[:, 1::2] = padded
    work = numpy.dtype(numpy.float32) if dtype == numpy.float16 else dtype
    emits = constant((states[:, :, None] == xp.arange(n_symbol)).astype(work))  # (B, S, V) picks each state's symbol
    skips = xp.zeros(states.shape, dtype=bool)  # a state reached from two states back: a label other than the last one
    skips[:, 2:] = (states[:, 2:] != blank) & (states[:, 2:] != states[:, :-2])
    position = xp.arange(states.shape[1])
    log_zero = xp.full((batch, 2), _LOG_ZERO, dtype=work)

    def emission(frame: Variable) -> Variable:
        log_p = F.log_softmax(F.cast(frame, work) if frame.dtype != work else frame, axis=1)
        return F.reshape(F.matmul(emits, F.expand_dims(log_p, 2)), states.shape)

    alpha = emission(xs[0]) + constant(xp.where(position < 2, 0.0, _LOG_ZERO).astype(work))
    for step, frame in enumerate(xs[1:], start=1):
        before = F.concat([log_zero[:, :1], alpha[:, :-1]], axis=1)
        two_before = F.where(skips, F.concat([log_zero, alpha[:, :-2]], axis=1), _LOG_ZERO)
        moved = F.logsumexp(F.stack([alpha, before, two_before], axis=2), axis=2) + emission(frame)
        alpha = F.where((step < frames)[:, None], moved, alpha)  # a sample whose frames have ended keeps its alpha
    last = 2 * labels[:, None]  # the final blank's state; the last label's is one before it
    ends = (position == last) | (position == last - 1)
    loss = -F.logsumexp(alpha + constant(xp.where(ends, 0.0, _LOG_ZERO).astype(work)), axis=1)
    if work != dtype:
        loss = F.cast(loss, dtype)
    return sum_divided(loss, batch) if reduce == "mean" else loss


def _targets(op: str, t: Any, blank: Any, batch: int, n_symbol: int, xp: Any) -> tuple[Any, int]:
    t = as_input(op, t, "t")
    require_integer(op, t, "t")
    if t.ndim != 2 or t.shape[0] != batch:
        raise ValueError(f"{op}: t must have shape (batch, max_label_length) with batch {batch}, got {t.shape}")
    if isinstance(blank, bool) or not isinstance(blank, (int, numpy.integer)) or not 0 <= blank < n_symbol:
        raise ValueError(f"{op}: blank_symbol must be an int in [0, {n_symbol}), got {blank!r}")
    return xp.asarray(t.array), int(blank)


def _lengths(op: str, lengths: Any, argname: str, batch: int, most: int, xp: Any) -> Any:
    """The per-sample lengths as a ``(B,)`` integer array of the frames' device (``most`` each when None)."""
    if lengths is None:
        return xp.full(batch, most)
    lengths = as_input(op, lengths, argname)
    require_integer(op, lengths, argname)
    if lengths.shape != (batch,):
        raise ValueError(f"{op}: {argname} must have shape ({batch},), got {lengths.shape}")
    return xp.asarray(lengths.array)


def _require_in_range(op: str, t: Any, frames: Any, labels: Any, n_frame: int, n_symbol: int, xp: Any) -> None:
    """Frames in [1, T], label counts in [0, L] and the real labels in [0, V), read from the device once."""
    n_label = t.shape[1]
    bad_frames = (frames < 1) | (frames > n_frame)
    bad_counts = (labels < 0) | (labels > n_label)
    bad_labels = (xp.arange(n_label) < labels[:, None]) & ((t < 0) | (t >= n_symbol))
    if not bool(bad_frames.any() | bad_counts.any() | bad_labels.any()):  # the one read of a valid call
        return
    if bool(bad_frames.any()):
        raise ValueError(f"{op}: input_length must be in [1, {n_frame}] (the frames of x), got {frames.tolist()}")
    if bool(bad_counts.any()):
        raise ValueError(f"{op}: label_length must be in [0, {n_label}] (t's columns), got {labels.tolist()}")
    raise ValueError(f"{op}: t has labels outside [0, {n_symbol}): {t[bad_labels].tolist()[:5]}")
