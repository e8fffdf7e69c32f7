"""minigrad.utils.CooMatrix / to_coo / get_order: Chainer's COO format (padding, repeated entries, batches)."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad.testing import cupy_sim
from minigrad.utils import CooMatrix, get_order, to_coo


def test_to_coo_lists_the_non_zeros_in_c_order_and_pads_to_ldnz():
    a = to_coo(np.array([[0.0, 2.0, 0.0], [-1.0, 0.0, 3.0]], np.float32), ldnz=5)
    assert a.data.array.tolist() == [2.0, -1.0, 3.0, 0.0, 0.0] and a.data.dtype == np.float32
    assert a.row.tolist() == [0, 1, 1, -1, -1] and a.col.tolist() == [1, 0, 2, -1, -1]
    assert a.row.dtype == a.col.dtype == np.int32 and a.shape == (2, 3) and a.order == "C"
    assert not a.data.requires_grad and to_coo(np.eye(2), requires_grad=True).data.requires_grad


def test_a_batch_is_padded_to_its_fullest_matrix_and_round_trips():
    x = np.zeros((3, 2, 3))
    x[0, 1, 2], x[2] = 5.0, np.arange(1.0, 7.0).reshape(2, 3)
    a = to_coo(x)
    assert a.data.shape == a.row.shape == (3, 6) and a.shape == (2, 3)
    assert a.row[1].tolist() == [-1] * 6 and a.data.array[0].tolist() == [5.0, 0, 0, 0, 0, 0]
    np.testing.assert_array_equal(a.to_dense(), x)
    assert to_coo(x, ldnz=8).data.shape == (3, 8) and to_coo(x, ldnz=2).data.shape == (3, 6)  # never fewer


def test_repeated_entries_add_up_and_padding_is_ignored():
    data = np.array([3.0, 0.0, 4.0, -5.0, 9.0], np.float32)
    a = CooMatrix(data, np.array([0, 0, 1, 0, -1]), np.array([0, 1, 2, 0, -1]), (2, 3))
    np.testing.assert_array_equal(a.to_dense(), [[-2.0, 0.0, 0.0], [0.0, 0.0, 4.0]])
    batch = CooMatrix(data[None], np.array([[0, 0, 1, 0, -1]]), np.array([[0, 1, 2, 0, -1]]), (2, 3))
    np.testing.assert_array_equal(batch.to_dense(), [[[-2.0, 0.0, 0.0], [0.0, 0.0, 4.0]]])


@pytest.mark.parametrize("row, col, order", [
    ([0, 0, 1, 1, 2], [0, 1, 1, 2, 2], "C"),
    ([0, 1, 1, 2, 2], [0, 0, 1, 1, 2], "C"),   # sorted both ways: C wins, as in Chainer
    ([1, 0, 2], [0, 1, 1], "F"),
    ([0, 2, 4, 1, 3], [1, 3, 0, 2, 4], "other"),
    ([0, -1, 1], [1, -1, 0], "C"),             # padding is skipped
])
def test_get_order(row, col, order):
    assert get_order(np.array(row), np.array(col)) == order


def test_to_coo_works_on_the_gpu_simulator():
    with cupy_sim.install() as cp:
        a = to_coo(cp.asarray([[0.0, 1.0], [2.0, 0.0]]), ldnz=3)
        assert isinstance(a.row, cp.ndarray) and a.row.get().tolist() == [0, 1, -1]
        assert a.to_dense().get().tolist() == [[0.0, 1.0], [2.0, 0.0]]


@pytest.mark.parametrize("call, error, message", [
    (lambda: to_coo(np.ones(3)), ValueError, r"to_coo: x must have 2 dimensions .* got shape \(3,\)"),
    (lambda: to_coo(np.ones((2, 2)), ldnz=-1), ValueError, "to_coo: ldnz must be a non-negative int"),
    (lambda: to_coo([[1.0]]), TypeError, "to_coo: x must be a numpy.ndarray"),
    (lambda: CooMatrix(np.ones(2), np.array([0, 1]), np.array([0, 3]), (2, 3)), ValueError,
     r"CooMatrix: entries at \[\[1\]\] .* outside the shape \(2, 3\)"),
    (lambda: CooMatrix(np.ones(2), np.array([0, -1]), np.array([0, 1]), (2, 3)), ValueError, "outside the shape"),
    (lambda: CooMatrix(np.ones(2), np.array([0.0, 1.0]), np.array([0, 1]), (2, 3)), TypeError,
     "CooMatrix: row must have an integer dtype, got float64"),
    (lambda: CooMatrix(np.ones(2), np.array([0, 1, 1]), np.array([0, 1]), (2, 3)), ValueError,
     r"CooMatrix: row must have data's shape \(2,\), got \(3,\)"),
    (lambda: CooMatrix(np.ones((1, 1, 2)), np.ones((1, 1, 2), int), np.ones((1, 1, 2), int), (2, 3)), ValueError,
     "CooMatrix: data must have 1 or 2 dimensions"),
    (lambda: CooMatrix(np.ones(1), np.zeros(1, int), np.zeros(1, int), (2, 0)), ValueError, "positive sizes"),
    (lambda: CooMatrix(np.ones(1), np.zeros(1, int), np.zeros(1, int), (2,)), ValueError, "shape must be two ints"),
    (lambda: CooMatrix(np.ones(1), np.zeros(1, int), np.zeros(1, int), (2, 2), order="X"), ValueError, "order"),
    (lambda: get_order(np.array([0, 2, 4, 1]), np.array([1, 3, 0, 2, 4])), ValueError, "get_order: row and col"),
    (lambda: get_order(np.array([0, 2, 4, 1, -1]), np.array([1, 3, 0, -1, 4])), ValueError, "negative row"),
])
def test_bad_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()
