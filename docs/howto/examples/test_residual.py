"""A custom layer and its LinkTestCase (see docs/howto/custom-layer.rst)."""

import numpy as np

import minigrad as mg
import minigrad.functions as F
import minigrad.links as L
from minigrad.testing import LinkTestCase


class Residual(mg.Chain):
    """y = x + scale * tanh(x W^T + b): a residual block with a learned gain per feature."""

    def __init__(self, size, initialW=None, initial_bias=None, initial_scale=1.0):
        super().__init__()
        with self.init_scope():
            self.fc = L.Linear(size, size, initialW=initialW, initial_bias=initial_bias)
            self.scale = mg.Parameter(np.full(size, initial_scale, dtype=np.float32))

    def forward(self, x):
        return x + self.scale * F.tanh(self.fc(x))


class TestResidual(LinkTestCase):
    param_names = ("fc/W", "fc/b", "scale")

    def generate_params(self):
        return self.rng.uniform(-1, 1, (3, 3)), self.rng.uniform(-1, 1, 3), self.rng.uniform(0.5, 1.5, 3)

    def create_link(self, initializers):
        W, b, scale = initializers
        link = Residual(3, initialW=W, initial_bias=b)
        link.scale.array = scale
        return link

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (4, 3)).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        W, b, scale = (p.array.astype(np.float64) for p in (link.fc.W, link.fc.b, link.scale))
        return x + scale * np.tanh(x @ W.T + b),
