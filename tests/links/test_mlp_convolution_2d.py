"""L.MLPConvolution2D: a convolution then 1x1 convolutions against NumPy, gradients, arguments."""

import re

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import minigrad.functions as F
import minigrad.links as L
from minigrad.testing import LinkTestCase


def _conv2d(x, W, b, stride=1, pad=0):
    padded = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    windows = sliding_window_view(padded, W.shape[2:], axis=(2, 3))[:, :, ::stride, ::stride]
    return np.einsum("ncijpq,ocpq->noij", windows, W) + b[None, :, None, None]


def _numpy_mlpconv(link, x, activation):
    convs = list(link)
    for i, conv in enumerate(convs):
        stride, pad = (2, 1) if i == 0 else (1, 0)
        x = _conv2d(x, conv.W.array.astype(np.float64), conv.b.array.astype(np.float64), stride, pad)
        if i < len(convs) - 1:
            x = activation(x)
    return x


class TestMLPConvolution2D(LinkTestCase):
    """A smooth activation (tanh), so that every order of the gradient is checked away from kinks."""

    def create_link(self, initializers):
        link = L.MLPConvolution2D(2, (3, 4, 2), ksize=3, stride=2, pad=1, activation=F.tanh)
        for conv in link:
            conv.b.array = self.rng.uniform(-1, 1, conv.b.shape).astype(self.dtype)
        return link

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (2, 2, 5, 5)).astype(self.dtype),

    def forward_expected(self, link, inputs):
        return _numpy_mlpconv(link, inputs[0], np.tanh),


def test_relu_by_default_lazy_input_channels_and_no_activation_after_the_last():
    link = L.MLPConvolution2D((3, 2), 3, stride=2, pad=1)  # MLPConvolution2D(out_channels, ksize)
    x = np.random.default_rng(0).uniform(-1, 1, (2, 4, 5, 5)).astype(np.float32)
    y = link(x)
    assert [conv.W.shape for conv in link] == [(3, 4, 3, 3), (2, 3, 1, 1)] and y.shape == (2, 2, 3, 3)
    np.testing.assert_allclose(y.array, _numpy_mlpconv(link, x.astype(np.float64), lambda v: np.maximum(v, 0)),
                               rtol=1e-5, atol=1e-5)
    assert (y.array < 0).any()  # the last convolution's output is not rectified


def test_initializers_reach_every_convolution():
    link = L.MLPConvolution2D(2, (3, 4), 1, conv_init=0.5, bias_init=-1.0)
    assert all((conv.W.array == 0.5).all() and (conv.b.array == -1.0).all() for conv in link)


@pytest.mark.parametrize("args,kwargs,error,words", [
    ((2, (), 3), {}, TypeError, "MLPConvolution2D: out_channels must be a non-empty sequence of ints, got ()"),
    ((2, 3, 3), {}, TypeError, "MLPConvolution2D: out_channels must be a non-empty sequence of ints, got 3"),
    ((2, (3, 0), 3), {}, ValueError, "MLPConvolution2D: out_channels must be positive, got 0"),
    ((2, (3,), 3), {"activation": "relu"}, TypeError, "MLPConvolution2D: activation must be callable, got str"),
    ((2, (3,), 3), {"wscale": 2}, ValueError, "MLPConvolution2D: wscale is not supported"),
    ((2, (3,), 3, 1, 0, F.relu, 2), {}, TypeError, "MLPConvolution2D: wscale is not supported"),
    ((2, (3,), 3), {"nobias": True}, TypeError, "MLPConvolution2D: unexpected keyword arguments ['nobias']"),
])
def test_bad_arguments(args, kwargs, error, words):
    with pytest.raises(error, match=re.escape(words)):
        L.MLPConvolution2D(*args, **kwargs)
