"""L.Bias and L.Scale: broadcasting along an axis, learned or given operands, nested bias term."""

import numpy as np
import pytest

import minigrad.links as L
from minigrad.testing import LinkTestCase


class TestBias(LinkTestCase):
    def generate_params(self):
        return self.rng.uniform(-1, 1, (3, 2)),

    def create_link(self, initializers):
        b, = initializers
        link = L.Bias(axis=1, shape=(3, 2))
        link.b.array = b
        return link

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (2, 3, 2, 2)).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        return x + link.b.array.astype(np.float64)[None, :, :, None],


class TestScaleWithBias(LinkTestCase):
    """A Chain: W of its own and a child Bias link; paths /W and /bias/b."""

    param_names = ("W", "bias/b")

    def generate_params(self):
        return self.rng.uniform(-1, 1, 3), self.rng.uniform(-1, 1, 3)

    def create_link(self, initializers):
        W, b = initializers
        link = L.Scale(axis=1, W_shape=(3,), bias_term=True)
        link.W.array, link.bias.b.array = W, b
        return link

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (2, 3, 2)).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        W, b = link.W.array.astype(np.float64), link.bias.b.array.astype(np.float64)
        return x * W[None, :, None] + b[None, :, None],


class TestScaleGiven(LinkTestCase):
    """No parameters: the scale is the second input and is differentiated as one."""

    def create_link(self, initializers):
        return L.Scale(axis=0)

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (2, 3)).astype(self.dtype), self.rng.uniform(-1, 1, 2).astype(self.dtype)

    def forward_expected(self, link, inputs):
        x, W = inputs
        return x * W[:, None],


def test_bias_given_as_input_and_errors():
    bias = L.Bias(axis=0)
    assert list(bias.params()) == []
    y = bias(np.zeros((2, 3), np.float32), np.array([1.0, 2.0], np.float32))
    np.testing.assert_array_equal(y.array, [[1, 1, 1], [2, 2, 2]])
    with pytest.raises(TypeError, match=r"call it as bias\(x\) \(when created with shape=...\) or bias\(x, b\)"):
        bias(np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"bias: y of shape \(3,\) must match the axes 0..0 of x of shape \(2, 3\)"):
        bias(np.zeros((2, 3), np.float32), np.ones(3, np.float32))


def test_scale_errors():
    with pytest.raises(ValueError, match="bias_term=True needs W_shape or bias_shape"):
        L.Scale(bias_term=True)
    with pytest.raises(TypeError, match=r"scale\(x, W\)"):
        L.Scale()(np.ones((2, 2), np.float32))
    assert [name for name, _ in L.Scale(W_shape=(2,), bias_term=True).namedparams()] == ["/W", "/bias/b"]
