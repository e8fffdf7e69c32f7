"""L.StatelessMGU and L.StatefulMGU: steps against NumPy, gradients, state handling, bad sizes."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.links as L
from minigrad.testing import LinkTestCase


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _numpy_step(link, h, x):
    """The minimal gated unit: f = sigmoid(W_f [h, x]), h_bar = tanh(W_h [f h, x]), h' = f h_bar + (1 - f) h."""
    def apply(child, v):
        return v @ child.W.array.astype(np.float64).T + child.b.array.astype(np.float64)

    f = _sigmoid(apply(link.W_f, np.concatenate([h, x], axis=1)))
    h_bar = np.tanh(apply(link.W_h, np.concatenate([f * h, x], axis=1)))
    return f * h_bar + (1 - f) * h


class TestStatelessMGU(LinkTestCase):
    def create_link(self, initializers):
        link = L.StatelessMGU(3, 2)
        for child in (link.W_f, link.W_h):
            child.b.array = self.rng.uniform(-1, 1, 2).astype(self.dtype)
        return link

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (4, 2)).astype(self.dtype), self.rng.uniform(-1, 1, (4, 3)).astype(self.dtype)

    def forward_expected(self, link, inputs):
        return _numpy_step(link, *inputs),


class TestStatefulMGUTwoSteps(LinkTestCase):
    def create_link(self, initializers):
        return L.StatefulMGU(3, 2)

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (2, 3)).astype(self.dtype), self.rng.uniform(-1, 1, (2, 3)).astype(self.dtype)

    def forward(self, link, inputs):
        link.reset_state()
        link(inputs[0])
        return link(inputs[1])

    def forward_expected(self, link, inputs):
        x1, x2 = inputs
        return _numpy_step(link, _numpy_step(link, np.zeros((2, 2)), x1), x2),


def test_children_and_state():
    link = L.StatefulMGU(3, 2)
    assert link.W_f.W.shape == link.W_h.W.shape == (2, 5)
    h = np.full((1, 2), 0.5, np.float32)
    link.set_state(h)
    x = np.ones((1, 3), np.float32)
    np.testing.assert_allclose(link(x).array, _numpy_step(link, h.astype(np.float64), x), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match=r"StatefulMGU: x has a batch of 2, but the state h kept from the previous "
                                         r"call has 1"):
        link(np.ones((2, 3), np.float32))
    link.reset_state()
    assert link.h is None and link(np.ones((2, 3), np.float32)).shape == (2, 2)
    with mg.using_config("dtype", np.float64):
        double = L.StatefulMGU(3, 2)
    assert double(np.ones((2, 3))).dtype == np.float64  # h starts in x's dtype, whatever config.dtype is now
    with pytest.raises(ValueError, match=r"StatefulMGU.set_state: h must have shape \(batch, 2\), got \(1, 3\)"):
        link.set_state(np.zeros((1, 3), np.float32))


@pytest.mark.parametrize("cls", [L.StatelessMGU, L.StatefulMGU])
def test_bad_sizes(cls):
    with pytest.raises(TypeError, match=f"{cls.__name__}: in_size must be a positive int, got None"):
        cls(None, 2)
    with pytest.raises(ValueError, match=f"{cls.__name__}: out_size must be positive, got -1"):
        cls(3, -1)
