"""group_normalization and L.GroupNormalization: cross-checks against other normalizations, edges and errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
import minigrad.links as L

RNG = np.random.default_rng(3)


def _instance_norm(x, eps):  # per sample and channel, over the spatial axes, in NumPy
    axes = tuple(range(2, x.ndim))
    return (x - x.mean(axis=axes, keepdims=True)) / np.sqrt(x.var(axis=axes, keepdims=True) + eps)


def test_groups_equal_to_channels_is_instance_normalization_then_the_channel_affine():
    x = RNG.standard_normal((2, 3, 4, 5))
    gamma, beta = RNG.uniform(0.5, 2, 3), RNG.standard_normal(3)
    y = F.group_normalization(x, 3, gamma, beta, eps=1e-3)
    np.testing.assert_allclose(y.array, _instance_norm(x, 1e-3) * gamma[:, None, None] + beta[:, None, None],
                               rtol=1e-12, atol=1e-12)


def test_one_group_is_layer_normalization_of_the_flattened_sample():
    x = RNG.standard_normal((3, 2, 4))
    y = F.group_normalization(x, 1, np.ones(2), np.zeros(2))
    flat = F.layer_normalization(x.reshape(3, 8), np.ones(8), np.zeros(8))
    np.testing.assert_allclose(y.array, flat.array.reshape(x.shape), rtol=1e-12, atol=1e-12)


def test_gradients_match_a_finite_difference_of_the_numpy_formula():
    x = RNG.standard_normal((2, 4, 3))
    gamma, beta = mg.Variable(RNG.uniform(0.5, 2, 4)), mg.Variable(RNG.standard_normal(4))
    xv = mg.Variable(x)
    w = RNG.standard_normal(x.shape)
    F.sum(F.group_normalization(xv, 2, gamma, beta) * w).backward()

    def loss(a):
        blocks = a.reshape(2, 2, -1)
        blocks = (blocks - blocks.mean(axis=2, keepdims=True)) / np.sqrt(blocks.var(axis=2, keepdims=True) + 1e-5)
        return float(((blocks.reshape(a.shape) * gamma.array[:, None] + beta.array[:, None]) * w).sum())

    h, numeric = 1e-6, np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        numeric[i] = (loss(up) - loss(down)) / (2 * h)
    np.testing.assert_allclose(xv.grad, numeric, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(beta.grad, w.sum(axis=(0, 2)))


def test_float16_stays_float16_and_a_strided_input_is_read_by_value():
    x = RNG.standard_normal((2, 8, 6))[:, ::2, ::3]  # (2, 4, 2), not contiguous
    y16 = F.group_normalization(x.astype(np.float16), 2, np.ones(4, np.float16), np.zeros(4, np.float16))
    y = F.group_normalization(np.ascontiguousarray(x), 2, np.ones(4), np.zeros(4))
    assert y16.dtype == np.float16
    np.testing.assert_allclose(y16.array, y.array, atol=5e-3)
    np.testing.assert_allclose(F.group_normalization(x, 2, np.ones(4), np.zeros(4)).array, y.array)


def test_an_empty_batch_gives_an_empty_result_of_x_shape():
    y = F.group_normalization(np.zeros((0, 4, 3)), 2, np.ones(4), np.zeros(4))
    assert y.shape == (0, 4, 3)


@pytest.mark.parametrize("args, error, message", [
    ((np.zeros((2, 6)), 4, np.ones(6), np.zeros(6)), ValueError, "groups=4 does not divide the 6 channels"),
    ((np.zeros((2, 6)), 0, np.ones(6), np.zeros(6)), TypeError, "groups must be a positive int"),
    ((np.zeros((2, 6)), 2.0, np.ones(6), np.zeros(6)), TypeError, "groups must be a positive int"),
    ((np.zeros((2, 6)), 2, np.ones(3), np.zeros(6)), ValueError, "gamma must have shape (6,)"),
    ((np.zeros(6), 2, np.ones(6), np.zeros(6)), ValueError, "at least two axes"),
    ((np.zeros((2, 6)), 2, np.ones(6, np.float32), np.zeros(6)), TypeError, "gamma has dtype float32"),
])
def test_bad_arguments_name_the_function_and_the_shapes(args, error, message):
    with pytest.raises(error) as info:
        F.group_normalization(*args)
    assert "group_normalization" in str(info.value) and message in str(info.value)


def test_the_link_sizes_itself_learns_and_checks_its_groups():
    link = L.GroupNormalization(2)
    x = RNG.standard_normal((3, 4, 5)).astype(np.float32)
    y = link(x)
    assert link.gamma.shape == link.beta.shape == (4,) and link.gamma.dtype == np.float32
    np.testing.assert_allclose(y.array, F.group_normalization(x, 2, np.ones(4, np.float32),
                                                              np.zeros(4, np.float32)).array)
    F.sum(y * y).backward()
    assert link.gamma.grad.shape == (4,)
    assert [name for name, _ in link.namedparams()] == ["/gamma", "/beta"]
    with pytest.raises(ValueError, match="groups=3 does not divide size=4"):
        L.GroupNormalization(3, 4)
    with pytest.raises(ValueError, match="groups=3 does not divide the 4 channels"):
        L.GroupNormalization(3)(x)
