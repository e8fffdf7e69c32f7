"""L.Parameter (issue 31): Chainer's link that holds one array as its parameter ``W`` and returns it."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
import minigrad.links as L


def test_w_is_the_given_array_itself_with_a_nan_gradient(xp):
    array = xp.arange(6, dtype=np.float16).reshape(2, 3)
    link = L.Parameter(array)
    assert isinstance(link.W, mg.Parameter)
    assert link.W.array is array
    assert link.W.grad.shape == (2, 3) and link.W.grad.dtype == np.float16
    assert bool(xp.isnan(link.W.grad).all())
    assert link.xp is xp
    assert [name for name, _ in link.namedparams()] == ["/W"]


def test_calling_it_returns_a_new_variable_whose_gradient_reaches_w(xp):
    array = xp.asarray([1.0, -2.0, 3.0])
    link = L.Parameter(array)
    link.cleargrads()
    y = link()
    assert y is not link.W and y.creator is not None
    F.sum(y * y * y).backward()
    np.testing.assert_array_equal(mg.backend.to_cpu(link.W.grad), [3.0, 12.0, 27.0])


def test_an_optimizer_update_writes_into_the_callers_array():
    array = np.array([1.0, 2.0], dtype=np.float32)
    link = L.Parameter(array)
    optimizer = mg.optimizers.SGD(lr=0.5).setup(link)
    link.cleargrads()
    F.sum(link()).backward()
    optimizer.update()
    np.testing.assert_array_equal(array, [0.5, 1.5])


def test_volatility_other_than_off_is_refused_with_the_replacement_named():
    link = L.Parameter(np.zeros(2))
    assert link(volatile="off").shape == (2,)
    with pytest.raises(ValueError, match="volatile='on'.*no_backprop_mode"):
        link(volatile="on")


@pytest.mark.parametrize("array", [[1.0, 2.0], 3.0, None])
def test_a_non_array_is_refused_naming_the_argument(array):
    with pytest.raises(TypeError, match="Parameter: array must be a numpy.ndarray or cupy.ndarray, got"):
        L.Parameter(array)
