"""max_pooling_2d(return_indices=True) and upsampling_2d: Chainer's index layout, the round trip, errors."""

from __future__ import annotations

import numpy
import pytest

import minigrad as mg
import minigrad.functions as F


def test_return_indices_counts_row_major_inside_each_window():
    x = numpy.array([[[[1.0, 9.0, 5.0, 2.0],
                       [3.0, 4.0, 6.0, 8.0]]]])
    y, indexes = F.max_pooling_2d(x, 2, return_indices=True)
    assert isinstance(y, mg.Variable) and not isinstance(indexes, mg.Variable)
    numpy.testing.assert_array_equal(y.array, [[[[9.0, 8.0]]]])
    numpy.testing.assert_array_equal(indexes, [[[[1, 3]]]])  # (0, 1) -> 1, (1, 1) -> 3
    assert indexes.dtype.kind == "i"
    assert isinstance(F.max_pooling_2d(x, 2), mg.Variable)


@pytest.mark.parametrize("shape, ksize, stride, pad, cover_all", [
    ((2, 3, 6, 6), 2, None, 0, True), ((1, 2, 7, 6), 3, 3, 1, True), ((1, 2, 7, 5), (2, 3), (2, 3), 0, False),
])
def test_upsampling_puts_each_max_back_where_it_came_from(shape, ksize, stride, pad, cover_all):
    x = numpy.random.default_rng(0).permutation(numpy.prod(shape)).reshape(shape).astype(numpy.float64)
    y, indexes = F.max_pooling_2d(x, ksize, stride, pad, cover_all, return_indices=True)
    back = F.upsampling_2d(y, indexes, ksize, stride, pad, outsize=shape[2:], cover_all=cover_all).array
    # non-overlapping windows: every window's max appears once at its own position, 0 elsewhere
    kh, kw = (ksize, ksize) if isinstance(ksize, int) else ksize
    sy, sx = (kh, kw) if stride is None else ((stride, stride) if isinstance(stride, int) else stride)
    padded = numpy.pad(x, ((0, 0), (0, 0), (pad, pad + kh), (pad, pad + kw)), constant_values=-numpy.inf)
    expected = numpy.zeros_like(padded)
    for n, c, i, j in numpy.ndindex(*y.shape):
        window = padded[n, c, i * sy:i * sy + kh, j * sx:j * sx + kw]
        p, q = numpy.unravel_index(window.argmax(), window.shape)
        expected[n, c, i * sy + p, j * sx + q] = window[p, q]
    numpy.testing.assert_array_equal(back, expected[:, :, pad:pad + shape[2], pad:pad + shape[3]])
    numpy.testing.assert_array_equal(numpy.count_nonzero(back), y.size)


def test_upsampling_default_outsize_is_chainers_and_overlaps_add():
    x, indexes = numpy.ones((1, 1, 2, 2)), numpy.full((1, 1, 2, 2), 3)
    assert F.upsampling_2d(x, indexes, 2).shape == (1, 1, 3, 3)  # cover_all: 2*(2-1) + 2 - 2 + 1
    assert F.upsampling_2d(x, indexes, 2, cover_all=False).shape == (1, 1, 4, 4)
    y = F.upsampling_2d(x, numpy.zeros((1, 1, 2, 2), numpy.int64), 2, stride=1, cover_all=False).array
    numpy.testing.assert_array_equal(y[0, 0], [[1, 1, 0], [1, 1, 0], [0, 0, 0]])
    stacked = F.upsampling_2d(x, numpy.array([[[[3, 2], [1, 0]]]]), 2, stride=1, cover_all=False).array
    assert stacked[0, 0, 1, 1] == 4.0  # all four windows point at the centre


def test_upsampling_gradient_gathers_at_the_indexes():
    x = mg.Variable(numpy.ones((1, 1, 1, 2)))
    y = F.upsampling_2d(x, numpy.array([[[[2, 1]]]]), 2, cover_all=False)
    y.grad = numpy.arange(8.0).reshape(1, 1, 2, 4)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [[[[4.0, 3.0]]]])  # gy[1, 0] and gy[0, 3]


def test_upsampling_keeps_float16():
    x = numpy.ones((1, 1, 2, 2), numpy.float16)
    assert F.upsampling_2d(x, numpy.zeros((1, 1, 2, 2), numpy.int32), 2).dtype == numpy.float16


@pytest.mark.parametrize("x_shape, indexes, kwargs, error, words", [
    ((1, 1, 2, 2), numpy.zeros((1, 1, 2, 3), numpy.int64), {}, ValueError,
     ["upsampling_2d", "indexes", "(1, 1, 2, 3)", "(1, 1, 2, 2)"]),
    ((1, 1, 2, 2), numpy.full((1, 1, 2, 2), 4), {}, ValueError, ["upsampling_2d", "indexes", "[0, 4)", "4"]),
    ((1, 1, 2, 2), numpy.full((1, 1, 2, 2), -1), {}, ValueError, ["upsampling_2d", "[0, 4)", "-1"]),
    ((1, 1, 2, 2), numpy.zeros((1, 1, 2, 2)), {}, TypeError, ["upsampling_2d", "indexes", "integer", "float64"]),
    ((1, 1, 2, 2), [[0]], {}, TypeError, ["upsampling_2d", "indexes", "list"]),
    ((1, 2, 2), numpy.zeros((1, 2, 2), numpy.int64), {}, ValueError, ["upsampling_2d", "x", "(1, 2, 2)"]),
    ((1, 1, 2, 2), numpy.zeros((1, 1, 2, 2), numpy.int64), dict(outsize=(9, 9)), ValueError,
     ["upsampling_2d", "outsize (9, 9)", "(2, 2)"]),
])
def test_upsampling_bad_arguments(x_shape, indexes, kwargs, error, words):
    with pytest.raises(error) as info:
        F.upsampling_2d(numpy.ones(x_shape), indexes, 2, **kwargs)
    for word in words:
        assert word in str(info.value)
