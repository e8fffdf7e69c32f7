"""minigrad.memory_layouts: Chainer's layout names, and the shape conversions between channel-first and -last."""

import numpy as np
import pytest

import minigrad as mg
from minigrad import memory_layouts as ml


def test_the_names_are_chainers():
    assert ml.CUDNN_CHANNEL_FIRST_X is None and ml.CUDNN_CHANNEL_FIRST_W is None
    assert ml.CUDNN_CHANNEL_LAST_X == "CUDNN_CHANNEL_LAST_X" and ml.CUDNN_CHANNEL_LAST_W == "CUDNN_CHANNEL_LAST_W"


@pytest.mark.parametrize("ndim", [3, 4, 5])
def test_transpose_axes_round_trip(ndim):
    x = np.arange(np.prod(range(2, ndim + 2))).reshape(range(2, ndim + 2))
    to_last = ml.transpose_axes(ndim, None, ml.CUDNN_CHANNEL_LAST_X)
    back = ml.transpose_axes(ndim, ml.CUDNN_CHANNEL_LAST_X, None)
    assert np.moveaxis(x, 1, -1).shape == x.transpose(to_last).shape
    np.testing.assert_array_equal(x.transpose(to_last).transpose(back), x)
    assert ml.transpose_axes(ndim, None, None) is None


def test_bad_conversions_are_refused():
    with pytest.raises(ValueError, match="unknown layout"):
        ml.transpose_axes(4, ml.CUDNN_CHANNEL_LAST_X, ml.CUDNN_CHANNEL_LAST_W)
    with pytest.raises(ValueError, match="channel axis"):
        ml.transpose_axes(2, None, ml.CUDNN_CHANNEL_LAST_X)


def test_shapes():
    x = np.zeros((2, 5, 7, 3))
    assert ml.get_raw_shape(x) == (2, 5, 7, 3)
    assert ml.get_semantic_shape(x) == (2, 5, 7, 3)
    assert ml.get_semantic_shape(x, assumed_layout=ml.CUDNN_CHANNEL_LAST_X) == (2, 3, 5, 7)
    v = mg.Variable(np.zeros((2, 3, 5, 7)))
    assert ml.get_semantic_shape(v, assumed_layout=None) == (2, 3, 5, 7)
    with pytest.raises(ValueError, match="channel-first"):
        ml.get_semantic_shape(v, assumed_layout=ml.CUDNN_CHANNEL_LAST_X)
