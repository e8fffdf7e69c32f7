"""max_pooling_nd, average_pooling_nd, unpooling_nd: agreement with the 2-d functions, pad_value, errors."""

from __future__ import annotations

import itertools

import numpy
import pytest

import minigrad as mg
import minigrad.functions as F


def distinct_values(shape, seed=0):
    return numpy.random.default_rng(seed).permutation(numpy.prod(shape)).reshape(shape) / 10.0


@pytest.mark.parametrize("ksize, stride, pad, cover_all", [(2, None, 0, True), (3, 2, 1, True), ((2, 3), 1, 0, False)])
def test_two_axes_equal_the_2d_functions(ksize, stride, pad, cover_all):
    x = mg.Variable(distinct_values((2, 3, 7, 6)))
    pairs = [
        (F.max_pooling_nd(x, ksize, stride, pad, cover_all), F.max_pooling_2d(x, ksize, stride, pad, cover_all)),
        (F.average_pooling_nd(x, ksize, stride, pad), F.average_pooling_2d(x, ksize, stride, pad)),
        (F.unpooling_nd(x, ksize, stride, pad, cover_all=cover_all),
         F.unpooling_2d(x, ksize, stride, pad, cover_all=cover_all)),
    ]
    for nd, two_d in pairs:
        numpy.testing.assert_array_equal(nd.array, two_d.array)
        g_nd, = mg.grad([nd], [x], [numpy.ones(nd.shape)])
        g_2d, = mg.grad([two_d], [x], [numpy.ones(two_d.shape)])
        numpy.testing.assert_array_equal(g_nd.array, g_2d.array)


def test_max_pooling_nd_return_indices_in_3d():
    x = distinct_values((1, 2, 4, 4, 4))
    y, indexes = F.max_pooling_nd(x, 2, return_indices=True)
    assert indexes.shape == y.shape == (1, 2, 2, 2, 2)
    for n, c, i, j, k in numpy.ndindex(*y.shape):
        window = x[n, c, 2 * i:2 * i + 2, 2 * j:2 * j + 2, 2 * k:2 * k + 2]
        assert indexes[n, c, i, j, k] == window.argmax()  # row-major inside the window
        assert y.array[n, c, i, j, k] == window.max()


def test_average_pooling_nd_pad_value_none_divides_by_the_real_pixels():
    x = numpy.arange(1.0, 10.0).reshape(1, 1, 3, 3)
    y = F.average_pooling_nd(x, 2, stride=1, pad=1, pad_value=None).array
    assert y.shape == (1, 1, 4, 4)
    assert y[0, 0, 0, 0] == 1.0  # one real pixel
    assert y[0, 0, 0, 1] == 1.5  # (1 + 2) / 2
    assert y[0, 0, 1, 1] == 3.0  # (1 + 2 + 4 + 5) / 4
    zero = F.average_pooling_nd(x, 2, stride=1, pad=1).array
    assert zero[0, 0, 0, 0] == 0.25 and zero[0, 0, 1, 1] == 3.0


def test_average_pooling_nd_pad_value_none_gradient_sums_to_the_window_shares():
    x = mg.Variable(numpy.ones((1, 1, 3)))
    y = F.average_pooling_nd(x, 2, stride=1, pad=1, pad_value=None)  # windows [p, 0], [0, 1], [1, 2], [2, p]
    F.sum(y).backward()
    numpy.testing.assert_array_equal(x.grad, [[[1.5, 1.0, 1.5]]])


def test_float16_is_kept():
    x = numpy.ones((1, 1, 4, 4, 4), numpy.float16)
    for y in (F.max_pooling_nd(x, 2), F.average_pooling_nd(x, 2, pad=1, pad_value=None), F.unpooling_nd(x, 2)):
        assert y.dtype == numpy.float16


