"""F.lstm's link, L.LSTM: two steps against NumPy, gradients through the unrolled steps, state handling."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
import minigrad.links as L
from minigrad.testing import LinkTestCase


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _numpy_step(x, c, h, upward_W, upward_b, lateral_W):
    """One LSTM step in NumPy with the gates laid out per unit (cell input, input, forget, output)."""
    gates = x @ upward_W.T + upward_b
    if h is not None:
        gates += h[:len(x)] @ lateral_W.T
    g = gates.reshape(len(x), -1, 4)
    c_new = np.tanh(g[..., 0]) * _sigmoid(g[..., 1]) + _sigmoid(g[..., 2]) * (0 if c is None else c[:len(x)])
    return c_new, _sigmoid(g[..., 3]) * np.tanh(c_new)


class TestLSTMTwoSteps(LinkTestCase):
    """The link is run for two steps from a fresh state; the second step's output is checked."""

    param_names = ("upward/W", "upward/b", "lateral/W")

    def generate_params(self):
        return self.rng.uniform(-1, 1, (8, 3)), self.rng.uniform(-1, 1, 8), self.rng.uniform(-1, 1, (8, 2))

    def create_link(self, initializers):
        upward_W, upward_b, lateral_W = initializers
        link = L.LSTM(3, 2, upward_init=upward_W, lateral_init=lateral_W)
        link.upward.b.array = upward_b
        return link

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (3, 3)).astype(self.dtype), self.rng.uniform(-1, 1, (3, 3)).astype(self.dtype)

    def forward(self, link, inputs):
        link.reset_state()
        x1, x2 = inputs
        link(x1)
        return link(x2)

    def forward_expected(self, link, inputs):
        x1, x2 = inputs
        params = [p.array.astype(np.float64) for p in (link.upward.W, link.upward.b, link.lateral.W)]
        c, h = _numpy_step(x1, None, None, *params)
        return _numpy_step(x2, c, h, *params)[1],


def test_default_biases_are_zero_with_forget_gates_at_one():
    link = L.LSTM(3, 4)
    np.testing.assert_array_equal(link.upward.b.array.reshape(4, 4), np.tile([0.0, 0.0, 1.0, 0.0], (4, 1)))
    assert link.lateral.b is None and link.upward.W.shape == (16, 3)


def test_a_shrinking_batch_keeps_the_other_rows_of_the_state():
    mg.initializers.set_default_rng(0)
    link = L.LSTM(2, 3)
    rng = np.random.default_rng(1)
    x1, x2 = rng.uniform(-1, 1, (4, 2)).astype(np.float32), rng.uniform(-1, 1, (2, 2)).astype(np.float32)
    h1 = link(x1).array.copy()
    c1 = link.c.array.copy()
    y2 = link(x2)
    params = [p.array.astype(np.float64) for p in (link.upward.W, link.upward.b, link.lateral.W)]
    c2, h2 = _numpy_step(x2.astype(np.float64), c1, h1, *params)
    np.testing.assert_allclose(y2.array, h2, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(link.h.array[2:], h1[2:])
    np.testing.assert_array_equal(link.c.array[2:], c1[2:])
    np.testing.assert_allclose(link.c.array[:2], c2, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match=r"LSTM: the batch of x \(5\) must not exceed that of the previous state h "
                                         r"\(4\)"):  # h keeps all 4 rows
        link(np.ones((5, 2), np.float32))
    link.reset_state()
    assert link(x1).shape == (4, 3)


def test_backprop_through_time_reaches_the_first_input():
    link = L.LSTM(2, 2)
    x1 = mg.Variable(np.ones((1, 2), np.float32))
    link(x1)
    F.sum(link(np.ones((1, 2), np.float32))).backward()
    assert x1.grad is not None and np.abs(x1.grad).sum() > 0


def test_set_state_checks_shapes():
    link = L.LSTM(2, 3)
    link.set_state(np.zeros((2, 3), np.float32), np.ones((2, 3), np.float32))
    assert link(np.ones((2, 2), np.float32)).shape == (2, 3)
    with pytest.raises(ValueError, match=r"LSTM.set_state: h must have shape \(batch, 3\), got \(2, 2\)"):
        link.set_state(np.zeros((2, 3), np.float32), np.zeros((2, 2), np.float32))


@pytest.mark.parametrize("call, message", [
    (lambda: F.lstm(np.zeros((2, 3)), np.zeros((2, 8))), r"c_prev must have shape \(B, 2, ...\) with B >= 2"),
    (lambda: F.lstm(np.zeros((2, 2)), np.zeros((2, 7))), r"x must have shape \(batch, 4 \* units, ...\)"),
    (lambda: F.lstm(np.zeros((1, 2)), np.zeros((2, 8))), r"c_prev .* for x of shape \(2, 8\), got \(1, 2\)"),
])
def test_lstm_function_shape_errors(call, message):
    with pytest.raises(ValueError, match="lstm: " + message):
        call()



class TestStatelessLSTM(LinkTestCase):
    """One step with the state passed in: (c, h, x) -> (c_new, h_new), gradients to c, h, x and the weights."""

    def create_link(self, initializers):
        link = L.StatelessLSTM(3, 2)
        link.upward.b.array = self.rng.uniform(-1, 1, 8).astype(self.dtype)  # non-zero: a gate mix-up shows
        return link

    def generate_inputs(self):
        return tuple(self.rng.uniform(-1, 1, shape).astype(self.dtype) for shape in ((4, 2), (4, 2), (4, 3)))

    def forward_expected(self, link, inputs):
        c, h, x = inputs
        params = [p.array.astype(np.float64) for p in (link.upward.W, link.upward.b, link.lateral.W)]
        return _numpy_step(x, c, h, *params)


def test_stateless_lstm_without_a_state_and_with_a_lazy_input_size():
    link = L.StatelessLSTM(2)  # StatelessLSTM(out_size): the input size is learned
    x = np.random.default_rng(2).uniform(-1, 1, (3, 5)).astype(np.float32)
    c, h = link(None, None, x)
    assert link.upward.W.shape == (8, 5)
    params = [p.array.astype(np.float64) for p in (link.upward.W, link.upward.b, link.lateral.W)]
    expected_c, expected_h = _numpy_step(x.astype(np.float64), None, None, *params)
    np.testing.assert_allclose(c.array, expected_c, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h.array, expected_h, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match=r"StatelessLSTM: h must have shape \(3, 2\) \(x's batch, out_size\), got "
                                         r"\(3, 4\)"):
        link(c, np.zeros((3, 4), np.float32), x)
    with pytest.raises(TypeError, match="StatelessLSTM: out_size must be a positive int, got 2.0"):
        L.StatelessLSTM(3, 2.0)
