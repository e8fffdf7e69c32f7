"""F.connectionist_temporal_classification: against summing every alignment, lengths, gradients, float16, errors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F

RNG = np.random.default_rng(0)
X = RNG.standard_normal((5, 2, 4))  # T = 5 frames, B = 2 samples, V = 4 symbols (blank 3)
T = np.array([[0, 0, 1], [2, 1, 0]], np.int32)
FRAMES, LABELS = np.array([5, 4], np.int32), np.array([3, 2], np.int32)


def _brute_force(x, t, blank, frames, labels):
    losses = []
    for b in range(len(t)):
        log_p = [a[b] - np.logaddexp.reduce(a[b]) for a in x[:frames[b]]]
        target, total = tuple(t[b, :labels[b]]), -np.inf
        for path in itertools.product(range(x.shape[2]), repeat=len(log_p)):
            if tuple(k for k, _ in itertools.groupby(path) if k != blank) == target:
                total = np.logaddexp(total, sum(lp[k] for lp, k in zip(log_p, path)))
        losses.append(-total)
    return np.array(losses)


def test_the_loss_sums_the_probability_of_every_alignment_of_the_target():
    expected = _brute_force(X, T, 3, FRAMES, LABELS)  # sample 0 needs a blank between its two 0s
    loss = F.connectionist_temporal_classification(list(X), T, 3, FRAMES, LABELS, reduce="no")
    np.testing.assert_allclose(loss.array, expected, rtol=1e-10)
    mean = F.connectionist_temporal_classification(X, T, 3, FRAMES, LABELS)  # a (T, B, V) array works too
    np.testing.assert_allclose(mean.array, expected.mean(), rtol=1e-10)


def test_default_lengths_are_every_frame_and_every_label():
    t = np.array([[1, 2], [0, 0]], np.int32)
    np.testing.assert_allclose(F.connectionist_temporal_classification(list(X), t, 3, reduce="no").array,
                               _brute_force(X, t, 3, [5, 5], [2, 2]), rtol=1e-10)


def test_gradients_sum_to_zero_per_frame_and_skip_the_frames_after_a_sample_ends():
    x = [mg.Variable(frame.copy()) for frame in X]
    F.connectionist_temporal_classification(x, T, 3, FRAMES, LABELS).backward()
    for frame in x:
        np.testing.assert_allclose(frame.grad.sum(axis=1), 0.0, atol=1e-12)  # softmax minus posteriors
    np.testing.assert_array_equal(x[4].grad[1], np.zeros(4))  # sample 1 has 4 frames


def test_an_unreachable_target_has_probability_zero():
    # three labels with a repeat need four frames
    loss = F.connectionist_temporal_classification(list(X[:3]), np.array([[0, 0, 1], [0, 1, 2]]), 3, reduce="no")
    assert loss.array[0] > 1e29 and loss.array[1] < 100


def test_float16_frames_are_summed_in_float32_and_give_float16():
    x16 = [frame.astype(np.float16) for frame in X]
    loss = F.connectionist_temporal_classification(x16, T, 3, FRAMES, LABELS, reduce="no")
    assert loss.dtype == np.float16
    expected = _brute_force(np.array(x16, dtype=np.float64), T, 3, FRAMES, LABELS)
    np.testing.assert_allclose(loss.array, expected, rtol=2e-3)


@pytest.mark.parametrize("kwargs, error, message", [
    ({"blank_symbol": 4}, ValueError, r"blank_symbol must be an int in \[0, 4\), got 4"),
    ({"t": np.zeros((3, 2), np.int32)}, ValueError, r"t must have shape \(batch, max_label_length\) with batch 2"),
    ({"t": np.zeros((2, 3))}, TypeError, "t must have an integer dtype"),
    ({"input_length": np.array([6, 4])}, ValueError, r"input_length must be in \[1, 5\]"),
    ({"label_length": np.array([4, 2])}, ValueError, r"label_length must be in \[0, 3\]"),
    ({"t": np.array([[0, 0, 9], [2, 1, 0]])}, ValueError, r"t has labels outside \[0, 4\): \[9\]"),
    ({"x": [X[0], X[1, :1]]}, ValueError, "every frame must be a"),
    ({"reduce": "sum"}, ValueError, "reduce must be one of 'mean', 'no'"),
])
def test_bad_arguments(kwargs, error, message):
    arguments = {"x": list(X), "t": T, "blank_symbol": 3, **kwargs}
    with pytest.raises(error, match="connectionist_temporal_classification: " + message):
        F.connectionist_temporal_classification(**arguments)


def test_padding_labels_may_hold_anything():
    t = T.copy()
    t[1, 2] = -7  # after label_length: not a label
    np.testing.assert_allclose(F.connectionist_temporal_classification(list(X), t, 3, FRAMES, LABELS).array,
                               F.connectionist_temporal_classification(list(X), T, 3, FRAMES, LABELS).array)