@pytest.mark.parametrize("func, shape, kwargs, error, words", [
    (F.max_pooling_nd, (2, 3), dict(ksize=2), ValueError, ["max_pooling_nd", "at least 3 dimensions", "(2, 3)"]),
    (F.max_pooling_nd, (1, 1, 4, 4, 4), dict(ksize=(2, 2)), TypeError, ["max_pooling_nd", "ksize", "3 ints"]),
    (F.max_pooling_nd, (1, 1, 4), dict(ksize=2, pad=2), ValueError, ["max_pooling_nd", "pad=(2,)", "ksize=(2,)"]),
    (F.max_pooling_nd, (1, 1, 5), dict(ksize=2, stride=3, pad=1), ValueError,
     ["max_pooling_nd", "last window", "spatial axis 0", "input size 5", "only padding", "-inf", "cover_all=False"]),
    (F.average_pooling_nd, (1, 1, 4), dict(ksize=1, pad=1, pad_value=None), ValueError,
     ["average_pooling_nd", "pad=(1,)", "ksize=(1,)", "only padding", "pad_value=None", "0/0"]),
    (F.average_pooling_nd, (1, 1, 4), dict(ksize=2, pad_value=1.0), ValueError,
     ["average_pooling_nd", "pad_value", "0 or None", "1.0"]),
    (F.average_pooling_nd, (1, 1, 3), dict(ksize=5), ValueError, ["average_pooling_nd", "ksize=(5,)", "(1, 1, 3)"]),
    (F.average_pooling_nd, (4,), dict(ksize=2), ValueError, ["average_pooling_nd", "(4,)"]),
    (F.unpooling_nd, (1, 1, 2, 2, 2), dict(ksize=2, outsize=(9, 9, 9)), ValueError,
     ["unpooling_nd", "outsize (9, 9, 9)", "(2, 2, 2)"]),
    (F.unpooling_nd, (1, 1, 2), dict(ksize=2, stride=(1, 1)), TypeError,
     ["unpooling_nd", "stride", "a 1-tuple of an int"]),
])
def test_bad_arguments(func, shape, kwargs, error, words):
    with pytest.raises(error) as info:
        func(numpy.ones(shape), **kwargs)
    for word in words:
        assert word in str(info.value)


def test_integer_input_is_refused():
    with pytest.raises(TypeError, match="average_pooling_nd: x must have a floating-point dtype"):
        F.average_pooling_nd(numpy.zeros((1, 1, 4), numpy.int32), 2)


def test_no_window_of_only_padding_pools_to_a_non_finite_value():
    # every small geometry either pools to finite values or is refused naming the op
    for n in range(1, 7):
        x = numpy.arange(n, dtype=numpy.float64).reshape(1, 1, n) - 10.0
        for k, s, p, cover_all in itertools.product(range(1, 5), range(1, 5), range(0, 5), (True, False)):
            pools = ((F.max_pooling_nd, {"cover_all": cover_all}), (F.average_pooling_nd, {"pad_value": None}))
            for pool, kwargs in pools:
                try:
                    y = pool(x, k, s, p, **kwargs)
                except ValueError as error:
                    assert "only padding" in str(error) or "bigger than" in str(error), str(error)
                    continue
                assert numpy.isfinite(y.array).all(), (pool.__name__, n, k, s, p, cover_all, y.array)


@pytest.mark.parametrize("alias, nd_function, nd, kwargs", [
    (F.max_pooling_1d, F.max_pooling_nd, 1, {"ksize": 3, "stride": 2, "pad": 1}),
    (F.max_pooling_3d, F.max_pooling_nd, 3, {"ksize": 2}),
    (F.average_pooling_1d, F.average_pooling_nd, 1, {"ksize": 3, "stride": 2, "pad": 1, "pad_value": None}),
    (F.average_pooling_3d, F.average_pooling_nd, 3, {"ksize": 2, "pad": 1}),
    (F.unpooling_1d, F.unpooling_nd, 1, {"ksize": 2}),
    (F.unpooling_3d, F.unpooling_nd, 3, {"ksize": 2, "cover_all": False}),
])
def test_the_fixed_dimension_aliases_are_the_nd_function_on_their_dimensions_only(alias, nd_function, nd, kwargs):
    x = mg.Variable(numpy.random.default_rng(nd).permutation(2 * 2 * 4 ** nd).reshape((2, 2) + (4,) * nd) * 1.0)
    y = alias(x, **kwargs)
    numpy.testing.assert_array_equal(y.array, nd_function(x.array, **kwargs).array)
    F.sum(y * y).backward()
    assert x.grad.shape == x.shape
    other = 2 if nd == 1 else 1  # the same call on another number of spatial axes
    with pytest.raises(ValueError, match=rf"{alias.__name__}: x must have {nd + 2} dimensions, got shape"):
        alias(numpy.ones((1, 2) + (4,) * other), **kwargs)
