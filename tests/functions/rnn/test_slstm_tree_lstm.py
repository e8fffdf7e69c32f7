"""slstm and tree_lstm: hand-checked cells, gate layouts (interleaved, in blocks), gradients against numerical
derivatives (first and second order), and the argument errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad.functions as F
from minigrad.testing import check_backward, check_double_backward


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def test_slstm_reads_interleaved_gates_of_both_children():
    # one unit: x = (a, i, f, o); c = tanh(a1) s(i1) + tanh(a2) s(i2) + s(f1) c1 + s(f2) c2, h = s(o1 + o2) tanh(c)
    x1, x2 = np.array([[0.3, -0.2, 1.5, 0.4]]), np.array([[-0.7, 0.9, -1.1, 0.2]])
    c1, c2 = np.array([[0.5]]), np.array([[-2.0]])
    c, h = F.slstm(c1, c2, x1, x2)
    expected = (np.tanh(0.3) * _sigmoid(-0.2) + np.tanh(-0.7) * _sigmoid(0.9) + _sigmoid(1.5) * 0.5
                + _sigmoid(-1.1) * -2.0)
    np.testing.assert_allclose(c.array, [[expected]], rtol=1e-14)
    np.testing.assert_allclose(h.array, [[_sigmoid(0.6) * np.tanh(expected)]], rtol=1e-14)
    # two units: unit 1's gates are channels 4..7
    c, _ = F.slstm(np.zeros((1, 2)), np.zeros((1, 2)), np.array([[0, 0, 0, 0, 1.0, 50.0, 0, 0]]), np.zeros((1, 8)))
    np.testing.assert_allclose(c.array, [[0.0, np.tanh(1.0)]], rtol=1e-14)


def test_tree_lstm_reads_gates_in_blocks_and_one_forget_gate_per_child():
    x = np.array([[0.5, 1.0, -0.5, 2.0, -3.0]])  # a, i, o, f1, f2 for one unit
    c, h = F.tree_lstm(np.array([[1.5]]), np.array([[-1.0]]), x)
    expected = np.tanh(0.5) * _sigmoid(1.0) + _sigmoid(2.0) * 1.5 + _sigmoid(-3.0) * -1.0
    np.testing.assert_allclose(c.array, [[expected]], rtol=1e-14)
    np.testing.assert_allclose(h.array, [[_sigmoid(-0.5) * np.tanh(expected)]], rtol=1e-14)
    # two units: block k is channels 2k, 2k + 1
    c, _ = F.tree_lstm(np.array([[3.0, 4.0]]), np.array([[0, 0, 0, 0, 0, 0, 50.0, -50.0]]))
    np.testing.assert_allclose(c.array, [[3.0, 0.0]], atol=1e-15)


def test_gradients_against_numerical_derivatives():
    rng = np.random.default_rng(0)
    args = tuple(rng.uniform(-1, 1, s) for s in ((2, 2), (2, 2), (2, 8), (2, 8)))
    grads = (rng.standard_normal((2, 2)), rng.standard_normal((2, 2)))
    check_backward(F.slstm, args, grads)
    check_double_backward(F.slstm, args, grads, tuple(rng.standard_normal(a.shape) for a in args))
    args = tuple(rng.uniform(-1, 1, s) for s in ((2, 2), (2, 2), (2, 2), (2, 12)))
    check_backward(F.tree_lstm, args, grads)
    check_double_backward(F.tree_lstm, args, grads, tuple(rng.standard_normal(a.shape) for a in args))


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.slstm(np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 12)), np.ones((2, 8))), ValueError,
     r"slstm: x2 must have shape \(2, 12\)"),
    (lambda: F.slstm(np.ones((2, 3)), np.ones((2, 2)), np.ones((2, 12)), np.ones((2, 12))), ValueError,
     "c_prev1 and c_prev2 must have one shape"),
    (lambda: F.slstm(np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 12), np.float32), np.ones((2, 12))), TypeError,
     "one dtype"),
    (lambda: F.tree_lstm(np.ones((2, 3))), TypeError, "at least 2 arguments"),
    (lambda: F.tree_lstm(np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 12))), ValueError,
     r"x must have shape \(2, 15\)"),
    (lambda: F.tree_lstm(np.ones((2, 3)), np.ones((2, 2)), np.ones((2, 15))), ValueError, "one shape"),
    (lambda: F.tree_lstm(np.ones((2, 3), np.int32), np.ones((2, 12))), TypeError, "floating-point"),
])
def test_bad_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()
