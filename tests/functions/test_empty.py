"""Inputs with no elements: a 0-size output where NumPy gives one, a clear ValueError where a mean of nothing is asked.

The registry draws non-empty inputs, so these cases are written out here. Each
one compares the output's shape and dtype with NumPy's on the same empty arrays
(or with the size an output formula gives, for the convolutions) and runs
``check_backward`` / ``check_double_backward``, which also check that every
gradient has its input's shape and dtype.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import check_backward, check_double_backward

f32 = np.float32


def _softmax_reference(a, axis):
    return np.exp(a) / np.exp(a).sum(axis=axis, keepdims=True) if a.shape[axis] else a.copy()


# name -> (function, float inputs, the NumPy result on those inputs)
CASES = {
    "max over a non-empty axis of an empty array": (
        lambda x: F.max(x, axis=2), (np.zeros((0, 2, 4), f32),), lambda a: a.max(axis=2)),
    "min over a non-empty axis of an empty array": (
        lambda x: F.min(x, axis=(1, 2)), (np.zeros((0, 2, 4), f32),), lambda a: a.min(axis=(1, 2))),
    "softmax over an axis of length 0": (F.softmax, (np.zeros((3, 0), f32),), lambda a: _softmax_reference(a, 1)),
    "log_softmax over an axis of length 0": (
        F.log_softmax, (np.zeros((3, 0), f32),), lambda a: np.log(_softmax_reference(a, 1))),
    "softmax of an empty batch": (F.softmax, (np.zeros((0, 3), f32),), lambda a: _softmax_reference(a, 1)),
    "sum of an empty array": (F.sum, (np.zeros((0, 3), f32),), np.sum),
    "sum over an empty axis": (lambda x: F.sum(x, axis=0), (np.zeros((0, 3), f32),), lambda a: a.sum(axis=0)),
    "matmul over an empty inner axis": (
        F.matmul, (np.zeros((2, 0), f32), np.zeros((0, 3), f32)), lambda a, b: a @ b),
    "linear of an empty batch": (
        F.linear, (np.zeros((0, 4), f32), np.ones((3, 4), f32), np.ones(3, f32)), lambda x, W, b: x @ W.T + b),
    "embed_id with 0-wide rows": (
        lambda W: F.embed_id(np.array([0, 2], np.int32), W), (np.ones((4, 0), f32),), lambda W: W[[0, 2]]),
    "convolution_2d of an empty batch": (
        F.convolution_2d, (np.zeros((0, 3, 5, 5), f32), np.ones((2, 3, 3, 3), f32), np.ones(2, f32)),
        lambda x, W, b: np.zeros((0, 2, 3, 3), f32)),  # (5 - 3) / 1 + 1 = 3
    "convolution_2d with no output channels": (
        F.convolution_2d, (np.ones((2, 3, 5, 5), f32), np.ones((0, 3, 3, 3), f32), np.ones(0, f32)),
        lambda x, W, b: np.zeros((2, 0, 3, 3), f32)),
    "deconvolution_2d with no output channels": (
        F.deconvolution_2d, (np.ones((2, 3, 5, 5), f32), np.ones((3, 0, 3, 3), f32), np.ones(0, f32)),
        lambda x, W, b: np.zeros((2, 0, 7, 7), f32)),  # (5 - 1) * 1 + 3 = 7
    "deconvolution_2d with no input channels": (
        F.deconvolution_2d, (np.ones((2, 0, 5, 5), f32), np.ones((0, 2, 3, 3), f32), np.ones(2, f32)),
        lambda x, W, b: np.broadcast_to(b.reshape(1, 2, 1, 1), (2, 2, 7, 7))),  # an empty sum, plus the bias
    "depthwise_convolution_2d with no channels": (
        lambda x, W, b: F.depthwise_convolution_2d(x, W, b, stride=2, pad=1),
        (np.ones((2, 0, 5, 5), f32), np.ones((3, 0, 3, 3), f32), np.ones(0, f32)),
        lambda x, W, b: np.zeros((2, 0, 3, 3), f32)),  # (5 + 2 - 3) // 2 + 1 = 3
    "max_pooling_2d of an empty batch": (
        lambda x: F.max_pooling_2d(x, 2), (np.zeros((0, 3, 4, 4), f32),), lambda a: np.zeros((0, 3, 2, 2), f32)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_an_empty_input_gives_numpys_result_and_input_shaped_gradients(xp, name):
    func, arrays, reference = CASES[name]
    expected = np.asarray(reference(*arrays))
    inputs = tuple(xp.asarray(a) for a in arrays)
    y = func(*(mg.Variable(a) for a in inputs))
    assert (y.shape, y.dtype) == (expected.shape, expected.dtype)
    np.testing.assert_allclose(mg.backend.to_cpu(y.array), expected)
    gy = xp.asarray(np.linspace(-1, 1, expected.size, dtype=f32).reshape(expected.shape))
    assert check_backward(func, inputs, gy).passed
    ggx = tuple(xp.ones_like(a) for a in inputs)
    assert check_double_backward(func, inputs, gy, ggx).passed


@pytest.mark.parametrize("call, message", [
    (lambda e: F.mean(e), "mean: cannot average over an empty axis"),
    (lambda e: F.average(e, axis=0, weights=np.ones(0, f32)), "average: cannot average over an empty axis"),
    (lambda e: F.mean_squared_error(e, e), "mean_squared_error: cannot average over an empty input"),
    (lambda e: F.mean_absolute_error(e, e), "mean_absolute_error: cannot average over an empty input"),
    (lambda e: F.batch_normalization(e, np.ones(4, f32), np.zeros(4, f32)), "batch_normalization: no samples"),
    (lambda e: F.max(e), "max: cannot reduce over an empty axis"),
    (lambda e: F.accuracy(np.zeros((2, 0), f32), np.zeros(2, np.int32)), "accuracy: y must have shape"),
])
def test_a_mean_or_extreme_of_nothing_is_a_value_error_naming_the_op(call, message):
    with pytest.raises(ValueError, match=message):
        call(np.zeros((0, 4), f32))


@pytest.mark.parametrize("ignore_label", [None, -1])
def test_the_accuracy_of_an_empty_batch_is_zero_as_when_every_label_is_ignored(ignore_label):
    empty = F.accuracy(np.zeros((0, 3), f32), np.zeros(0, np.int32), ignore_label=ignore_label)
    all_ignored = F.accuracy(np.ones((2, 3), f32), np.array([-1, -1], np.int32), ignore_label=-1)
    assert (empty.dtype, float(empty.array)) == (np.dtype(f32), 0.0) == (all_ignored.dtype, float(all_ignored.array))


def test_an_empty_batch_leaves_the_batch_normalization_link_unchanged():
    bn = mg.links.BatchNormalization(4)
    bn(np.ones((3, 4), f32), finetune=True)
    before = (bn.N, bn.avg_mean.copy(), bn.avg_var.copy())
    with pytest.raises(ValueError, match="no samples"):
        bn(np.zeros((0, 4), f32), finetune=True)
    assert bn.N == before[0] == 1
    np.testing.assert_array_equal(bn.avg_mean, before[1])
    np.testing.assert_array_equal(bn.avg_var, before[2])
