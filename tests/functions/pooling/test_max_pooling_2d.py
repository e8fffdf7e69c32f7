"""max_pooling_2d: Chainer's cover_all default, gradient routing, errors."""

from __future__ import annotations

import numpy
import pytest

import minigrad as mg
import minigrad.functions as F


def test_cover_all_is_the_default_and_adds_partial_windows():
    x = numpy.arange(25.0).reshape(1, 1, 5, 5)
    y = F.max_pooling_2d(x, 2)
    assert y.shape == (1, 1, 3, 3)
    numpy.testing.assert_array_equal(y.array[0, 0], [[6, 8, 9], [16, 18, 19], [21, 23, 24]])
    assert F.max_pooling_2d(x, 2, cover_all=False).shape == (1, 1, 2, 2)


def test_gradient_goes_to_the_argmax_and_overlapping_windows_add_up():
    x = mg.Variable(numpy.array([[[[0.0, 1.0, 0.5], [0.2, 9.0, 0.3], [0.1, 0.4, 0.6]]]]))
    y = F.max_pooling_2d(x, 2, stride=1, cover_all=False)  # 9.0 is the max of all four windows
    y.grad = numpy.arange(1.0, 5.0).reshape(y.shape)
    y.backward()
    expected = numpy.zeros((3, 3))
    expected[1, 1] = 10.0
    numpy.testing.assert_array_equal(x.grad[0, 0], expected)


def test_padding_is_never_the_max():
    x = -numpy.ones((1, 1, 2, 2))
    numpy.testing.assert_array_equal(F.max_pooling_2d(x, 2, pad=1).array, -numpy.ones((1, 1, 2, 2)))


def test_keeps_float16():
    assert F.max_pooling_2d(numpy.ones((1, 1, 4, 4), numpy.float16), 2).dtype == numpy.float16


@pytest.mark.parametrize("shape, kwargs, error, words", [
    ((2, 4, 4), dict(ksize=2), ValueError, ["max_pooling_2d", "x", "4 dimensions", "(2, 4, 4)"]),
    ((1, 1, 3, 3), dict(ksize=5, cover_all=False), ValueError, ["max_pooling_2d", "ksize=(5, 5)", "(1, 1, 3, 3)"]),
    ((1, 1, 4, 4), dict(ksize=2, pad=2), ValueError, ["max_pooling_2d", "pad=(2, 2)", "ksize=(2, 2)"]),
    ((1, 1, 4, 3), dict(ksize=2, pad=1), ValueError,  # cover_all's extra last column starts in the padding
     ["max_pooling_2d", "last window along spatial axis 1", "input size 3", "cover_all=False"]),
    ((1, 1, 4, 4), dict(ksize=0), ValueError, ["max_pooling_2d", "ksize"]),
    ((1, 1, 4, 4), dict(ksize=2.0), TypeError, ["max_pooling_2d", "ksize"]),
])
def test_bad_arguments(shape, kwargs, error, words):
    with pytest.raises(error) as info:
        F.max_pooling_2d(numpy.zeros(shape), **kwargs)
    for word in words:
        assert word in str(info.value)


def test_integer_input_is_refused():
    with pytest.raises(TypeError, match="max_pooling_2d: x must have a floating-point dtype"):
        F.max_pooling_2d(numpy.zeros((1, 1, 2, 2), numpy.int32), 2)
