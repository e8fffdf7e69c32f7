"""Issue 27: array-likes are converted at the boundary (np.matrix, non-native byte order) or refused clearly
(masked arrays), and an op given a CuPy array with a NumPy array raises a minigrad TypeError naming the op, the
input and both devices (on the CuPy simulator)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
import minigrad.links as L
from minigrad.testing import cupy_sim

pytestmark = pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")


def test_accuracy_of_an_np_matrix_is_right():
    scores = np.array([[0.9, 0.1], [0.2, 0.8], [0.7, 0.3]], np.float32)
    labels = np.array([0, 1, 1], np.int32)
    expected = 2 / 3
    assert float(F.accuracy(np.asmatrix(scores), labels).array) == pytest.approx(expected)  # (was 0.444)
    assert float(F.accuracy(scores, labels).array) == pytest.approx(expected)


@pytest.mark.parametrize("call, expected_shape", [
    (lambda m: F.argmax(m, axis=1), (2,)),
    (lambda m: F.diagonal(m), (2,)),
    (lambda m: F.expand_dims(m, 0), (1, 2, 2)),
    (lambda m: F.sum(m, axis=0), (2,)),
    (lambda m: m[0] if isinstance(m, mg.Variable) else mg.Variable(m)[0], (2,)),
], ids=["argmax", "diagonal", "expand_dims", "sum", "getitem"])
def test_np_matrix_inputs_give_ndarray_results(call, expected_shape):
    matrix = np.matrix([[1.0, 4.0], [3.0, 2.0]])
    for value in (matrix, mg.Variable(matrix)):
        y = call(value)
        assert y.shape == expected_shape
        assert type(y.array) is np.ndarray
        np.testing.assert_array_equal(y.array, call(np.asarray(matrix)).array)


def test_a_variable_of_an_np_matrix_holds_an_ndarray_and_products_are_elementwise():
    x = mg.Variable(np.matrix([[1.0, 2.0], [3.0, 4.0]]))
    assert type(x.array) is np.ndarray
    np.testing.assert_array_equal((x * x).array, [[1.0, 4.0], [9.0, 16.0]])


@pytest.mark.parametrize("dtype", [">f4", ">f8", ">i4"])
def test_big_endian_arrays_are_converted_to_native(dtype):
    big = np.arange(6).reshape(2, 3).astype(dtype)
    assert not big.dtype.isnative
    x = mg.Variable(big.copy()) if big.dtype.kind == "f" else None
    y = F.sum(big, axis=1)
    assert y.dtype.isnative and y.dtype == F.sum(big.astype(big.dtype.newbyteorder("=")), axis=1).dtype
    np.testing.assert_array_equal(y.array, [3, 12])
    if x is not None:
        assert x.dtype.isnative
        F.sum(x * x).backward()
        np.testing.assert_array_equal(x.grad, 2 * np.arange(6).reshape(2, 3))
        assert x.grad.dtype == x.dtype


def test_a_big_endian_link_input_works():
    link = L.Linear(3, 2)
    x = np.ones((1, 3), ">f4")
    np.testing.assert_allclose(link(x).array, link(np.ones((1, 3), np.float32)).array)


def test_a_masked_array_is_refused_clearly():
    masked = np.ma.masked_array(np.ones(3, np.float32), mask=[0, 1, 0])
    with pytest.raises(TypeError, match="relu: x is a masked array"):
        F.relu(masked)
    with pytest.raises(TypeError, match="Variable: data is a masked array"):
        mg.Variable(masked)


@pytest.fixture
def cp():
    with cupy_sim.install() as module:
        yield module


@pytest.mark.parametrize("call", [
    lambda g, c: F.add(g, c), lambda g, c: F.matmul(g, c), lambda g, c: F.maximum(g, c),
    lambda g, c: mg.Variable(g) * mg.Variable(c), lambda g, c: F.concat((g, c)),
], ids=["add", "matmul", "maximum", "mul", "concat"])
def test_mixed_devices_name_the_op_the_input_and_both_devices(cp, call):
    gpu, cpu = cp.ones((2, 2), dtype=np.float32), np.ones((2, 2), np.float32)
    with pytest.raises(TypeError, match=r"input 1 is a numpy.ndarray but input 0 is a cupy.ndarray; put every "
                                        r"input on the same device"):
        call(gpu, cpu)
