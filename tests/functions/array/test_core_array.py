"""get_item, reshape, transpose, cast, identity: semantics and bad-input errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


def test_get_item_repeated_indices_accumulate():
    x = mg.Variable(np.arange(4.0))
    F.sum(x[np.array([0, 0, 3, 0])]).backward()
    np.testing.assert_array_equal(x.grad, [3.0, 0.0, 0.0, 1.0])


def test_get_item_boolean_mask_and_list_and_ellipsis():
    a = np.arange(12.0).reshape(3, 4)
    x = mg.Variable(a)
    mask = a > 5
    np.testing.assert_array_equal(x[mask].array, a[mask])
    np.testing.assert_array_equal(F.get_item(x, [2, 0]).array, a[[2, 0]])
    np.testing.assert_array_equal(x[..., 1].array, a[..., 1])
    F.sum(x[mask]).backward()
    np.testing.assert_array_equal(x.grad, mask.astype(float))


@pytest.mark.parametrize("key", [[], ([],), ([[]],), ([], slice(1, 2))], ids=str)
def test_get_item_empty_lists_index_nothing_as_in_numpy(key):
    a = np.arange(24.0).reshape(4, 3, 2)
    x = mg.Variable(a)
    y = F.get_item(x, key)
    np.testing.assert_array_equal(y.array, a[key])
    F.sum(y).backward()
    np.testing.assert_array_equal(x.grad, np.zeros_like(a))


@pytest.mark.parametrize("shape", [(), (3,)])
@pytest.mark.parametrize("flag", [True, False])
def test_get_item_a_zero_dim_boolean_mask_adds_an_axis_as_in_numpy(shape, flag):
    a = np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape)
    x = mg.Variable(a)
    y = F.get_item(x, np.array(flag))
    np.testing.assert_array_equal(y.array, a[np.array(flag)])
    F.sum(y * y).backward()
    np.testing.assert_array_equal(x.grad, 2 * a if flag else np.zeros_like(a))
    with pytest.raises(TypeError, match="a 0-dimensional boolean index is supported only as the whole index"):
        F.get_item(mg.Variable(np.ones((2, 3))), (np.array(flag), 0))


def test_get_item_errors():
    x = mg.Variable(np.ones((2, 3)))
    with pytest.raises(IndexError, match=r"get_item: invalid index for an input of shape \(2, 3\)"):
        x[5]
    with pytest.raises(TypeError, match="index arrays must be integer or boolean"):
        x[np.array([0.5])]
    with pytest.raises(TypeError, match="index arrays must be integer or boolean, got dtype float64"):
        x[np.array([])]  # an empty float array is refused, as NumPy refuses it (only an empty list is integers)
    with pytest.raises(TypeError, match="unsupported index"):
        x["a"]


def test_reshape_errors_and_minus_one():
    x = mg.Variable(np.ones((2, 3)))
    assert F.reshape(x, (-1,)).shape == (6,)
    pattern = r"reshape: cannot reshape an input of shape \(2, 3\) \(size 6\) into shape \(4, -1\)"
    with pytest.raises(ValueError, match=pattern):
        F.reshape(x, (4, -1))
    with pytest.raises(ValueError, match="reshape"):
        F.reshape(x, (-1, -1))
    with pytest.raises(TypeError, match="reshape: shape"):
        F.reshape(x, "ab")


def test_transpose_errors():
    with pytest.raises(ValueError, match="not a permutation"):
        F.transpose(np.ones((2, 3)), (0, 0))
    with pytest.raises(ValueError, match="out of range"):
        F.transpose(np.ones((2, 3)), (0, 2))


def test_cast_to_the_same_dtype_is_a_new_node_so_grad_tells_the_outputs_apart():
    # Chainer 7.8.1: grad([y1 + y2], [y1, y2]) == [1, 1]; returning x itself gave [2, 2]
    x = mg.Variable(np.array([1.0, 2.0]))
    y1, y2 = F.cast(x, np.float64), F.cast(x, np.float64)
    assert y1 is not x and y1.creator is not None
    g1, g2 = mg.grad([y1 + y2], [y1, y2])
    np.testing.assert_array_equal(g1.array, [1.0, 1.0])
    np.testing.assert_array_equal(g2.array, [1.0, 1.0])
    F.sum(y1 * 3).backward()
    np.testing.assert_array_equal(x.grad, [3.0, 3.0])


def test_cast_and_identity():
    x = mg.Variable(np.ones(2, np.float32))
    with mg.no_backprop_mode():
        assert F.cast(x, np.float32) is x
    y = F.cast(x, np.float64)
    F.sum(y).backward()
    assert x.grad.dtype == np.float32
    with pytest.raises(TypeError, match="cast"):
        F.cast(x, "not-a-dtype")
    a, b = F.identity(np.ones(1), np.zeros(1))
    assert a.creator is None and b.array[0] == 0.0
    with pytest.raises(ValueError, match="at least one"):
        F.identity()
