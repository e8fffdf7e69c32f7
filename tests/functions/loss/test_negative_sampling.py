"""negative_sampling: the loss for fixed samples vs NumPy, the samples it returns, ignored rows, errors, float16."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import cupy_sim

RNG = np.random.default_rng(0)
X = RNG.uniform(-1, 1, (3, 4))
W = RNG.uniform(-1, 1, (6, 4))
T = np.array([1, 5, 0], dtype=np.int32)
DRAWN = np.array([[9, 2, 3], [9, 0, 0], [9, 4, 1]], dtype=np.int32)  # column 0 is overwritten by t


def sampler(shape):
    assert shape == DRAWN.shape
    return DRAWN.copy()


def _by_hand(x, t, W, negatives):
    """Row losses from the definition: -log sigmoid(x . w_t) - sum_s log sigmoid(-x . w_s)."""
    losses = np.zeros(len(x))
    for n in range(len(x)):
        if t[n] != -1:
            positive = -np.log(1 / (1 + np.exp(-(x[n] @ W[t[n]]))))
            losses[n] = positive - sum(np.log(1 / (1 + np.exp(x[n] @ W[s]))) for s in negatives[n])
    return losses


def test_loss_for_fixed_samples_matches_numpy_and_reduce_sum_sums_it():
    each = F.negative_sampling(X, T, W, sampler, 2, reduce="no")
    expected = _by_hand(X, T, W, DRAWN[:, 1:])
    assert each.shape == (3,)
    np.testing.assert_allclose(each.array, expected, rtol=1e-12)
    np.testing.assert_allclose(F.negative_sampling(X, T, W, sampler, 2).array, expected.sum(), rtol=1e-12)


def test_gradients_match_the_hand_derivative():
    x, Wv = mg.Variable(X.copy()), mg.Variable(W.copy())
    F.negative_sampling(x, T, Wv, sampler, 2).backward()
    gx, gW = np.zeros_like(X), np.zeros_like(W)
    for n in range(3):
        for j, s in enumerate(np.r_[T[n], DRAWN[n, 1:]]):
            sign = 1.0 if j == 0 else -1.0       # d/dz of -log sigmoid(sign * z) = -sign * sigmoid(-sign * z)
            coef = -sign / (1 + np.exp(sign * (X[n] @ W[s])))
            gx[n] += coef * W[s]
            gW[s] += coef * X[n]
    np.testing.assert_allclose(x.grad, gx, rtol=1e-12)
    np.testing.assert_allclose(Wv.grad, gW, rtol=1e-12, atol=1e-15)


def test_return_samples_gives_the_samples_used_with_t_in_column_0():
    drawn_before = DRAWN.copy()
    loss, samples = F.negative_sampling(X, T, W, sampler, 2, reduce="no", return_samples=True)
    np.testing.assert_array_equal(samples, np.c_[T, DRAWN[:, 1:]])
    np.testing.assert_array_equal(DRAWN, drawn_before)  # the sampler's array is not modified
    # the same samples given back to a sampler give the same loss
    again = F.negative_sampling(X, T, W, lambda shape: samples.copy(), 2, reduce="no")
    np.testing.assert_array_equal(again.array, loss.array)


def test_a_label_of_minus_one_ignores_its_row():
    t = np.array([1, -1, 0], dtype=np.int32)
    x, Wv = mg.Variable(X.copy()), mg.Variable(W.copy())
    each = F.negative_sampling(x, t, Wv, sampler, 2, reduce="no")
    np.testing.assert_allclose(each.array, _by_hand(X, t, W, DRAWN[:, 1:]), rtol=1e-12)
    assert each.array[1] == 0
    F.sum(each).backward()
    np.testing.assert_array_equal(x.grad[1], 0)
    _, samples = F.negative_sampling(X, t, W, sampler, 2, return_samples=True)
    assert samples[1, 0] == -1


def test_the_sampler_gets_the_shape_batch_by_sample_size_plus_one():
    shapes = []
    F.negative_sampling(X, T, W, lambda shape: shapes.append(shape) or np.zeros(shape, np.int64), 5)
    assert shapes == [(3, 6)]


def test_an_empty_batch_sums_to_zero_and_gives_no_row_losses():
    empty = lambda shape: np.zeros(shape, np.int32)  # noqa: E731
    assert F.negative_sampling(X[:0], T[:0], W, empty, 2).array == 0
    assert F.negative_sampling(X[:0], T[:0], W, empty, 2, reduce="no").shape == (0,)


def test_float16_keeps_its_dtype_and_agrees_with_float64():
    x, Wv = mg.Variable(X.astype(np.float16)), mg.Variable(W.astype(np.float16))
    loss = F.negative_sampling(x, T, Wv, sampler, 2)
    loss.backward()
    assert loss.dtype == x.grad.dtype == Wv.grad.dtype == np.float16
    expected = _by_hand(X.astype(np.float16).astype(np.float64), T, W.astype(np.float16).astype(np.float64),
                        DRAWN[:, 1:]).sum()
    np.testing.assert_allclose(float(loss.array), expected, rtol=5e-3)


def test_non_contiguous_inputs_give_what_copies_give():
    xt = np.asfortranarray(X)
    Wt = np.ascontiguousarray(W.T).T
    np.testing.assert_array_equal(F.negative_sampling(xt, T, Wt, sampler, 2, reduce="no").array,
                                  F.negative_sampling(X, T, W, sampler, 2, reduce="no").array)


def test_on_cupy_a_host_sampler_is_moved_to_the_device():
    with cupy_sim.install() as cp:
        loss, samples = F.negative_sampling(cp.asarray(X), cp.asarray(T), cp.asarray(W), sampler, 2, reduce="no",
                                            return_samples=True)
        assert isinstance(loss.array, cp.ndarray) and isinstance(samples, cp.ndarray)
        np.testing.assert_allclose(cp.asnumpy(loss.array), _by_hand(X, T, W, DRAWN[:, 1:]), rtol=1e-12)


def _call(x=X, t=T, W=W, sampler=sampler, sample_size=2, **kwargs):
    return lambda: F.negative_sampling(x, t, W, sampler, sample_size, **kwargs)


@pytest.mark.parametrize("call, error, message", [
    (_call(t=np.array([1, 6, 0])), ValueError,
     r"negative_sampling: t \(shape \(3,\)\) must hold ids in \[0, 6\) or -1 for W with 6 rows; got \[6\]"),
    (_call(t=np.array([1, -2, 0])), ValueError, r"negative_sampling: t .* got \[-2\]"),
    (_call(t=T.astype(np.float64)), TypeError, "negative_sampling: t must have an integer dtype, got float64"),
    (_call(t=T[:2]), ValueError,
     r"negative_sampling: t must have one label per row of x, got t of shape \(2,\) and x of shape \(3, 4\)"),
    (_call(x=X[:, :3]), ValueError,
     r"negative_sampling: W must have one column per feature of x, got W of shape \(6, 4\) and x of shape \(3, 3\)"),
    (_call(x=X[0]), ValueError, r"negative_sampling: x must have 2 dimensions, got shape \(4,\)"),
    (_call(W=W[0]), ValueError, r"negative_sampling: W must have 2 dimensions, got shape \(4,\)"),
    (_call(W=W.astype(np.float32)), TypeError,
     "negative_sampling: x and W must have the same dtype, got float64 and float32"),
    (_call(reduce="mean"), ValueError, "negative_sampling: reduce must be one of 'sum', 'no', got 'mean'"),
    (_call(sample_size=0), ValueError, "negative_sampling: sample_size must be >= 1, got 0"),
    (_call(sample_size=2.0), TypeError, "negative_sampling: sample_size must be an int, got float 2.0"),
    (_call(sampler=None), TypeError, "negative_sampling: sampler must be a callable"),
    (_call(sampler=lambda shape: np.zeros((3, 2), np.int32)), ValueError,
     r"negative_sampling: sampler\(3, 3\) must return an array of shape \(3, 3\), got shape \(3, 2\)"),
    (_call(sampler=lambda shape: np.zeros(shape)), TypeError,
     "negative_sampling: the sampler's answer must hold integer ids, got dtype float64"),
    (_call(sampler=lambda shape: np.full(shape, 6)), ValueError,
     r"negative_sampling: the sampler's answer .* must hold ids in \[0, 6\) for W with 6 rows; got \[6, 6"),
    (_call(x=[[1.0]]), TypeError, "negative_sampling: x must be a numpy.ndarray or cupy.ndarray, got list"),
])
def test_bad_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()
