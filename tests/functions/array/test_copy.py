"""copy: NumPy to NumPy is a new array; to and from cupy-sim the output and the gradient change devices."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import cupy_sim


@pytest.fixture
def cp():
    with cupy_sim.install() as module:
        yield module


@pytest.mark.parametrize("dst", [-1, "@numpy", "-1", np])
def test_host_to_host_is_a_new_array_with_the_gradient(dst):
    x = mg.Variable(np.arange(6.0).reshape(2, 3).T)  # non-contiguous
    y = F.copy(x, dst)
    assert isinstance(y.array, np.ndarray) and not np.shares_memory(y.array, x.array)
    np.testing.assert_array_equal(y.array, x.array)
    F.sum(y * y).backward()
    np.testing.assert_array_equal(x.grad, 2 * x.array)


def test_host_to_gpu_and_back(cp):
    x = mg.Variable(np.array([1.0, 2.0, 3.0], np.float32))
    y = F.copy(x, 0)
    assert isinstance(y.array, cp.ndarray) and y.dtype == np.float32
    z = F.copy(y * y, "@numpy")
    assert isinstance(z.array, np.ndarray)
    np.testing.assert_array_equal(z.array, [1.0, 4.0, 9.0])
    F.sum(z).backward()
    assert isinstance(x.grad, np.ndarray)  # the gradient came back to the host
    np.testing.assert_array_equal(x.grad, [2.0, 4.0, 6.0])


def test_gpu_to_host_gradient_goes_back_to_the_gpu_at_second_order(cp):
    x = mg.Variable(cp.asarray(np.array([1.0, -2.0])))
    y = F.copy(x, -1)
    assert isinstance(y.array, np.ndarray)
    F.sum(y ** 3).backward(enable_double_backprop=True)
    gx = x.grad_var
    assert isinstance(gx.array, cp.ndarray)
    np.testing.assert_array_equal(gx.array.get(), [3.0, 12.0])
    x.cleargrad()
    F.sum(gx).backward()
    assert isinstance(x.grad, cp.ndarray)
    np.testing.assert_array_equal(x.grad.get(), [6.0, -12.0])


def test_same_gpu_is_a_new_array(cp):
    x = cp.arange(3.0)
    y = F.copy(x, "@cupy:0")
    assert y.array is not x and y.array.get().tolist() == [0.0, 1.0, 2.0]


@pytest.mark.parametrize("dst, error", [("native:0", ValueError), ("gpu", ValueError), (1.5, TypeError)])
def test_bad_device_names_the_function(dst, error):
    with pytest.raises(error, match="copy: dst"):
        F.copy(np.ones(2), dst)


def test_a_gpu_without_cupy_is_a_clear_error():
    if mg.backend.is_cupy_available():
        pytest.skip("CuPy is present")
    with pytest.raises(RuntimeError, match=r"copy: cannot copy x \(shape \(2,\)\) to 0"):
        F.copy(np.ones(2), 0)
