"""black_out: the BlackOut loss, a softmax over the true class and a few sampled classes.

With ``z_n = [x_n . W[t_n], x_n . W[s_n1], ..., x_n . W[s_nk]]`` and
``p = softmax(z_n)``, ``loss_n = -log p_0 - sum_j log(1 - p_j)``, where
``log(1 - p_j) = log(-expm1(z_nj - logsumexp(z_n)))`` stays accurate for small
``p_j``. Composed of ``embed_id``, products, sums, ``logsumexp``, ``expm1``
and ``log``, so every order of gradient comes from those ops.
"""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.functions.loss._common import check_reduce
from minigrad.functions.loss._sampled import inputs_and_weights, on_device_of, require_ids
from minigrad.variable import Variable

__all__ = ["black_out"]


def black_out(x: Any, t: Any, W: Any, samples: Any, reduce: str = "mean") -> Variable:
    """BlackOut loss: ``-log p(t) - sum over samples s of log(1 - p(s))``, ``p`` a softmax over ``{t} + samples``.

    ``p(y) = exp(x . w_y) / (exp(x . w_t) + sum_s exp(x . w_s))``, ``w_y`` the row
    ``y`` of ``W`` (Zhang et al., "BlackOut: Speeding up recurrent neural network
    language models with very large vocabularies", 2016).

    Args:
        x: float input vectors ``(N, D)``.
        t: integer labels ``(N,)`` in ``[0, V)``. (Chainer's docstring also
            mentions ``-1``, but its implementation does not ignore it; here it
            is an error.)
        W: float weight matrix ``(V, D)``, x's dtype.
        samples: integer negative samples ``(N, S)`` in ``[0, V)`` (an array,
            e.g. from ``WalkerAlias.sample``; they get no gradient).
        reduce: ``"mean"`` (a 0-dim mean over the batch) or ``"no"`` (``(N,)``).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x, W = np.array([[1.0, 0.0]]), np.array([[0.0, 0.0], [1.0, 0.0]])
        >>> loss = F.black_out(x, np.array([0]), W, np.array([[1]]))
        >>> p = np.exp([0.0, 1.0]) / np.exp([0.0, 1.0]).sum()
        >>> np.allclose(loss.array, -np.log(p[0]) - np.log(1 - p[1]))
        True
    """
    op = "black_out"
    x, t, W = inputs_and_weights(op, x, t, W)
    samples = getattr(samples, "array", samples)  # Chainer passes a Variable holding the ids
    samples = on_device_of(op, samples, x, "samples")
    if samples.ndim != 2 or samples.shape[0] != x.shape[0] or samples.shape[1] < 1:
        raise ValueError(f"{op}: samples must have shape (N, S) with N = {x.shape[0]} rows of x and S >= 1, "
                         f"got shape {samples.shape}")
    reduce = check_reduce(op, reduce, ("mean", "no"))
    if reduce == "mean" and x.shape[0] == 0:
        raise ValueError(f"{op}: reduce='mean' cannot average an empty batch (x of shape {x.shape}); use reduce='no'")
    n_vocab = W.shape[0]
    require_ids(op, t.array, n_vocab, "t")
    require_ids(op, samples, n_vocab, "samples")

    positive = F.sum(F.embed_id(t.array, W) * x, axis=1, keepdims=True)                   # (N, 1)
    negative = F.sum(F.embed_id(samples, W) * F.expand_dims(x, 1), axis=2)                 # (N, S)
    log_z = F.logsumexp(F.concat((positive, negative), axis=1), axis=1)                    # (N,)
    log_not_chosen = F.log(-F.expm1(negative - F.broadcast_to(F.expand_dims(log_z, 1), negative.shape)))
    each = log_z - F.reshape(positive, (x.shape[0],)) - F.sum(log_not_chosen, axis=1)
    return F.mean(each) if reduce == "mean" else each
