"""L.StatefulPeepholeLSTM: two steps against NumPy, gradients through them, state handling, bad arguments."""

import numpy as np
import pytest

import minigrad.links as L
from minigrad.testing import LinkTestCase

CHILDREN = ("upward", "lateral", "peep_i", "peep_f", "peep_o")


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _numpy_step(link, x, c, h):
    """Chainer's peephole LSTM step, written out from its documented equations."""
    W = {name: getattr(link, name).W.array.astype(np.float64) for name in CHILDREN}
    gates = x @ W["upward"].T + link.upward.b.array.astype(np.float64)
    if h is not None:
        gates = gates + h @ W["lateral"].T
    c = np.zeros((len(x), W["lateral"].shape[1])) if c is None else c
    g = gates.reshape(len(x), -1, 4)
    c_new = np.tanh(g[..., 0]) * _sigmoid(g[..., 1] + c @ W["peep_i"].T) + _sigmoid(g[..., 2] + c @ W["peep_f"].T) * c
    return c_new, _sigmoid(g[..., 3] + c_new @ W["peep_o"].T) * np.tanh(c_new)


class TestStatefulPeepholeLSTMTwoSteps(LinkTestCase):
    def create_link(self, initializers):
        link = L.StatefulPeepholeLSTM(3, 2)
        link.upward.b.array = self.rng.uniform(-1, 1, 8).astype(self.dtype)
        return link

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (3, 3)).astype(self.dtype), self.rng.uniform(-1, 1, (3, 3)).astype(self.dtype)

    def forward(self, link, inputs):
        link.reset_state()
        link(inputs[0])
        return link(inputs[1])

    def forward_expected(self, link, inputs):
        c, h = _numpy_step(link, inputs[0], None, None)
        return _numpy_step(link, inputs[1], c, h)[1],


def test_children_state_and_lazy_input_size():
    link = L.StatefulPeepholeLSTM(None, 3)
    assert [name for name, _ in link.namedlinks(skipself=True)] == [f"/{n}" for n in CHILDREN]
    assert link.lateral.b is None and link.peep_o.b is None and link.peep_i.W.shape == (3, 3)
    x = np.ones((2, 4), np.float32)
    y = link(x)
    assert link.upward.W.shape == (12, 4) and link.h is y and link.c.shape == (2, 3)
    with pytest.raises(ValueError, match=r"StatefulPeepholeLSTM: x has a batch of 5, but the state c kept from the "
                                         r"previous call has 2"):
        link(np.ones((5, 4), np.float32))
    link.reset_state()
    assert link.c is None and link.h is None and link(np.ones((5, 4), np.float32)).shape == (5, 3)


@pytest.mark.parametrize("args,error,words", [
    ((3, 0), ValueError, "StatefulPeepholeLSTM: out_size must be positive, got 0"),
    ((3, None), TypeError, "StatefulPeepholeLSTM: out_size must be a positive int, got None"),
    ((2.5, 3), TypeError, "StatefulPeepholeLSTM: in_size must be a positive int or None, got 2.5"),
])
def test_bad_sizes(args, error, words):
    with pytest.raises(error, match=words):
        L.StatefulPeepholeLSTM(*args)
