"""discriminative_margin_based_clustering_loss: De Brabandere et al.'s loss for instance segmentation by pixel
embeddings (Chainer's ``F.discriminative_margin_based_clustering_loss``).

Pixels labelled ``k + 1`` form cluster ``k`` (``k < max_embedding_dim``; other
labels, 0 the background, belong to none). With ``mu`` each cluster's mean
embedding in each image, the three terms, as Chainer computes them, are:

- variance (pull): ``max(|mu - e| - delta_v, 0)^2`` summed over each cluster's
  pixels, divided by its pixel count over the batch, summed over clusters / K;
- distance (push): ``max(2 delta_d - |mu_a - mu_b|, 0)^2`` over the pairs of
  clusters and the images, divided by their number;
- regularization: ``|mu_k|`` over the whole batch summed over clusters, / (K N);

``|.|`` the L1 or L2 norm. Composed of minigrad ops, so every order works. The
L2 norm of a zero vector (a pixel outside a cluster, an absent cluster's mean)
is taken with a zero gradient; Chainer's ``sqrt`` gives NaN there.
"""

from __future__ import annotations

from typing import Any

import numpy

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.functions.checks import as_input, constant, require_integer, require_real, require_size
from minigrad.variable import Variable

__all__ = ["discriminative_margin_based_clustering_loss"]


def _norm(x: Variable, axis: Any, norm: int) -> Variable:
    if norm == 1:
        return F.sum(F.absolute(x), axis=axis)
    squares = F.sum(x * x, axis=axis)
    positive = constant(squares.array > 0)  # sqrt's gradient at 0 is infinite: there the norm is flat (0)
    return F.where(positive, F.sqrt(F.where(positive, squares, 1.0 + 0 * squares)), 0 * squares)


def discriminative_margin_based_clustering_loss(
        embeddings: Any, labels: Any, delta_v: float, delta_d: float, max_embedding_dim: int, norm: int = 1,
        alpha: float = 1.0, beta: float = 1.0, gamma: float = 0.001) -> tuple[Variable, Variable, Variable]:
    """The variance, distance and regularization terms of the discriminative loss, weighted by ``alpha``,
    ``beta`` and ``gamma``: a tuple of three 0-dim Variables (add them for the loss).

    Args:
        embeddings: ``(N, K, H, W)`` float pixel embeddings, ``K = max_embedding_dim``.
        labels: ``(N, H, W)`` integer instance labels: ``k + 1`` is cluster ``k`` for ``k < K``; any other
            value (0, the background) is in no cluster. No gradient.
        delta_v: the distance to its cluster's mean within which a pixel is not pulled.
        delta_d: half the distance between two cluster means beyond which they are not pushed.
        max_embedding_dim: ``K``, both the embedding size and the number of clusters (as in Chainer).
        norm: 1 or 2, the norm of the distances.
        alpha, beta, gamma: the weights of the three terms.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> emb = np.array([[[[0.0, 2.0]], [[0.0, 0.0]]]])   # N=1, K=2, H=1, W=2: pixel embeddings (0, 0), (2, 0)
        >>> labels = np.array([[[1, 2]]])                     # one pixel per cluster
        >>> variance, distance, regularization = F.discriminative_margin_based_clustering_loss(
        ...     emb, labels, 0.5, 1.5, 2, norm=2, gamma=1.0)
        >>> float(variance.array), float(distance.array), float(regularization.array)  # (3 - 2)^2, |(2,0)| / 2
        (0.0, 1.0, 1.0)
    """
    op = "discriminative_margin_based_clustering_loss"
    embeddings = as_input(op, embeddings, "embeddings", float_only=True)
    labels = as_input(op, labels, "labels")
    require_integer(op, labels, "labels")
    k = require_size(op, max_embedding_dim, "max_embedding_dim", minimum=1)
    if embeddings.ndim != 4 or embeddings.shape[1] != k:
        raise ValueError(f"{op}: embeddings must have shape (N, max_embedding_dim={k}, H, W), got "
                         f"{embeddings.shape}")
    n, _, h, w = embeddings.shape
    if labels.shape != (n, h, w):
        raise ValueError(f"{op}: labels must have shape (N, H, W) = {(n, h, w)}, got {labels.shape}")
    if isinstance(norm, (bool, numpy.bool_)) or norm not in (1, 2):
        raise ValueError(f"{op}: norm must be 1 or 2, got {norm!r}")
    delta_v, delta_d, alpha, beta, gamma = (require_real(op, value, name) for value, name in (
        (delta_v, "delta_v"), (delta_d, "delta_d"), (alpha, "alpha"), (beta, "beta"), (gamma, "gamma")))

    xp = embeddings.xp
    clusters = xp.arange(1, k + 1).reshape(k, 1, 1, 1, 1)
    masks = labels.array[None, :, None] == clusters              # (K, N, 1, H, W)
    in_cluster = constant(masks.astype(embeddings.dtype))
    counts = masks.sum(axis=(3, 4)).astype(embeddings.dtype)     # (K, N, 1) pixels per cluster and image
    means = F.sum(embeddings[None] * in_cluster, axis=(3, 4)) / constant(xp.maximum(counts, 1))  # (K, N, K)

    pixel_distance = _norm((F.expand_dims(F.expand_dims(means, 3), 4) - embeddings[None]) * in_cluster, 2, norm)
    pulled = F.sum(F.relu(pixel_distance - delta_v) ** 2, axis=(1, 2, 3))           # (K,)
    variance = F.sum(pulled / constant(xp.maximum(masks.sum(axis=(1, 2, 3, 4)), 1).astype(pulled.dtype))) / k

    pair_distance = _norm(F.expand_dims(means, 1) - F.expand_dims(means, 0), 3, norm)  # (K, K, N)
    pairs = constant(xp.triu(xp.ones((k, k), dtype=embeddings.dtype), 1)[:, :, None])
    pushed = F.sum(F.relu(2 * delta_d - pair_distance) ** 2 * pairs)
    distance = pushed / max(k * (k - 1) // 2 * n, 1)

    regularization = F.sum(_norm(means, (1, 2), norm)) / (k * n)
    return alpha * variance, beta * distance, gamma * regularization
