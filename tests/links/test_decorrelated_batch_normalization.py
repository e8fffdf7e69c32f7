"""L.DecorrelatedBatchNormalization: training whitens with the batch and updates the running averages, inference
uses them (both checked as a layer: forward, first and second order), fine-tuning averages, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.links as L
from minigrad.testing import LinkTestCase


def _whiten(x, mean, projection, groups):
    order = (1, 0) + tuple(range(2, x.ndim))
    rows = x.transpose(order).reshape(groups, x.shape[1] // groups, -1)
    y = np.stack([p @ (r - m[:, None]) for r, m, p in zip(rows, mean, projection)])
    return y.reshape((x.shape[1], x.shape[0]) + x.shape[2:]).transpose(order)


def _batch_statistics(x, groups, eps):
    order = (1, 0) + tuple(range(2, x.ndim))
    rows = x.transpose(order).reshape(groups, x.shape[1] // groups, -1)
    mean = rows.mean(axis=2)
    projections = []
    for r, m in zip(rows, mean):
        centred = r - m[:, None]
        u, s, _ = np.linalg.svd(centred @ centred.T / r.shape[1] + eps * np.eye(len(r)))
        projections.append(u @ np.diag(s ** -0.5) @ u.T)
    return mean, np.stack(projections)


class TestDecorrelatedBatchNormalizationTraining(LinkTestCase):
    def create_link(self, initializers):
        return L.DecorrelatedBatchNormalization(4, groups=2, eps=0.05)

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (5, 4, 2)).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        return _whiten(x, *_batch_statistics(x, 2, 0.05), 2),


class TestDecorrelatedBatchNormalizationInference(LinkTestCase):
    def create_link(self, initializers):
        link = L.DecorrelatedBatchNormalization(4, groups=1, eps=0.05)
        link.avg_mean = np.array([[0.5, -0.2, 0.1, 0.0]], np.float32)
        link.avg_projection = (np.eye(4) + 0.1 * np.arange(16).reshape(1, 4, 4)).astype(np.float32)
        return link

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (3, 4)).astype(self.dtype),

    def forward(self, link, inputs):
        with mg.using_config("train", False):
            return link(*inputs)

    def forward_expected(self, link, inputs):
        x, = inputs
        return _whiten(x, link.avg_mean.astype(np.float64), link.avg_projection.astype(np.float64), 1),


def test_running_averages_and_fine_tuning():
    rng = np.random.default_rng(0)
    link = L.DecorrelatedBatchNormalization(2, groups=1, decay=0.5, eps=0.1)
    np.testing.assert_array_equal(link.avg_projection, [np.eye(2)])
    x1, x2 = rng.uniform(-1, 1, (6, 2)).astype(np.float32), rng.uniform(-1, 1, (6, 2)).astype(np.float32)
    link(x1)
    mean1, projection1 = _batch_statistics(x1.astype(np.float64), 1, 0.1)
    np.testing.assert_allclose(link.avg_mean, 0.5 * mean1, rtol=1e-5)
    np.testing.assert_allclose(link.avg_projection, 0.5 * np.eye(2) + 0.5 * 6 / 5 * projection1, rtol=1e-5)
    link.start_finetuning()
    link(x1, finetune=True)
    link(x2, finetune=True)  # the plain mean of the two batches' statistics
    mean2, projection2 = _batch_statistics(x2.astype(np.float64), 1, 0.1)
    np.testing.assert_allclose(link.avg_mean, (mean1 + mean2) / 2, rtol=1e-5)
    np.testing.assert_allclose(link.avg_projection, 6 / 5 * (projection1 + projection2) / 2, rtol=1e-5)
    assert link.N == 2


@pytest.mark.parametrize("call, error, message", [
    (lambda: L.DecorrelatedBatchNormalization(6, groups=4), ValueError, "size=6 does not split into groups=4"),
    (lambda: L.DecorrelatedBatchNormalization(4, groups=0), ValueError, "groups must be positive"),
    (lambda: L.DecorrelatedBatchNormalization(4, groups=2, decay=2.0), ValueError, r"decay must be in \[0, 1\]"),
    (lambda: L.DecorrelatedBatchNormalization(4, groups=2, eps=float("nan")), ValueError, "eps must be"),
    (lambda: L.DecorrelatedBatchNormalization(4, groups=2)(np.ones((3, 4)), finetune="no"), TypeError,
     "finetune must be a bool"),
])
def test_bad_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()
