"""L.Highway and L.Swish (issue 31): values against NumPy, gradients of every order through LinkTestCase."""

import numpy as np

import minigrad.functions as F
import minigrad.links as L
from minigrad.testing import LinkTestCase


def _sigmoid(z):
    return 1 / (1 + np.exp(-z))


class TestHighway(LinkTestCase):
    param_names = ("plain/W", "plain/b", "transform/W", "transform/b")

    def generate_params(self):
        return tuple(self.rng.uniform(-1, 1, shape) for shape in ((3, 3), (3,), (3, 3), (3,)))

    def create_link(self, initializers):
        Wh, bh, Wt, bt = initializers
        return L.Highway(3, activate=F.tanh, init_Wh=Wh, init_bh=bh, init_Wt=Wt, init_bt=bt)

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (4, 3)).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        p = {name: getattr(getattr(link, name.split("/")[0]), name.split("/")[1]).array.astype(np.float64)
             for name in self.param_names}
        gate = _sigmoid(x @ p["transform/W"].T + p["transform/b"])
        return np.tanh(x @ p["plain/W"].T + p["plain/b"]) * gate + x * (1 - gate),


class TestSwish(LinkTestCase):
    param_names = ("beta",)

    def generate_params(self):
        return self.rng.uniform(0.5, 2.0, (3,)),

    def create_link(self, initializers):
        beta, = initializers
        link = L.Swish((3,))
        link.beta.array = beta
        return link

    def generate_inputs(self):
        return self.rng.uniform(-2, 2, (2, 3, 4)).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        beta = link.beta.array.astype(np.float64)[None, :, None]
        return x * _sigmoid(beta * x),


def test_highway_defaults_are_chainers_relu_and_a_closed_gate_bias():
    layer = L.Highway(4)
    assert layer.activate is F.relu
    np.testing.assert_array_equal(layer.transform.b.array, np.full(4, -1.0))
    assert L.Highway(4, nobias=True).plain.b is None


def test_a_lazy_swish_takes_the_input_shape_after_the_batch_axis():
    layer = L.Swish(None, beta_init=2.0)
    assert layer.beta.array is None
    layer(np.zeros((5, 2, 3), np.float32))
    np.testing.assert_array_equal(layer.beta.array, np.full((2, 3), 2.0))
