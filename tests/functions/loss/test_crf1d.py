"""F.crf1d, F.argmax_crf1d and L.CRF1d: against enumerating every labelling, ragged batches, gradients, errors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
import minigrad.links as L

RNG = np.random.default_rng(0)
K = 3
SEQUENCES = [RNG.standard_normal((n, K)) for n in (4, 2, 3, 1)]  # unsorted, as a user has them
LABELS = [RNG.integers(0, K, n) for n in (4, 2, 3, 1)]
COST = RNG.standard_normal((K, K))


def _scores(x):
    """Every labelling of one sequence ``x`` (L, K) with its score under ``COST``."""
    return {labels: sum(x[t, j] for t, j in enumerate(labels)) + sum(COST[i, j] for i, j in zip(labels, labels[1:]))
            for labels in itertools.product(range(K), repeat=len(x))}


def _steps(sequences):
    order = np.argsort([-len(s) for s in sequences], kind="stable")
    return order, [s.array for s in F.transpose_sequence([sequences[i] for i in order])]


def test_the_loss_is_log_z_minus_the_gold_score_for_each_sequence():
    order, xs = _steps(SEQUENCES)
    _, ys = _steps(LABELS)
    loss = F.crf1d(COST, xs, ys, reduce="no").array
    for position, i in enumerate(order):
        scores = _scores(SEQUENCES[i])
        expected = np.logaddexp.reduce(list(scores.values())) - scores[tuple(LABELS[i])]
        np.testing.assert_allclose(loss[position], expected, rtol=1e-12)
    np.testing.assert_allclose(F.crf1d(COST, xs, ys).array, loss.mean(), rtol=1e-12)


def test_its_gradient_is_expected_counts_minus_gold_counts():
    # d loss / d cost[i, j] = E[#transitions i -> j] - #gold transitions i -> j (one sequence)
    x, y = SEQUENCES[2], LABELS[2]
    cost = mg.Variable(COST.copy())
    F.crf1d(cost, list(x[:, None, :]), list(y[:, None])).backward()
    scores = _scores(x)
    z = np.logaddexp.reduce(list(scores.values()))
    expected = np.zeros((K, K))
    for labels, score in scores.items():
        for i, j in zip(labels, labels[1:]):
            expected[i, j] += np.exp(score - z)
    for i, j in zip(y, y[1:]):
        expected[i, j] -= 1
    np.testing.assert_allclose(cost.grad, expected, atol=1e-12)


def test_argmax_finds_the_best_labelling_of_each_sequence():
    order, xs = _steps(SEQUENCES)
    score, path = F.argmax_crf1d(COST, xs)
    assert [p.shape for p in path] == [x.shape[:1] for x in xs]
    paths = F.transpose_sequence(path)
    for position, i in enumerate(order):
        scores = _scores(SEQUENCES[i])
        best = max(scores, key=scores.get)
        assert tuple(paths[position].array.tolist()) == best
        np.testing.assert_allclose(score.array[position], scores[best], rtol=1e-12)


def test_the_link_takes_unsorted_sequences_and_answers_in_their_order():
    with mg.using_config("dtype", np.float64):  # float64 cost for the float64 sequences (an array takes config.dtype)
        crf = L.CRF1d(K, initial_cost=COST)
    loss = crf(SEQUENCES, LABELS, reduce="no", transpose=True)
    score, path = crf.argmax(SEQUENCES, transpose=True)
    for i, (x, y) in enumerate(zip(SEQUENCES, LABELS)):
        scores = _scores(x)
        np.testing.assert_allclose(loss.array[i], np.logaddexp.reduce(list(scores.values())) - scores[tuple(y)],
                                   rtol=1e-6)
        assert tuple(path[i].tolist()) == max(scores, key=scores.get)
        np.testing.assert_allclose(score.array[i], max(scores.values()), rtol=1e-6)
    crf.cleargrads()  # a new parameter's gradient is NaN until cleared, as in Chainer
    crf(SEQUENCES, LABELS, transpose=True).backward()
    assert crf.cost.grad.shape == (K, K) and np.isfinite(crf.cost.grad).all()


@pytest.mark.parametrize("call, error, message", [
    (lambda xs, ys: F.crf1d(np.zeros((3, 2)), xs, ys), ValueError, r"crf1d: cost must be a square"),
    (lambda xs, ys: F.crf1d(COST, xs[::-1], ys[::-1]), ValueError, "batch sizes of xs must be positive and never"),
    (lambda xs, ys: F.crf1d(COST, xs, ys[:-1]), ValueError, "crf1d: ys must be a list of 4 label arrays"),
    (lambda xs, ys: F.crf1d(COST, xs, [y + K for y in ys]), ValueError, r"crf1d: ys has labels outside \[0, 3\)"),
    (lambda xs, ys: F.crf1d(COST, xs, [y * 1.0 for y in ys]), TypeError, r"crf1d: ys\[0\] must have an integer"),
    (lambda xs, ys: F.crf1d(COST, xs, ys, reduce="sum"), ValueError, "crf1d: reduce must be one of 'mean', 'no'"),
    (lambda xs, ys: F.argmax_crf1d(COST, [x.astype(np.float32) for x in xs]), ValueError,
     r"argmax_crf1d: xs\[0\] must have shape \(batch, 3\) and dtype float64 like cost"),
    (lambda xs, ys: F.argmax_crf1d(COST, []), TypeError, "argmax_crf1d: xs must be a non-empty list"),
])
def test_bad_arguments(call, error, message):
    _, xs = _steps(SEQUENCES)
    _, ys = _steps(LABELS)
    with pytest.raises(error, match=message):
        call(xs, ys)
