"""black_out: the loss for fixed samples vs NumPy, reductions, gradients, errors, float16."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import cupy_sim

RNG = np.random.default_rng(1)
X = RNG.uniform(-1, 1, (3, 4))
W = RNG.uniform(-1, 1, (6, 4))
T = np.array([1, 5, 0], dtype=np.int32)
SAMPLES = np.array([[2, 3, 3], [0, 1, 4], [5, 5, 2]], dtype=np.int32)


def _by_hand(x, t, W, samples):
    """-log p(t) - sum_s log(1 - p(s)), p the softmax over {t} and the samples of each row."""
    losses = np.zeros(len(x))
    for n in range(len(x)):
        scores = np.r_[x[n] @ W[t[n]], W[samples[n]] @ x[n]]
        p = np.exp(scores) / np.exp(scores).sum()
        losses[n] = -np.log(p[0]) - np.log(1 - p[1:]).sum()
    return losses


def test_loss_for_fixed_samples_matches_numpy_and_mean_averages_it():
    each = F.black_out(X, T, W, SAMPLES, reduce="no")
    expected = _by_hand(X, T, W, SAMPLES)
    assert each.shape == (3,)
    np.testing.assert_allclose(each.array, expected, rtol=1e-12)
    mean = F.black_out(X, T, W, SAMPLES)
    assert mean.shape == ()
    np.testing.assert_allclose(mean.array, expected.mean(), rtol=1e-12)


def test_gradient_of_x_matches_central_differences_of_the_hand_loss():
    x, Wv = mg.Variable(X.copy()), mg.Variable(W.copy())
    F.black_out(x, T, Wv, SAMPLES, reduce="no")[1].backward()
    eps, numeric = 1e-6, np.zeros(4)
    for d in range(4):
        step = np.zeros_like(X)
        step[1, d] = eps
        numeric[d] = (_by_hand(X + step, T, W, SAMPLES)[1] - _by_hand(X - step, T, W, SAMPLES)[1]) / (2 * eps)
    np.testing.assert_allclose(x.grad[1], numeric, rtol=1e-6, atol=1e-9)
    np.testing.assert_array_equal(x.grad[[0, 2]], 0)
    # W gets gradient only in the rows row 1 touched: t = 5 and samples 0, 1, 4
    assert set(np.flatnonzero(np.abs(Wv.grad).sum(axis=1))) == {0, 1, 4, 5}


def test_a_sample_equal_to_t_is_just_another_term():
    samples = np.array([[1, 1, 3]] * 3, dtype=np.int32)
    np.testing.assert_allclose(F.black_out(X, T, W, samples, reduce="no").array, _by_hand(X, T, W, samples),
                               rtol=1e-12)


def test_an_empty_batch_with_reduce_no_gives_no_losses():
    assert F.black_out(X[:0], T[:0], W, SAMPLES[:0], reduce="no").shape == (0,)


def test_samples_may_be_a_variable_as_in_chainer():
    np.testing.assert_array_equal(F.black_out(X, T, W, mg.Variable(SAMPLES)).array,
                                  F.black_out(X, T, W, SAMPLES).array)


def test_float16_keeps_its_dtype_and_agrees_with_float64():
    x, Wv = mg.Variable(X.astype(np.float16)), mg.Variable(W.astype(np.float16))
    loss = F.black_out(x, T, Wv, SAMPLES)
    loss.backward()
    assert loss.dtype == x.grad.dtype == Wv.grad.dtype == np.float16
    expected = _by_hand(X.astype(np.float16).astype(np.float64), T, W.astype(np.float16).astype(np.float64),
                        SAMPLES).mean()
    np.testing.assert_allclose(float(loss.array), expected, rtol=5e-3)


def test_on_cupy_host_samples_are_moved_to_the_device():
    with cupy_sim.install() as cp:
        loss = F.black_out(cp.asarray(X), cp.asarray(T), cp.asarray(W), SAMPLES, reduce="no")
        assert isinstance(loss.array, cp.ndarray)
        np.testing.assert_allclose(cp.asnumpy(loss.array), _by_hand(X, T, W, SAMPLES), rtol=1e-12)


def _call(x=X, t=T, W=W, samples=SAMPLES, **kwargs):
    return lambda: F.black_out(x, t, W, samples, **kwargs)


@pytest.mark.parametrize("call, error, message", [
    (_call(t=np.array([1, 6, 0])), ValueError,
     r"black_out: t \(shape \(3,\)\) must hold ids in \[0, 6\) for W with 6 rows; got \[6\]"),
    (_call(t=np.array([1, -1, 0])), ValueError, r"black_out: t .* got \[-1\]"),
    (_call(samples=SAMPLES + 4), ValueError,
     r"black_out: samples \(shape \(3, 3\)\) must hold ids in \[0, 6\) for W with 6 rows; got \[6, 7, 7, 8, 9\]"),
    (_call(samples=SAMPLES[:2]), ValueError,
     r"black_out: samples must have shape \(N, S\) with N = 3 rows of x and S >= 1, got shape \(2, 3\)"),
    (_call(samples=SAMPLES[:, :0]), ValueError, r"black_out: samples must have shape .* got shape \(3, 0\)"),
    (_call(samples=SAMPLES[0]), ValueError, r"black_out: samples must have shape .* got shape \(3,\)"),
    (_call(samples=SAMPLES.astype(np.float32)), TypeError,
     "black_out: samples must hold integer ids, got dtype float32"),
    (_call(samples=SAMPLES.tolist()), TypeError,
     "black_out: samples must be an integer numpy.ndarray or cupy.ndarray, got list"),
    (_call(x=X[:, :3]), ValueError,
     r"black_out: W must have one column per feature of x, got W of shape \(6, 4\) and x of shape \(3, 3\)"),
    (_call(t=T[:2]), ValueError, r"black_out: t must have one label per row of x, got t of shape \(2,\)"),
    (_call(W=W[None]), ValueError, r"black_out: W must have 2 dimensions, got shape \(1, 6, 4\)"),
    (_call(reduce="sum"), ValueError, "black_out: reduce must be one of 'mean', 'no', got 'sum'"),
    (_call(x=X[:0], t=T[:0], samples=SAMPLES[:0]), ValueError,
     r"black_out: reduce='mean' cannot average an empty batch \(x of shape \(0, 4\)\); use reduce='no'"),
    (_call(x="abc"), TypeError, "black_out: x must be a numpy.ndarray or cupy.ndarray, got str"),
])
def test_bad_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()
