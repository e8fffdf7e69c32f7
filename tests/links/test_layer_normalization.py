"""L.LayerNormalization: per-sample normalization, gradients, lazy size."""

import numpy as np
import pytest

import minigrad.links as L
from minigrad.testing import LinkTestCase


class TestLayerNormalization(LinkTestCase):
    check_backward_options = {"float16": {"atol": 1e-2, "rtol": 5e-2}}
    check_double_backward_options = {"float16": {"atol": 1e-2, "rtol": 5e-2}}

    def generate_params(self):
        return self.rng.uniform(0.5, 1.5, 4), self.rng.uniform(-1, 1, 4)

    def create_link(self, initializers):
        gamma, beta = initializers
        return L.LayerNormalization(4, eps=1e-3, initial_gamma=gamma, initial_beta=beta)

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (3, 4)).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        mean, var = x.mean(axis=1, keepdims=True), x.var(axis=1, keepdims=True)
        return link.gamma.array.astype(np.float64) * (x - mean) / np.sqrt(var + 1e-3) + link.beta.array,


def test_lazy_size_takes_the_input_dtype():
    ln = L.LayerNormalization()
    y = ln(np.array([[1.0, 2.0, 3.0]]))
    assert ln.gamma.shape == (3,) and ln.gamma.dtype == np.float64
    np.testing.assert_allclose(y.array, [[-1.2247, 0.0, 1.2247]], atol=1e-4)


def test_bad_arguments():
    with pytest.raises(ValueError, match="eps must be a positive number"):
        L.LayerNormalization(3, eps=-1.0)
    with pytest.raises(ValueError, match="LayerNormalization: the input needs at least 2 axes"):
        L.LayerNormalization()(np.ones(3, dtype=np.float32))
