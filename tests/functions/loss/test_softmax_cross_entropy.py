"""softmax_cross_entropy: label checks, ignore_label, class_weight, reductions, float16, second order."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import check_double_backward


def _naive(x, t, ignore_label=-1, class_weight=None):
    """Per-label losses, written out row by row."""
    out = np.zeros(len(t))
    for i, label in enumerate(t):
        if label != ignore_label:
            row = x[i].astype(np.float64)
            log_p = row[label] - np.log(np.exp(row).sum())
            out[i] = -log_p * (1.0 if class_weight is None else class_weight[label])
    return out


def test_mean_over_the_labels_that_are_not_ignored_and_gradient():
    rng = np.random.default_rng(0)
    x = mg.Variable(rng.standard_normal((5, 4)))
    t = np.array([0, 3, -1, 2, -1], dtype=np.int32)
    loss = F.softmax_cross_entropy(x, t)
    np.testing.assert_allclose(loss.array, _naive(x.array, t).sum() / 3, rtol=1e-14)
    loss.backward()
    p = np.exp(x.array) / np.exp(x.array).sum(axis=1, keepdims=True)
    expected = p.copy()
    expected[[0, 1, 3], [0, 3, 2]] -= 1
    expected[[2, 4]] = 0
    np.testing.assert_allclose(x.grad, expected / 3, rtol=1e-13, atol=1e-16)


def test_normalize_false_divides_by_the_batch_size_and_reduce_no_keeps_each_loss():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 3))
    t = np.array([1, -1, 0, 2])
    np.testing.assert_allclose(F.softmax_cross_entropy(x, t, normalize=False).array, _naive(x, t).sum() / 4)
    each = F.softmax_cross_entropy(x, t, reduce="no")
    assert each.shape == (4,)
    np.testing.assert_allclose(each.array, _naive(x, t), rtol=1e-14)
    assert each.array[1] == 0


def test_class_weight_scales_each_labels_loss():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 3))
    t = np.array([1, 0, 2, 2])
    w = np.array([0.5, 2.0, 3.0])
    np.testing.assert_allclose(F.softmax_cross_entropy(x, t, class_weight=w).array,
                               _naive(x, t, class_weight=w).sum() / 4, rtol=1e-14)


def test_spatial_scores_use_axis_one_as_the_class_axis():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 4))  # (N, C, d)
    t = rng.integers(0, 3, size=(2, 4))
    flat_x = np.moveaxis(x, 1, -1).reshape(-1, 3)
    each = F.softmax_cross_entropy(x, t, reduce="no")
    assert each.shape == (2, 4)
    np.testing.assert_allclose(each.array.reshape(-1), _naive(flat_x, t.reshape(-1)), rtol=1e-14)


def test_every_label_ignored_gives_zero_loss_and_gradient():
    x = mg.Variable(np.ones((2, 3)))
    loss = F.softmax_cross_entropy(x, np.array([-1, -1]))
    assert loss.array == 0
    loss.backward()
    np.testing.assert_array_equal(x.grad, np.zeros((2, 3)))


def test_float16_scores_far_apart_stay_finite_and_accurate():
    x = np.zeros((2, 1000), dtype=np.float16)
    x[:, 0] = 60000.0
    t = np.array([0, 1])
    loss = F.softmax_cross_entropy(x, t)
    assert loss.dtype == np.float16
    assert np.isfinite(loss.array)
    np.testing.assert_allclose(float(loss.array), 30000.0, rtol=1e-3)
    small = np.zeros((256, 1000), dtype=np.float16)  # a sum of 1000 exponentials: no precision lost
    np.testing.assert_allclose(float(F.softmax_cross_entropy(small, np.zeros(256, np.int64)).array),
                               np.log(1000), rtol=1e-3)


def test_cache_score_off_and_repeated_backward_give_the_same_gradient():
    rng = np.random.default_rng(4)
    data = rng.standard_normal((3, 4))
    t = np.array([0, 1, 3])
    grads = []
    for cache in (True, False):
        x = mg.Variable(data)
        loss = F.softmax_cross_entropy(x, t, cache_score=cache)
        loss.backward()
        first = x.grad.copy()
        x.cleargrad()
        loss.backward()  # the cached softmax was consumed by the first backward: recomputed from x
        np.testing.assert_allclose(x.grad, first, rtol=1e-15)
        grads.append(first)
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-14)


@pytest.mark.parametrize("enable_double_backprop", [False, True])
def test_always_twice_differentiable(enable_double_backprop):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 4))
    t = np.array([2, -1, 0])

    def f(x):
        return F.softmax_cross_entropy(x, t, enable_double_backprop=enable_double_backprop)

    check_double_backward(f, x, None, rng.standard_normal((3, 4)), seed=0)
    # Hessian of the mean loss w.r.t. one row: (diag(p) - p p^T) / count
    xv = mg.Variable(x)
    gx, = mg.grad([f(xv)], [xv], enable_double_backprop=True)
    v = rng.standard_normal((3, 4))
    hv, = mg.grad([F.sum(gx * v)], [xv])
    p = np.exp(x) / np.exp(x).sum(axis=1, keepdims=True)
    expected = (p * v - p * (p * v).sum(axis=1, keepdims=True)) / 2
    expected[1] = 0
    np.testing.assert_allclose(hv.array, expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.softmax_cross_entropy(np.ones((2, 3)), np.array([0.0, 1.0])), ValueError,
     r"softmax_cross_entropy: a float t is read as soft targets, which must have x's shape \(2, 3\) and dtype "
     r"float64; got shape \(2,\) and dtype float64; for class labels, give t an integer dtype"),
    (lambda: F.softmax_cross_entropy(np.ones((2, 3)), np.array([0, 3])), ValueError,
     r"softmax_cross_entropy: t has labels outside \[0, 3\) or ignore_label=-1: \[3\] \(shape \(2,\)\)"),
    (lambda: F.softmax_cross_entropy(np.ones((2, 3)), np.array([0, -2])), ValueError,
     r"softmax_cross_entropy: t has labels outside \[0, 3\)"),
    (lambda: F.softmax_cross_entropy(np.ones((2, 3)), np.array([0, 1, 2])), ValueError,
     r"softmax_cross_entropy: t must have shape \(2,\) for x of shape \(2, 3\), got \(3,\)"),
    (lambda: F.softmax_cross_entropy(np.ones(3), np.array([0])), ValueError,
     r"softmax_cross_entropy: x must have shape \(N, C\) or \(N, C, d1, ...\), got shape \(3,\)"),
    (lambda: F.softmax_cross_entropy(np.ones((2, 3), dtype=np.int32), np.array([0, 1])), TypeError,
     r"softmax_cross_entropy: x must have a floating-point dtype, got int32"),
    (lambda: F.softmax_cross_entropy(np.ones((2, 3)), np.array([0, 1]), reduce="sum"), ValueError,
     r"softmax_cross_entropy: reduce must be one of 'mean', 'no', got 'sum'"),
    (lambda: F.softmax_cross_entropy(np.ones((2, 3)), np.array([0, 1]), class_weight=np.ones(2)), ValueError,
     r"softmax_cross_entropy: class_weight must be a float array of shape \(3,\), got \(2,\)"),
    (lambda: F.softmax_cross_entropy(np.ones((2, 3)), np.array([0, 1]), ignore_label=None), TypeError,
     r"softmax_cross_entropy: ignore_label must be an int, got NoneType"),
])
def test_bad_input_names_the_op_the_argument_and_the_shapes(call, error, message):
    with pytest.raises(error, match=message):
        call()


# --- soft targets (Chainer v7) -------------------------------------------------------
def test_one_hot_soft_targets_give_the_label_loss_and_gradient():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 4))
    labels = np.array([0, 3, 1, 1, 2])
    hard, soft = mg.Variable(x.copy()), mg.Variable(x.copy())
    F.softmax_cross_entropy(hard, labels).backward()
    loss = F.softmax_cross_entropy(soft, np.eye(4)[labels])
    loss.backward()
    np.testing.assert_allclose(loss.array, _naive(x, labels).mean(), rtol=1e-12)
    np.testing.assert_allclose(soft.grad, hard.grad, rtol=1e-12, atol=1e-15)


def test_kl_divergence_to_the_models_own_distribution_is_zero_and_cross_entropy_is_its_entropy():
    x = np.random.default_rng(1).standard_normal((3, 6))
    p = np.exp(x) / np.exp(x).sum(axis=1, keepdims=True)
    kl = F.softmax_cross_entropy(x, p, soft_target_loss="kl-divergence", reduce="no")
    np.testing.assert_allclose(kl.array, 0.0, atol=1e-12)
    ce = F.softmax_cross_entropy(x, p, reduce="no")
    np.testing.assert_allclose(ce.array, -(p * np.log(p)).sum(axis=1), rtol=1e-12)


def test_soft_targets_get_no_gradient_and_a_zero_probability_is_fine():
    x = mg.Variable(np.random.default_rng(2).standard_normal((2, 3)).astype(np.float32))
    t = mg.Variable(np.array([[0.0, 0.5, 0.5], [1.0, 0.0, 0.0]], np.float32))  # requires_grad, as a Variable does
    with np.errstate(all="raise"):  # no log(0) along the way
        loss = F.softmax_cross_entropy(x, t, soft_target_loss="kl-divergence")
    loss.backward()
    assert loss.dtype == np.float32 and np.isfinite(loss.array) and t.grad is None and x.grad is not None


@pytest.mark.parametrize("kwargs, error, message", [
    ({"t": np.full((2, 4), 0.25, np.float32)}, ValueError,
     r"a float t is read as soft targets, which must have x's shape \(2, 3\) and dtype float32; got shape \(2, 4\) "
     r"and dtype float32$"),
    ({"t": np.full((2, 3), 1 / 3)}, ValueError, r"a float t .* got shape \(2, 3\) and dtype float64$"),
    ({"t": np.full((2, 3), 1 / 3, np.float32), "class_weight": np.ones(3, np.float32)}, ValueError,
     "class_weight is not supported with soft targets"),
    ({"t": np.array([0, 1]), "soft_target_loss": "kl"}, ValueError,
     "soft_target_loss must be one of \\('cross-entropy', 'kl-divergence'\\), got 'kl'"),
    ({"t": np.array([True, False])}, TypeError, "t must hold integer class labels \\(or float soft targets\\)"),
])
def test_soft_target_misuse_is_a_clear_error(kwargs, error, message):
    with pytest.raises(error, match=f"softmax_cross_entropy: {message}"):
        F.softmax_cross_entropy(np.zeros((2, 3), np.float32), **kwargs)
