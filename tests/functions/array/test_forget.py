"""forget: the values and gradients (first and second order) of the plain call, no graph kept, errors."""

import gc
import weakref

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import cupy_sim


def _f(a, b):
    return F.tanh(a * b) + F.exp(a) * b


def _gradients(call, order):
    rng = np.random.default_rng(0)
    x = mg.Variable(rng.uniform(-1, 1, (2, 3)))
    y = mg.Variable(rng.uniform(-1, 1, (2, 3)))
    z = call(x, y)
    gx, gy = mg.grad([F.sum(z * z)], [x, y], enable_double_backprop=order == 2)
    if order == 1:
        return z.array, gx.array, gy.array
    ggx, ggy = mg.grad([F.sum(gx * gx) + F.sum(gy)], [x, y])
    return z.array, ggx.array, ggy.array


@pytest.mark.parametrize("order", [1, 2])
def test_same_values_and_gradients_as_the_plain_call(order):
    plain = _gradients(_f, order)
    forgotten = _gradients(lambda x, y: F.forget(_f, x, y), order)
    for expected, got in zip(plain, forgotten):
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_intermediates_are_not_kept():
    kept = []

    def f(a):
        h = F.exp(a)
        kept.append(weakref.ref(h))
        return h * h  # a product retains its inputs: the plain call keeps h alive through y's graph

    x = mg.Variable(np.ones(3))
    plain = f(x)
    gc.collect()
    assert kept[0]() is not None  # the check below can fail
    del plain
    kept.clear()
    y = F.forget(f, x)
    gc.collect()
    assert kept[0]() is None
    F.sum(y).backward()
    np.testing.assert_allclose(x.grad, 2 * np.exp(2 * np.ones(3)))
    assert len(kept) == 2  # func ran again in backward


def test_tuple_outputs_one_unused():
    x = mg.Variable(np.array([1.0, 2.0]))
    a, b = F.forget(lambda v: (v * 3.0, v * v), x)
    F.sum(b).backward()  # a gets no gradient: counts as zeros
    np.testing.assert_array_equal(x.grad, [2.0, 4.0])


def test_a_one_tuple_gives_its_variable_as_in_chainer():
    y = F.forget(lambda v: (v * 2.0,), np.ones(2))
    assert isinstance(y, mg.Variable)


def test_an_output_that_does_not_depend_on_the_inputs_gives_zero_gradients():
    x = mg.Variable(np.ones(2))
    F.sum(F.forget(lambda v: mg.Variable(np.ones(3)), x)).backward()
    np.testing.assert_array_equal(x.grad, [0.0, 0.0])


def test_array_inputs_and_an_integer_argument():
    x = mg.Variable(np.array([1.0, 2.0, 3.0]))
    y = F.forget(lambda v, i: F.get_item(v, i.array) * 2.0, x, np.array([2, 0]))
    np.testing.assert_array_equal(y.array, [6.0, 2.0])
    F.sum(y).backward()
    np.testing.assert_array_equal(x.grad, [2.0, 0.0, 2.0])


def test_non_contiguous_input():
    base = np.arange(6.0).reshape(2, 3)
    x = mg.Variable(base.T)
    y = F.forget(lambda v: v * v, x)
    np.testing.assert_array_equal(y.array, base.T ** 2)
    F.sum(y).backward()
    np.testing.assert_array_equal(x.grad, 2 * base.T)


def test_an_identity_func_gives_a_new_array():
    x = np.ones(2)
    assert F.forget(lambda v: v, x).array is not x


@pytest.mark.parametrize("func, xs, error, words", [
    ("f", (np.ones(2),), TypeError, ["forget", "callable"]),
    (lambda v: v.array, (np.ones(2),), TypeError, ["forget", "ndarray"]),
    (lambda v: (v, 1.0), (np.ones(2),), TypeError, ["forget", "output 1", "float"]),
    (lambda v: v, (), ValueError, ["forget", "at least one input"]),
    (lambda v: v, ([1.0],), TypeError, ["forget", "xs[0]", "list"]),
])
def test_bad_arguments_name_the_function(func, xs, error, words):
    with pytest.raises(error) as info:
        F.forget(func, *xs)
    for word in words:
        assert word in str(info.value)


def test_a_func_that_changes_devices_on_cupy_sim():
    with cupy_sim.install() as cp:
        x = mg.Variable(np.array([1.0, 2.0]))
        on_gpu, on_host = F.forget(lambda v: (F.copy(v * v, 0), v * 3.0), x)
        assert isinstance(on_gpu.array, cp.ndarray) and isinstance(on_host.array, np.ndarray)
        F.sum(on_host).backward()  # on_gpu gets no gradient (zeros stand in for it)
        assert isinstance(x.grad, np.ndarray)
        np.testing.assert_array_equal(x.grad, [3.0, 3.0])


@pytest.mark.parametrize("in_size", [3, None])
def test_the_parameters_of_a_link_func_closes_over_get_their_gradients(in_size):
    # Chainer 7.8.1 gives W.grad = b.grad = 4 here; the link's parameters got none (a lazily sized one too)
    layer = mg.links.Linear(in_size, 2)
    layer.cleargrads()
    x = mg.Variable(np.ones((4, 3), np.float32))
    F.sum(F.forget(layer, x)).backward()
    np.testing.assert_array_equal(layer.W.grad, np.full((2, 3), 4.0))
    np.testing.assert_array_equal(layer.b.grad, [4.0, 4.0])
    np.testing.assert_array_equal(x.grad, np.broadcast_to(layer.W.array.sum(axis=0), (4, 3)))


def test_only_the_first_order_pass_gives_the_closed_over_variables_gradients():
    w = mg.Variable(np.array([2.0, 3.0]))
    x = mg.Variable(np.array([1.0, -1.0]))
    y = F.forget(lambda v: v * v * w, x)
    gx, = mg.grad([F.sum(y)], [x], enable_double_backprop=True)
    np.testing.assert_array_equal(gx.array, [4.0, -6.0])
    np.testing.assert_array_equal(w.grad, [1.0, 1.0])  # as in Chainer: forget's backward reaches every leaf
    ggx, = mg.grad([F.sum(gx)], [x])
    np.testing.assert_array_equal(ggx.array, [4.0, 6.0])
    np.testing.assert_array_equal(w.grad, [1.0, 1.0])  # the second-order pass added nothing


def test_func_runs_again_with_in_recomputing_set():
    seen = []
    F.sum(F.forget(lambda v: seen.append(mg.config.in_recomputing) or v * 2.0, mg.Variable(np.ones(2)))).backward()
    assert seen == [False, True]
