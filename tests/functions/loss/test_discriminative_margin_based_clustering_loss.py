"""discriminative_margin_based_clustering_loss: the values Chainer's own test expects, a hand-checked case,
gradients against numerical derivatives (first and second order), no NaN where an L2 norm is of a zero vector
(Chainer's sqrt gives NaN there), and the argument errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import check_backward, check_double_backward


@pytest.mark.parametrize("arguments, expected", [
    ((0.5, 5, 5, 1, 1, 1, 0.001), (6.0776708, 64.0, 0.03419368)),
    ((3, 10, 5, 2, 0.1, 0.1, 0.1), (0.0, 26.56423595, 1.55665027)),
])
def test_the_values_chainers_test_expects(arguments, expected):
    embeddings = np.linspace(0, 100, 5 * 5 * 10 * 10).reshape(5, 5, 10, 10)
    labels = np.linspace(0, 10, 5 * 10 * 10).astype(np.int32).reshape(5, 10, 10)
    terms = F.discriminative_margin_based_clustering_loss(embeddings, labels, *arguments)
    np.testing.assert_allclose([float(t.array) for t in terms], expected, rtol=1e-7)


def test_a_hand_checked_case():
    # one image, K = 2; cluster 1: pixels (0, 0) and (2, 0), mean (1, 0); cluster 2: pixel (4, 4); one background
    embeddings = np.array([[[[0.0, 2.0, 4.0, 9.0]], [[0.0, 0.0, 4.0, 9.0]]]])
    labels = np.array([[[1, 1, 2, 0]]])
    variance, distance, regularization = F.discriminative_margin_based_clustering_loss(
        embeddings, labels, 0.5, 4.0, 2, norm=1, alpha=1.0, beta=1.0, gamma=1.0)
    # pull: two pixels at L1 distance 1 from their mean: 2 (1 - 0.5)^2 / 2 pixels, cluster 2 none; / K
    assert float(variance.array) == pytest.approx(0.25 / 2)
    # push: |(1, 0) - (4, 4)|_1 = 7 < 2 * 4: (8 - 7)^2 over one pair and one image
    assert float(distance.array) == pytest.approx(1.0)
    # |(1, 0)| + |(4, 4)| over K N = 2
    assert float(regularization.array) == pytest.approx((1 + 8) / 2)


def test_gradients_and_no_nan_at_zero_vectors():
    rng = np.random.default_rng(0)
    labels = np.array([[[1, 1, 0], [2, 2, 1]], [[2, 0, 0], [2, 1, 1]]])
    embeddings = rng.uniform(-1, 1, (2, 3, 2, 3))  # cluster 3 is absent: its means are zero vectors
    x = mg.Variable(embeddings)
    total = sum(F.discriminative_margin_based_clustering_loss(x, labels, 0.01, 3.0, 3, norm=2), 0)
    total.backward()
    assert np.isfinite(x.grad).all()
    np.testing.assert_array_equal(x.grad[0, :, 0, 2], 0)  # a background pixel gets no gradient

    def f(e):
        return F.discriminative_margin_based_clustering_loss(e, labels, 0.01, 3.0, 3, norm=2, gamma=0.5)

    check_backward(f, (embeddings,), tuple(rng.standard_normal(()) for _ in range(3)))
    check_double_backward(f, (embeddings,), tuple(rng.standard_normal(()) for _ in range(3)),
                          (rng.standard_normal(embeddings.shape),))


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.discriminative_margin_based_clustering_loss(np.ones((1, 3, 2, 2)), np.ones((1, 2, 2), int), 0.5, 1.5,
                                                           2), ValueError, r"embeddings must have shape \(N, max_"),
    (lambda: F.discriminative_margin_based_clustering_loss(np.ones((1, 2, 2, 2)), np.ones((1, 2, 3), int), 0.5, 1.5,
                                                           2), ValueError, r"labels must have shape \(N, H, W\)"),
    (lambda: F.discriminative_margin_based_clustering_loss(np.ones((1, 2, 2, 2)), np.ones((1, 2, 2)), 0.5, 1.5, 2),
     TypeError, "labels must have an integer dtype"),
    (lambda: F.discriminative_margin_based_clustering_loss(np.ones((1, 2, 2, 2)), np.ones((1, 2, 2), int), 0.5, 1.5,
                                                           2, norm=3), ValueError, "norm must be 1 or 2"),
    (lambda: F.discriminative_margin_based_clustering_loss(np.ones((1, 2, 2, 2)), np.ones((1, 2, 2), int),
                                                           float("nan"), 1.5, 2), ValueError, "delta_v must be"),
    (lambda: F.discriminative_margin_based_clustering_loss(np.ones((1, 2, 2, 2)), np.ones((1, 2, 2), int), 0.5, 1.5,
                                                           0), ValueError, "max_embedding_dim must be >= 1"),
])
def test_bad_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()
