"""from_params (Chainer 7's classmethods): a layer whose parameters start as the given arrays or Variables."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.links as L


def test_linear_and_embed_id():
    rng = np.random.default_rng(0)
    W, b = rng.standard_normal((2, 3)).astype(np.float32), rng.standard_normal(2).astype(np.float32)
    layer = L.Linear.from_params(mg.Variable(W), b)
    np.testing.assert_array_equal(layer.W.array, W)
    np.testing.assert_array_equal(layer.b.array, b)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    np.testing.assert_allclose(layer(x).array, x @ W.T + b, rtol=1e-6)
    assert L.Linear.from_params(W, b, nobias=True).b is None
    assert L.Linear.from_params(W).b.array.tolist() == [0.0, 0.0]
    table = L.EmbedID.from_params(W.T, ignore_label=-1)
    np.testing.assert_array_equal(table(np.array([2, -1], np.int32)).array, [W.T[2], [0.0, 0.0]])


@pytest.mark.parametrize("groups", [1, 2])
def test_convolutions_take_their_sizes_from_w(groups):
    rng = np.random.default_rng(1)
    W = rng.standard_normal((4, 4 // groups, 3, 2)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    layer = L.Convolution2D.from_params(W, b, stride=2, pad=1, groups=groups)
    x = rng.standard_normal((1, 4, 5, 5)).astype(np.float32)
    expected = mg.functions.convolution_2d(x, W, b, stride=2, pad=1, groups=groups).array
    np.testing.assert_allclose(layer(x).array, expected, rtol=1e-6)
    nd = L.ConvolutionND.from_params(W, b, stride=2, pad=1, groups=groups)
    assert nd.ndim == 2 and nd.in_channels == 4
    np.testing.assert_allclose(nd(x).array, expected, rtol=1e-5, atol=1e-6)


def test_mismatched_shapes_are_refused():
    with pytest.raises(ValueError, match=r"Linear.from_params: b has 3 elements, but W of shape \(2, 5\) has 2"):
        L.Linear.from_params(np.ones((2, 5)), np.ones(3))
    with pytest.raises(ValueError, match="Convolution2D.from_params: W must be a 4-dimensional array"):
        L.Convolution2D.from_params(np.ones((2, 5)))
    with pytest.raises(ValueError, match="ConvolutionND.from_params: W must be a .out, in, .ksize.-shaped array"):
        L.ConvolutionND.from_params(np.ones((2, 5)))
