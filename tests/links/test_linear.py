"""L.Linear: forward/gradients through LinkTestCase, lazy sizing, argument errors."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.links as L
from minigrad.testing import LinkTestCase


class TestLinear(LinkTestCase):
    param_names = ("W", "b")

    def generate_params(self):
        return self.rng.uniform(-1, 1, (2, 3)), self.rng.uniform(-1, 1, 2)

    def create_link(self, initializers):
        W, b = initializers
        return L.Linear(3, 2, initialW=W, initial_bias=b)

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (4, 3)).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        return x @ link.W.array.astype(np.float64).T + link.b.array,
