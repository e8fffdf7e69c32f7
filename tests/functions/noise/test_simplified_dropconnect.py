"""F.simplified_dropconnect and L.SimplifiedDropconnect: masks per sample or per batch, train=False, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
import minigrad.links as L

RNG = np.random.default_rng(0)
X, W, B = RNG.standard_normal((4, 2, 3)), RNG.standard_normal((5, 6)), RNG.standard_normal(5)


def test_without_training_it_is_linear():
    np.testing.assert_allclose(F.simplified_dropconnect(X, W, B, train=False).array,
                               X.reshape(4, 6) @ W.T + B)


@pytest.mark.parametrize("batchwise", [True, False])
def test_a_given_mask_drops_those_weights_and_scales_the_rest(batchwise):
    mask = RNG.uniform(size=((4,) if batchwise else ()) + W.shape) >= 0.4
    y = F.simplified_dropconnect(X, W, B, ratio=0.4, mask=mask, use_batchwise_mask=batchwise).array
    masks = np.broadcast_to(mask, (4,) + W.shape)
    expected = np.stack([(W * masks[i] / 0.6) @ X[i].ravel() for i in range(4)]) + B
    np.testing.assert_allclose(y, expected)


def test_random_masks_keep_one_minus_ratio_of_the_weights_independently_per_sample():
    np.random.seed(0)
    x = mg.Variable(np.ones((2000, 1)))
    w = mg.Variable(np.ones((1, 1)))
    y = F.simplified_dropconnect(x, w, ratio=0.25)  # y = 0 or 1 / 0.75 per sample
    kept = y.array[:, 0] * 0.75
    assert set(np.unique(kept)) <= {0.0, 1.0} and abs(kept.mean() - 0.75) < 0.03
    F.sum(y).backward()
    np.testing.assert_allclose(w.grad[0, 0], y.array.sum())  # each sample's weight gradient is its own kept x


def test_the_link_learns_in_size_and_passes_its_arguments():
    mask = RNG.uniform(size=(4, 5, 6)) >= 0.4
    with mg.using_config("dtype", np.float64):  # float64 parameters for float64 X (arrays take config.dtype)
        layer = L.SimplifiedDropconnect(None, 5, ratio=0.4, initialW=W, initial_bias=B)
        y = layer(X, mask=mask)  # (W is sized, so initialized, here)
    np.testing.assert_allclose(y.array, F.simplified_dropconnect(X, W, B, ratio=0.4, mask=mask).array)
    assert layer.W.shape == (5, 6)
    np.testing.assert_allclose(layer(X, train=False).array, X.reshape(4, 6) @ W.T + B, rtol=1e-6)


@pytest.mark.parametrize("kwargs, error, message", [
    ({"W": np.ones((5, 7))}, ValueError, r"simplified_dropconnect: W of shape \(5, 7\) needs 7 features"),
    ({"W": np.ones(6)}, ValueError, "simplified_dropconnect: W must have 2 dimensions"),
    ({"b": np.ones(4)}, ValueError, r"simplified_dropconnect: b must have shape \(5,\)"),
    ({"ratio": 1.0}, ValueError, r"simplified_dropconnect: ratio must be in \[0, 1\), got 1.0"),
    ({"mask": np.ones((5, 6))}, ValueError,
     r"simplified_dropconnect: mask must be an array of shape \(4, 5, 6\), got \(5, 6\)"),
    ({"x": np.ones(6)}, ValueError, "simplified_dropconnect: x must have a batch axis"),
])
def test_bad_arguments(kwargs, error, message):
    arguments = {"x": X, "W": W, "b": B, **kwargs}
    with pytest.raises(error, match=message):
        F.simplified_dropconnect(arguments.pop("x"), arguments.pop("W"), **arguments)
