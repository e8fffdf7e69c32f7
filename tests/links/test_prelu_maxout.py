"""L.PReLU and L.Maxout: values, gradients (every order) and arguments."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
import minigrad.links as L
from minigrad.testing import LinkTestCase


def _away_from_zero(rng, shape, dtype):
    x = rng.uniform(0.2, 1.0, shape) * rng.choice([-1.0, 1.0], shape)
    return x.astype(dtype)


class TestPReLUPerChannel(LinkTestCase):
    def generate_params(self):
        return self.rng.uniform(0.1, 0.9, 3),

    def create_link(self, initializers):
        W, = initializers
        link = L.PReLU(shape=(3,))
        link.W.array = W
        return link

    def generate_inputs(self):
        return _away_from_zero(self.rng, (2, 3, 2), self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        W = link.W.array.astype(np.float64)[None, :, None]
        return np.where(x >= 0, x, W * x),


class TestMaxout(LinkTestCase):
    """Group biases 0, 1, 2 far apart (x W stays within +-0.3): no ties, and a winner per group."""

    param_names = ("linear/W", "linear/b")

    def generate_params(self):
        W = self.rng.uniform(-0.1, 0.1, (2, 3, 3))  # Chainer's (out_size, pool_size, in_size)
        b = np.array([[0.0, 1.0, 2.0], [2.0, 0.0, 1.0]])
        return W, b

    def create_link(self, initializers):
        W, b = initializers
        return L.Maxout(3, 2, 3, initialW=W, initial_bias=b)

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (4, 3)).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        W, b = link.linear.W.array.astype(np.float64), link.linear.b.array.astype(np.float64)
        return (x @ W.T + b).reshape(4, 2, 3).max(axis=2),


def test_prelu_default_is_one_shared_slope_of_a_quarter_and_it_learns():
    link = L.PReLU()
    assert link.W.shape == () and float(link.W.array) == 0.25
    link.cleargrads()
    F.sum(link(np.array([[-2.0, 3.0]], np.float32))).backward()
    assert link.W.grad == pytest.approx(-2.0)


def test_maxout_lazy_in_size_and_no_bias():
    link = L.Maxout(None, 4, 2, initial_bias=None)
    assert link(np.ones((3, 5), np.float32)).shape == (3, 4)
    assert link.linear.W.shape == (8, 5) and link.linear.b is None
    with pytest.raises(ValueError, match="Maxout: pool_size must be positive, got 0"):
        L.Maxout(3, 2, 0)
    assert [name for name, _ in link.namedparams()] == ["/linear/W"]
    assert isinstance(link, mg.Chain)


def test_maxout_hands_a_plain_callable_chainers_per_unit_shapes():
    # Chainer 7.8.1: L.Maxout(4, 3, 2, initialW=f) calls f on an array of shape (3, 2, 4); (12, 2) was given
    seen = []

    def init_w(array):
        seen.append(array.shape)
        array[...] = np.arange(24).reshape(3, 2, 4)

    def init_b(array):
        seen.append(array.shape)
        array[...] = [[1, 2], [3, 4], [5, 6]]

    layer = L.Maxout(4, 3, 2, initialW=init_w, initial_bias=init_b)
    assert seen == [(3, 2, 4), (3, 2)]
    np.testing.assert_array_equal(layer.linear.W.array, np.arange(24).reshape(6, 4))  # unit-major, as Chainer
    np.testing.assert_array_equal(layer.linear.b.array, [1, 2, 3, 4, 5, 6])
    lazy = L.Maxout(None, 3, 2, initialW=init_w)
    lazy(np.ones((1, 4), np.float32))
    assert seen[-1] == (3, 2, 4)
    glorot = L.Maxout(4, 3, 2, initialW=mg.initializers.GlorotUniform(rng=0))  # an Initializer: the matrix
    assert glorot.linear.W.shape == (6, 4)
