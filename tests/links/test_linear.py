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


class TestLinearLazyNoBias(LinkTestCase):
    """In size learned from the first input; three batch axes flattened away; no bias."""

    def generate_params(self):
        return self.rng.uniform(-1, 1, (3, 4)),

    def create_link(self, initializers):
        W, = initializers
        return L.Linear(None, 3, nobias=True, initialW=W)

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (2, 2, 2)).astype(self.dtype),

    def forward(self, link, inputs):
        return link(*inputs, n_batch_axes=1)

    def forward_expected(self, link, inputs):
        x, = inputs
        return x.reshape(2, 4) @ link.W.array.astype(np.float64).T,


def test_lazy_sizing_and_shapes():
    layer = L.Linear(5)
    assert layer.in_size is None and layer.W.array is None and layer.b.shape == (5,)
    y = layer(np.ones((3, 2, 4), dtype=np.float32), n_batch_axes=2)
    assert y.shape == (3, 2, 5) and layer.W.shape == (5, 4) and layer.in_size == 4
    assert L.Linear(3, 4, nobias=True).b is None
    assert [name for name, _ in L.Linear(3, 4, nobias=True).namedparams()] == ["/W"]


def test_default_initialization_is_lecun_normal_and_zero_bias():
    mg.initializers.set_default_rng(0)
    layer = L.Linear(400, 300)
    assert layer.W.dtype == np.float32
    assert abs(layer.W.array.std() - (1 / 400) ** 0.5) < 0.002
    assert (layer.b.array == 0).all()
    assert (L.Linear(2, 2, initialW=0.5, initial_bias=1.0).W.array == 0.5).all()


def test_bad_arguments():
    with pytest.raises(TypeError, match="Linear: out_size must be a positive int, got 2.5"):
        L.Linear(3, 2.5)
    with pytest.raises(ValueError, match="Linear: in_size must be positive, got 0"):
        L.Linear(0, 2)
    with pytest.raises(TypeError, match="an initializer must be None, a scalar, an array or a callable"):
        L.Linear(2, 2, initialW="glorot")
    with pytest.raises(ValueError, match=r"linear: x of shape .* in_size 4 .* W of shape \(2, 3\) expects in_size 3"):
        L.Linear(3, 2)(np.ones((1, 4), dtype=np.float32))
    with pytest.raises(ValueError, match="Linear: the input needs at least 2 axes, got shape \\(3,\\)"):
        L.Linear(None, 2)(np.ones(3, dtype=np.float32))


def test_check_backward_in_float64_keeps_linears_check_of_a_float32_bias():
    # Chainer turns its type checks off inside check_backward; minigrad's checks stay on (differences page)
    from minigrad.testing import check_backward
    rng = np.random.default_rng(0)
    x, gy = rng.uniform(-1, 1, (4, 3)).astype(np.float32), rng.uniform(-1, 1, (4, 2)).astype(np.float32)
    layer = L.Linear(3, 2)
    with pytest.raises(TypeError, match="linear: b has dtype float32, but x has dtype float64"):
        check_backward(layer, (x,), (gy,), dtype=np.float64)
    check_backward(layer, (x,), (gy,), params=(layer.W, layer.b), dtype=np.float64)  # in the parameters' dtype
    bilinear = L.Bilinear(3, 3, 2)  # bilinear needs all its arguments in one dtype; V1 and V2 are not listed
    with pytest.raises(TypeError, match="bilinear: V1 has dtype float32, but W has dtype float64"):
        check_backward(bilinear, (x, x), (gy,), params=(bilinear.W, bilinear.b))
    check_backward(bilinear, (x, x), (gy,), params=(bilinear.W, bilinear.V1, bilinear.V2, bilinear.b))
