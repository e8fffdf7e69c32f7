"""hinge, contrastive, triplet: hand-checked values and gradients, Chainer's conventions, edge cases, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


# --- hinge ---
def _hinge_by_hand(x, t, p):
    """Per element: max(0, 1 - delta * x) ** p, delta = +1 at the true class, -1 elsewhere (plain loops)."""
    out = np.zeros_like(x)
    for n in range(x.shape[0]):
        for k in range(x.shape[1]):
            delta = 1.0 if k == t[n] else -1.0
            out[n, k] = max(0.0, 1.0 - delta * x[n, k]) ** p
    return out


@pytest.mark.parametrize("norm, p", [("L1", 1), ("L2", 2)])
def test_hinge_values_and_gradient(norm, p):
    x_data = np.array([[0.5, -2.0, 0.25], [0.0, 1.5, -0.5]])
    t = np.array([0, 2])
    each = _hinge_by_hand(x_data, t, p)
    np.testing.assert_allclose(F.hinge(x_data, t, norm=norm, reduce="no").array, each)
    x = mg.Variable(x_data)
    loss = F.hinge(x, t, norm=norm)
    assert loss.shape == ()
    np.testing.assert_allclose(loss.array, each.sum() / 2)  # summed over classes, divided by N only
    loss.backward()
    delta = np.where(np.arange(3)[None, :] == t[:, None], 1.0, -1.0)
    active = np.maximum(0.0, 1.0 - delta * x_data)
    expected = -delta * (active > 0) * (1.0 if p == 1 else 2.0 * active) / 2
    np.testing.assert_allclose(x.grad, expected)


def test_hinge_hand_numbers():
    # x = [[0.5, -2.0]], t = [0]: class 0 is true -> 1 - 0.5 = 0.5; class 1 -> max(0, 1 - 2) = 0
    np.testing.assert_allclose(F.hinge(np.array([[0.5, -2.0]]), np.array([0])).array, 0.5)
    np.testing.assert_allclose(F.hinge(np.array([[0.5, -2.0]]), np.array([0]), norm="L2").array, 0.25)


def test_hinge_float16_mean_does_not_overflow():
    # 100 x 1000 elements of loss 1 each: the sum (1e5) overflows float16, the Chainer mean (sum / N = 1000) does not
    x = np.zeros((100, 1000), dtype=np.float16)
    loss = F.hinge(x, np.zeros(100, dtype=np.int32))
    assert loss.dtype == np.float16
    assert float(loss.array) == 1000.0


def test_hinge_empty_batch():
    assert F.hinge(np.zeros((0, 3)), np.zeros(0, dtype=np.int32), reduce="no").shape == (0, 3)
    with pytest.raises(ValueError, match=r"hinge: x must hold at least one sample to average over, got shape \(0, 3\)"):
        F.hinge(np.zeros((0, 3)), np.zeros(0, dtype=np.int32))


# --- contrastive ---
def _contrastive_by_hand(x0, x1, y, margin):
    d = np.sqrt(((x0 - x1) ** 2).sum(axis=1))
    return 0.5 * np.where(y == 1, d ** 2, np.maximum(margin - d, 0.0) ** 2)


def test_contrastive_values_match_the_definition_and_chainers_example():
    x0 = np.array([[-2.0, 3.0, 0.5], [5.0, 2.0, -0.5]], dtype=np.float32)
    x1 = np.array([[-1.0, 3.0, 1.0], [3.5, 0.5, -2.0]], dtype=np.float32)
    y = np.array([1, 0], dtype=np.int32)
    each = F.contrastive(x0, x1, y, reduce="no")
    assert each.dtype == np.float32 and each.shape == (2,)
    np.testing.assert_allclose(each.array, _contrastive_by_hand(x0, x1, y, 1.0), rtol=1e-6)
    np.testing.assert_allclose(each.array, [0.625, 0.0])  # Chainer's documented example
    np.testing.assert_allclose(F.contrastive(x0, x1, y).array, 0.3125)
    np.testing.assert_allclose(F.contrastive(x0, x1, y, margin=3.0).array,
                               _contrastive_by_hand(x0, x1, y, 3.0).mean(), rtol=1e-6)
    np.testing.assert_allclose(F.contrastive(x0, x1, y, margin=3.0).array, 0.3528857, rtol=1e-6)


def test_contrastive_gradient_by_hand():
    x0 = mg.Variable(np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 1.0]]))
    x1 = mg.Variable(np.array([[3.0, 4.0], [0.3, 0.4], [1.0, 3.0]]))
    y = np.array([1, 0, 0])
    F.contrastive(x0, x1, y, margin=1.0).backward()
    diff = x0.array - x1.array
    # similar: d(d^2 / 2) / dx0 = diff; dissimilar inside the margin: -(m - d) * diff / d; beyond it: 0
    expected = np.array([diff[0], -(1.0 - 0.5) * diff[1] / 0.5, [0.0, 0.0]]) / 3
    np.testing.assert_allclose(x0.grad, expected)
    np.testing.assert_allclose(x1.grad, -expected)


def test_contrastive_coincident_pairs_get_a_finite_gradient():
    # d = 0: a similar pair's gradient is 0, and a dissimilar pair sits on the cone tip (taken as 0), never NaN
    x0 = mg.Variable(np.ones((2, 3)))
    x1 = mg.Variable(np.ones((2, 3)))
    loss = F.contrastive(x0, x1, np.array([1, 0]), margin=2.0)
    np.testing.assert_allclose(loss.array, (0.0 + 0.5 * 4.0) / 2)
    gx0, = mg.grad([loss], [x0], enable_double_backprop=True)
    np.testing.assert_array_equal(gx0.array, np.zeros((2, 3)))
    gg, = mg.grad([F.sum(gx0 * gx0)], [x0])
    assert np.isfinite(gg.array).all()


# --- triplet ---
def test_triplet_values_and_gradient_by_hand():
    a = mg.Variable(np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0]]))
    p = mg.Variable(np.array([[1.0, 0.0], [0.5, 0.0], [1.0, 1.0]]))
    n = mg.Variable(np.array([[0.0, 1.0], [0.0, 2.0], [1.5, 0.0]]))
    # squared distances: (1 - 1 + 0.2), (0.25 - 4 + 0.2 < 0 -> 0), (1 - 0.25 + 0.2)
    np.testing.assert_allclose(F.triplet(a, p, n, reduce="no").array, [0.2, 0.0, 0.95])
    loss = F.triplet(a, p, n)
    np.testing.assert_allclose(loss.array, 1.15 / 3)
    loss.backward()
    active = np.array([[1.0], [0.0], [1.0]]) / 3
    np.testing.assert_allclose(a.grad, 2 * (n.array - p.array) * active)
    np.testing.assert_allclose(p.grad, -2 * (a.array - p.array) * active)
    np.testing.assert_allclose(n.grad, 2 * (a.array - n.array) * active)


def test_default_margins_are_chainers():
    zeros = np.zeros((1, 2))
    np.testing.assert_allclose(F.triplet(zeros, zeros, zeros).array, 0.2)
    np.testing.assert_allclose(F.contrastive(zeros, np.array([[0.6, 0.8]]), np.array([0])).array, 0.0)
    np.testing.assert_allclose(F.contrastive(zeros, np.array([[0.3, 0.4]]), np.array([0])).array, 0.125)


def test_float16_keeps_its_dtype():
    x = np.full((2, 3), 0.25, dtype=np.float16)
    for loss in (F.hinge(x, np.array([0, 1])), F.contrastive(x, x * 2, np.array([0, 1])), F.triplet(x, x, x * 2)):
        assert loss.dtype == np.float16


_X = np.zeros((2, 3))


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.hinge(_X, np.array([0, 3])), ValueError, r"hinge: t has labels outside \[0, 3\): \[3\]"),
    (lambda: F.hinge(_X, np.array([-1, 0])), ValueError, r"hinge: t has labels outside \[0, 3\): \[-1\]"),
    (lambda: F.hinge(_X, np.array([0.0, 1.0])), TypeError,
     r"hinge: t must hold integer class labels, got dtype float64"),
    (lambda: F.hinge(_X, np.array([0, 1, 2])), ValueError, r"hinge: t must have shape \(2,\) for x of shape \(2, 3\)"),
    (lambda: F.hinge(np.zeros(3), np.array([0])), ValueError, r"hinge: x must have 2 dimensions, got shape \(3,\)"),
    (lambda: F.hinge(_X, np.array([0, 1]), norm="L3"), ValueError, r"hinge: norm must be 'L1' or 'L2', got 'L3'"),
    (lambda: F.hinge(_X, np.array([0, 1]), reduce="sum"), ValueError,
     r"hinge: reduce must be one of 'mean', 'no', got 'sum'"),
    (lambda: F.contrastive(_X, _X, np.array([0, 2])), ValueError, r"contrastive: y must hold only 0 and 1, got \[2\]"),
    (lambda: F.contrastive(_X, _X, np.array([-1, 0])), ValueError,
     r"contrastive: y must hold only 0 and 1, got \[-1\]"),
    (lambda: F.contrastive(_X, _X, np.array([0.0, 1.0])), TypeError,
     r"contrastive: y must hold integer labels \(0 or 1\), got dtype float64"),
    (lambda: F.contrastive(_X, np.zeros((2, 2)), np.array([0, 1])), ValueError,
     r"contrastive: x0 and x1 must have the same shape, got \(2, 3\) and \(2, 2\)"),
    (lambda: F.contrastive(_X, _X.astype(np.float32), np.array([0, 1])), TypeError,
     r"contrastive: x0 and x1 must have the same dtype"),
    (lambda: F.contrastive(_X, _X, np.array([0])), ValueError, r"contrastive: y must have shape \(2,\)"),
    (lambda: F.contrastive(np.zeros(2), np.zeros(2), np.array([0, 1])), ValueError,
     r"contrastive: x0 must have 2 dimensions"),
    (lambda: F.contrastive(_X, _X, np.array([0, 1]), margin=0), ValueError,
     r"contrastive: margin must be a positive number, got 0.0"),
    (lambda: F.contrastive(_X, _X, np.array([0, 1]), reduce="sum"), ValueError,
     r"contrastive: reduce must be one of 'mean', 'no', got 'sum'"),
    (lambda: F.contrastive(np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0, dtype=np.int32), reduce="no"), ValueError,
     r"contrastive: x0 must hold at least one sample"),
    (lambda: F.triplet(_X, _X, np.zeros((3, 2))), ValueError,
     r"triplet: anchor and negative must have the same shape, got \(2, 3\) and \(3, 2\)"),
    (lambda: F.triplet(_X, _X.astype(np.float16), _X), TypeError,
     r"triplet: anchor and positive must have the same dtype"),
    (lambda: F.triplet(np.zeros(3), np.zeros(3), np.zeros(3)), ValueError, r"triplet: anchor must have 2 dimensions"),
    (lambda: F.triplet(_X, _X, _X, margin=-0.1), ValueError, r"triplet: margin must be a positive number"),
    (lambda: F.triplet(_X, _X, _X, reduce="none"), ValueError, r"triplet: reduce must be one of 'mean', 'no'"),
    (lambda: F.triplet(np.zeros((0, 2)), np.zeros((0, 2)), np.zeros((0, 2))), ValueError,
     r"triplet: anchor must hold at least one sample"),
])
def test_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_the_checker_refuses_contrastive_at_zero_distance_where_chainers_passes():
    # deliberate (docs/reference/differences-from-chainer.rst): d = ||x0 - x1|| has a kink at 0, where both
    # frameworks return the same subgradient (0); Chainer's symmetric difference cancels there and passes,
    # minigrad's checker sees the derivative jump within the step and says so; the spec declares the kink
    from minigrad.testing import NondifferentiableError, check_backward, load_specs

    rng = np.random.RandomState(0)
    x0 = rng.uniform(-1, 1, (4, 3))
    x1 = x0.copy()
    x1[1:] += rng.uniform(-0.5, 0.5, (3, 3))  # row 0 at zero distance
    y = np.array([0, 1, 0, 1], np.int32)
    with pytest.raises(NondifferentiableError, match="not differentiable near"):
        check_backward(lambda a, b: F.contrastive(a, b, y), (x0, x1), None, seed=0)
    x1[0] += 0.3  # away from the kink it passes
    check_backward(lambda a, b: F.contrastive(a, b, y), (x0, x1), None, seed=0)
    specs = [spec for spec in load_specs("minigrad.testing.op_specs") if spec.name.startswith("contrastive")]
    assert specs and all("||x0 - x1|| = 0" in spec.kinks for spec in specs)
