"""L.StatelessGRU and L.StatefulGRU (= L.GRU): one step and two steps against NumPy, gradients, state handling."""

import numpy as np
import pytest

import minigrad.links as L
from minigrad.testing import LinkTestCase

GATES = ("W_r", "W_z", "W", "U_r", "U_z", "U")


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _numpy_step(link, h, x):
    lin = {g: (getattr(link, g).W.array.astype(np.float64), getattr(link, g).b.array.astype(np.float64))
           for g in GATES}

    def apply(g, v):
        W, b = lin[g]
        return v @ W.T + b

    if h is None:
        return _sigmoid(apply("W_z", x)) * np.tanh(apply("W", x))
    r = _sigmoid(apply("W_r", x) + apply("U_r", h))
    z = _sigmoid(apply("W_z", x) + apply("U_z", h))
    h_bar = np.tanh(apply("W", x) + apply("U", r * h))
    return z * h_bar + (1 - z) * h


class TestStatelessGRU(LinkTestCase):
    def create_link(self, initializers):
        link = L.StatelessGRU(3, 2)
        for gate in GATES:  # non-zero biases, so a mix-up of the gates shows
            getattr(link, gate).b.array = self.rng.uniform(-1, 1, 2).astype(self.dtype)
        return link

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (4, 2)).astype(self.dtype), self.rng.uniform(-1, 1, (4, 3)).astype(self.dtype)

    def forward_expected(self, link, inputs):
        h, x = inputs
        return _numpy_step(link, h, x),


class TestStatefulGRUTwoSteps(LinkTestCase):
    def create_link(self, initializers):
        link = L.GRU(3, 2)
        for gate in GATES:
            getattr(link, gate).b.array = self.rng.uniform(-1, 1, 2).astype(self.dtype)
        return link

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (2, 3)).astype(self.dtype), self.rng.uniform(-1, 1, (2, 3)).astype(self.dtype)

    def forward(self, link, inputs):
        link.reset_state()
        link(inputs[0])
        return link(inputs[1])

    def forward_expected(self, link, inputs):
        x1, x2 = inputs
        return _numpy_step(link, _numpy_step(link, None, x1), x2),


def test_gru_is_the_stateful_one_with_six_linear_children():
    assert L.GRU is L.StatefulGRU
    assert [name for name, _ in L.GRU(3, 2).namedlinks(skipself=True)] == [f"/{g}" for g in GATES]
    assert L.StatelessGRU(4).W.in_size is None  # StatelessGRU(out_size): the input size is learned


def test_set_state_and_reset_state():
    gru = L.GRU(3, 2)
    h = np.full((1, 2), 0.5, np.float32)
    gru.set_state(h)
    x = np.ones((1, 3), np.float32)
    np.testing.assert_allclose(gru(x).array, _numpy_step(gru, h.astype(np.float64), x), rtol=1e-5, atol=1e-6)
    gru.reset_state()
    assert gru.h is None
    with pytest.raises(ValueError, match=r"StatefulGRU.set_state: h must have shape \(batch, 2\), got \(1, 3\)"):
        gru.set_state(np.zeros((1, 3), np.float32))



@pytest.mark.parametrize("args", [(), (np.zeros((1, 3), np.float32),) * 2])
def test_a_wrong_number_of_inputs_is_a_type_error(args):
    with pytest.raises(TypeError, match="forward"):
        L.StatefulGRU(3, 2)(*args)
