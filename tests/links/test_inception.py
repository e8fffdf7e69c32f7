"""L.Inception and L.InceptionBN: every path against NumPy, gradients through the whole module, arguments."""

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import minigrad.links as L
from minigrad.testing import LinkTestCase


def _conv2d(x, conv, stride=1, pad=0):
    W = conv.W.array.astype(np.float64)
    padded = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    windows = sliding_window_view(padded, W.shape[2:], axis=(2, 3))[:, :, ::stride, ::stride]
    y = np.einsum("ncijpq,ocpq->noij", windows, W)
    return y if conv.b is None else y + conv.b.array.astype(np.float64)[None, :, None, None]


def _pool(x, kind, stride):
    """3x3 pooling with pad 1: max over the real pixels, or the sum over 9 (zeros for padding) / 9."""
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf if kind == "max" else 0.0)
    windows = sliding_window_view(padded, (3, 3), axis=(2, 3))[:, :, ::stride, ::stride]
    return windows.max(axis=(4, 5)) if kind == "max" else windows.mean(axis=(4, 5))


def _relu(v):
    return np.maximum(v, 0)


def _bn(x, link):  # training mode: the batch's statistics
    mean, var = x.mean(axis=(0, 2, 3), keepdims=True), x.var(axis=(0, 2, 3), keepdims=True)
    gamma, beta = (p.array.astype(np.float64)[None, :, None, None] for p in (link.gamma, link.beta))
    return gamma * (x - mean) / np.sqrt(var + link.eps) + beta


def _numpy_inception(link, x):
    out3 = _conv2d(_relu(_conv2d(x, link.proj3)), link.conv3, pad=1)
    out5 = _conv2d(_relu(_conv2d(x, link.proj5)), link.conv5, pad=2)
    pool = _conv2d(_pool(x, "max", 1), link.projp)
    return _relu(np.concatenate([_conv2d(x, link.conv1), out3, out5, pool], axis=1))


def _numpy_inception_bn(link, x):
    def block(h, conv, bn, stride=1, pad=0):
        return _relu(_bn(_conv2d(h, conv, stride, pad), bn))

    s = link.stride
    outs = [block(x, link.conv1, link.conv1n)] if link.out1 > 0 else []
    outs.append(block(block(x, link.proj3, link.proj3n), link.conv3, link.conv3n, s, 1))
    h33 = block(block(x, link.proj33, link.proj33n), link.conv33a, link.conv33an, 1, 1)
    outs.append(block(h33, link.conv33b, link.conv33bn, s, 1))
    pool = _pool(x, link.pooltype, s)
    outs.append(block(pool, link.poolp, link.poolpn) if link.proj_pool is not None else pool)
    return np.concatenate(outs, axis=1)


def _draw_parameters(link, rng, dtype):
    """Every parameter from the test's generator (not the initializers' global one), so that the check does
    not depend on which tests ran before: relu and max pooling have kinks, and the values decide how near."""
    for name, param in link.namedparams():
        low, high = (0.5, 1.5) if name.endswith("gamma") else (-0.5, 0.5) if param.ndim == 1 else (-1.0, 1.0)
        param.array = rng.uniform(low, high, param.shape).astype(dtype)
    return link


class TestInception(LinkTestCase):
    def create_link(self, initializers):
        return _draw_parameters(L.Inception(2, 2, 2, 1, 2, 1, 2), self.rng, self.dtype)

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (2, 2, 4, 4)).astype(self.dtype),

    def forward_expected(self, link, inputs):
        return _numpy_inception(link, inputs[0]),


class TestInceptionBN(LinkTestCase):
    """Training mode (batch statistics), max pooling with a projection, the 1x1 path."""

    check_backward_options = {np.float16: {"atol": 5e-2, "rtol": 5e-2}}
    check_double_backward_options = {np.float16: {"atol": 5e-2, "rtol": 5e-2}}
    check_forward_options = {np.float16: {"atol": 2e-2, "rtol": 2e-2}}

    def create_link(self, initializers):
        return _draw_parameters(L.InceptionBN(2, 1, 2, 1, 2, 1, "max", proj_pool=1), self.rng, self.dtype)

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (3, 2, 3, 3)).astype(self.dtype),

    def forward_expected(self, link, inputs):
        return _numpy_inception_bn(link, inputs[0]),


@pytest.mark.parametrize("pooltype,proj_pool,stride", [("avg", 2, 1), ("max", None, 2), ("avg", None, 2)])
def test_inception_bn_pooling_projection_and_stride(pooltype, proj_pool, stride):
    link = L.InceptionBN(None, 0, 2, 3, 2, 3, pooltype, proj_pool=proj_pool, stride=stride)
    assert not hasattr(link, "conv1") and hasattr(link, "poolp") == (proj_pool is not None)
    x = np.random.default_rng(1).uniform(-1, 1, (4, 2, 5, 5))
    link.to_device("@numpy")
    for _, param in link.namedparams():  # float64 parameters for a float64 comparison
        if param.array is not None:
            param.array = param.array.astype(np.float64)
    for bn in (link.proj3n, link.conv3n, link.proj33n, link.conv33an, link.conv33bn) + (
            (link.poolpn,) if proj_pool else ()):
        bn.gamma.array, bn.beta.array = bn.gamma.array.astype(np.float64), bn.beta.array.astype(np.float64)
        bn.avg_mean, bn.avg_var = bn.avg_mean.astype(np.float64), bn.avg_var.astype(np.float64)
    y = link(x)
    np.testing.assert_allclose(y.array, _numpy_inception_bn(link, x), rtol=1e-10, atol=1e-10)
    assert y.shape[2:] == ((5, 5) if stride == 1 else (3, 3))


def test_inception_lazy_input_and_initializers():
    link = L.Inception(None, 1, 1, 1, 1, 1, 1, conv_init=0.25, bias_init=0.5)
    assert link(np.ones((1, 3, 4, 4), np.float32)).shape == (1, 4, 4, 4)
    assert link.conv1.W.shape == (1, 3, 1, 1)
    assert (link.conv5.W.array == 0.25).all() and (link.projp.b.array == 0.5).all()


@pytest.mark.parametrize("make,error,words", [
    (lambda: L.Inception(3, 2, 2, 3, 0, 3, 4), ValueError, "Inception: proj5 must be positive, got 0"),
    (lambda: L.Inception(3.0, 2, 2, 3, 2, 3, 4), TypeError, "Inception: in_channels must be a positive int or None"),
    (lambda: L.InceptionBN(3, 1, 2, 3, 2, 3, "max"), ValueError,
     "InceptionBN: a 1x1 path \\(out1=1\\) needs stride=1 and a proj_pool"),
    (lambda: L.InceptionBN(3, 1, 2, 3, 2, 3, "max", 2, stride=2), ValueError, "needs stride=1 and a proj_pool"),
    (lambda: L.InceptionBN(3, 0, 2, 3, 2, 3, "min"), ValueError, "InceptionBN: pooltype must be 'max' or 'avg'"),
    (lambda: L.InceptionBN(3, -1, 2, 3, 2, 3, "max"), TypeError, "InceptionBN: out1 must be a non-negative int"),
    (lambda: L.InceptionBN(3, 0, 2, 3, 2, 3, "max", stride=0), ValueError, "InceptionBN: stride must be positive"),
])
def test_bad_arguments(make, error, words):
    with pytest.raises(error, match=words):
        make()
