"""negative_sampling: word2vec's loss, a logistic loss on the true class and on a few sampled ones.

For row ``n``, with ``s_n0 = t_n`` and ``s_n1..s_nk`` drawn by the sampler,
``loss_n = softplus(-x_n . W[s_n0]) + sum_j softplus(x_n . W[s_nj])``
(``-log sigmoid(z) = softplus(-z)``). It is composed of ``embed_id``,
products, sums and ``softplus``, so every order of gradient comes from those
ops; the cost is one gather of ``(N, k + 1, D)`` rows, as in a dedicated kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import minigrad.functions as F
from minigrad.backend import get_array_module
from minigrad.functions.checks import constant, require_flag, require_result_size, require_size
from minigrad.functions.loss._common import check_reduce
from minigrad.functions.loss._sampled import inputs_and_weights, on_device_of, require_ids
from minigrad.variable import Variable

__all__ = ["negative_sampling"]

IGNORE_LABEL = -1


def negative_sampling(x: Any, t: Any, W: Any, sampler: Callable[[tuple[int, int]], Any], sample_size: int,
                      reduce: str = "sum", *, return_samples: bool = False) -> Variable | tuple[Variable, Any]:
    """Negative sampling loss: ``-log sigmoid(dot(x, w_t)) - sum over sampled s of log sigmoid(-dot(x, w_s))``.

    Args:
        x: float input vectors ``(N, D)``.
        t: integer labels ``(N,)`` in ``[0, V)``; ``-1`` marks a row to ignore
            (its loss is 0 and it gets no gradient).
        W: float weight matrix ``(V, D)``, x's dtype; row ``i`` is ``w_i``.
        sampler: ``sampler(shape)`` -> an integer array of ``shape`` of ids in
            ``[0, V)`` (e.g. ``WalkerAlias(counts ** 0.75).sample``). It is
            called once with ``(N, sample_size + 1)``; column 0 is then
            replaced by ``t``, the others are the negative samples.
        sample_size: the number ``k >= 1`` of negative samples per row.
        reduce: ``"sum"`` (a 0-dim loss summed over the batch) or ``"no"`` (``(N,)``).
        return_samples: also return the ``(N, sample_size + 1)`` ids used,
            ``t`` in column 0 (a new array: the sampler's answer is not modified).

    Returns:
        The loss, or ``(loss, samples)`` with ``return_samples=True``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.array([[1.0, 0.0]])
        >>> W = np.array([[2.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
        >>> loss, samples = F.negative_sampling(x, np.array([0]), W, lambda shape: np.full(shape, 2),
        ...                                     sample_size=2, return_samples=True)
        >>> samples
        array([[0, 2, 2]])
        >>> np.allclose(loss.array, np.log1p(np.exp(-2.0)) + 2 * np.log1p(np.exp(-1.0)))
        True
    """
    op = "negative_sampling"
    x, t, W = inputs_and_weights(op, x, t, W)
    sample_size = require_size(op, sample_size, "sample_size", minimum=1)
    return_samples = require_flag(op, return_samples, "return_samples")
    reduce = check_reduce(op, reduce, ("sum", "no"))
    if not callable(sampler):
        raise TypeError(f"{op}: sampler must be a callable sampler(shape) -> integer array, "
                        f"got {type(sampler).__name__}")
    n_vocab, labels = W.shape[0], t.array
    require_ids(op, labels, n_vocab, "t", allowed=IGNORE_LABEL)
    shape = require_result_size(op, (x.shape[0], sample_size + 1), "sample_size")
    drawn = on_device_of(op, sampler(shape), x, "the sampler's answer")
    if drawn.shape != shape:
        raise ValueError(f"{op}: sampler{shape} must return an array of shape {shape}, got shape {drawn.shape}")
    samples = drawn.astype(labels.dtype if drawn.dtype.itemsize < labels.dtype.itemsize else drawn.dtype)
    samples[:, 0] = labels
    require_ids(op, samples[:, 1:], n_vocab, "the sampler's answer")

    xp = get_array_module(x)
    kept = labels != IGNORE_LABEL
    gathered = F.embed_id(xp.where(kept[:, None], samples, 0), W)               # (N, k + 1, D)
    scores = F.sum(gathered * F.expand_dims(x, 1), axis=2)                    # x_n . w_s, (N, k + 1)
    sign = xp.ones(shape, dtype=x.dtype)
    sign[:, 0] = -1                                                           # -log sigmoid(z) = softplus(-z)
    each = F.sum(F.softplus(scores * constant(sign)), axis=1) * constant(kept.astype(x.dtype))
    loss = F.sum(each) if reduce == "sum" else each
    return (loss, samples) if return_samples else loss
