"""F.batch_renormalization and L.BatchRenormalization: the renormalization identity, r and d as constants,
the running statistics' update, batch normalization as the special case, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
import minigrad.links as L

RNG = np.random.default_rng(0)
X = RNG.standard_normal((6, 3))
GAMMA, BETA = RNG.uniform(0.5, 1.5, 3), RNG.standard_normal(3)
EPS = 2e-5


def test_with_unclipped_corrections_the_output_is_x_normalized_by_the_running_statistics():
    # (x - mean) / std * r + d == (x - running_mean) / sigma when r = std / sigma and d = (mean - running_mean) / sigma
    running_mean, running_var = np.array([0.5, -1.0, 0.0]), np.array([2.0, 0.5, 1.0])
    y = F.batch_renormalization(X, GAMMA, BETA, 100.0, 100.0, running_mean=running_mean, running_var=running_var)
    np.testing.assert_allclose(y.array, GAMMA * (X - running_mean) / np.sqrt(running_var + EPS) + BETA, rtol=1e-12)


def test_rmax_1_and_dmax_0_is_batch_normalization_values_and_gradients():
    x1, x2 = mg.Variable(X.copy()), mg.Variable(X.copy())
    gy = RNG.standard_normal(X.shape)
    F.sum(F.batch_renormalization(x1, GAMMA, BETA, 1.0, 0.0, running_mean=np.ones(3)) * gy).backward()
    F.sum(F.batch_normalization(x2, GAMMA, BETA) * gy).backward()
    np.testing.assert_allclose(x1.grad, x2.grad, rtol=1e-10, atol=1e-12)


def test_the_gradient_treats_r_and_d_as_constants():
    x = mg.Variable(X.copy())
    running_var = np.array([4.0, 0.25, 1.0])
    gy = RNG.standard_normal(X.shape)
    F.sum(F.batch_renormalization(x, GAMMA, BETA, 1.5, 0.3, running_var=running_var) * gy).backward()
    std = np.sqrt(X.var(axis=0) + EPS)
    r = np.clip(std / np.sqrt(running_var + EPS), 1 / 1.5, 1.5)
    x_hat = (X - X.mean(axis=0)) / std
    expected = r * GAMMA / std * (gy - gy.mean(axis=0) - x_hat * (gy * x_hat).mean(axis=0))  # Chainer's formula
    np.testing.assert_allclose(x.grad, expected, rtol=1e-10)


def test_update_statistics_updates_in_place_as_chainer_does():
    running_mean, running_var = np.zeros(3), np.ones(3)
    F.batch_renormalization(X, GAMMA, BETA, 2.0, 1.0, running_mean=running_mean, running_var=running_var)
    np.testing.assert_array_equal(running_mean, np.zeros(3))  # not asked to: untouched
    F.batch_renormalization(X, GAMMA, BETA, 2.0, 1.0, running_mean=running_mean, running_var=running_var,
                            decay=0.8, update_statistics=True)
    np.testing.assert_allclose(running_mean, 0.2 * X.mean(axis=0))
    # Chainer 7.8.1's source (and its result, [0.91757, 0.93738, 0.95423] for RandomState(0).randn(6, 3)): the
    # unbiased batch variance, no eps
    np.testing.assert_allclose(running_var, 0.8 + 0.2 * X.var(axis=0) * 6 / 5, rtol=1e-12)


@pytest.mark.parametrize("kwargs, error, message", [
    ({"rmax": 0.5}, ValueError, "batch_renormalization: rmax must be at least 1 and dmax at least 0"),
    ({"dmax": -1.0}, ValueError, "batch_renormalization: rmax must be at least 1"),
    ({"running_mean": np.zeros(2)}, ValueError, r"batch_renormalization: running_mean must have shape \(3,\)"),
    ({"running_var": mg.Variable(np.ones(3))}, TypeError, "batch_renormalization: running_var must be an array"),
    ({"x": np.zeros((0, 3))}, ValueError, "batch_renormalization: no samples"),
])
def test_bad_arguments(kwargs, error, message):
    arguments = {"x": X, "rmax": 2.0, "dmax": 1.0, **kwargs}
    with pytest.raises(error, match=message):
        F.batch_renormalization(arguments.pop("x"), GAMMA, BETA, arguments.pop("rmax"), arguments.pop("dmax"),
                                **arguments)


def test_the_link_trains_with_renormalization_and_predicts_with_the_running_averages():
    x = X.astype(np.float32)
    brn = L.BatchRenormalization(3, rmax=3.0, dmax=5.0)
    bn = L.BatchNormalization(3)
    y = brn(x)  # running statistics (0, 1) at first: x normalized by them
    np.testing.assert_allclose(y.array, x / np.sqrt(1 + EPS), rtol=1e-5)
    bn(x)
    np.testing.assert_allclose(brn.avg_mean, bn.avg_mean, rtol=1e-6)  # the same update as batch normalization
    with mg.using_config("train", False):  # avg_var differs by Chainer's eps in the update: 0.1 * 2e-5 * 6 / 5
        np.testing.assert_allclose(brn(x).array, bn(x).array, rtol=1e-5)
    assert L.BatchRenormalization(3, rmax=1.0, dmax=0.0)(x).array == pytest.approx(L.BatchNormalization(3)(x).array)
    with pytest.raises(ValueError, match="BatchRenormalization: rmax must be at least 1"):
        L.BatchRenormalization(3, rmax=0.9)
