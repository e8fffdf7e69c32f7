"""Variable: construction, operators, dtypes, gradients and their accumulation."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


def test_list_data_is_a_type_error_that_says_to_pass_an_array():
    with pytest.raises(TypeError, match="numpy.ndarray"):
        mg.Variable([1, 2])


def test_numpy_scalar_becomes_a_0dim_array():
    x = mg.Variable(np.float32(2.0))
    assert isinstance(x.array, np.ndarray) and x.shape == () and x.dtype == np.float32


def test_attributes():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = mg.Variable(a, name="x")
    assert x.array is a and x.data is a
    assert (x.shape, x.ndim, x.size, x.dtype, len(x)) == ((2, 3), 2, 6, np.float32, 2)
    assert x.xp is np
    assert x.T.shape == (3, 2)
    assert x.reshape(3, 2).shape == (3, 2) and x.reshape((6,)).shape == (6,)
    assert x.transpose().shape == (3, 2) and x.transpose(1, 0).shape == (3, 2)
    assert repr(x).startswith("variable x([[0., 1., 2.],")


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_python_scalars_never_change_the_dtype(dtype):
    x = mg.Variable(np.ones(3, dtype=dtype))
    for y in (x * 2.0, 2.0 * x, x + 1, 1 - x, x / 3.0, 3.0 / x, x ** 2, 2 ** x, -x, abs(x)):
        assert y.dtype == dtype


def test_operators_accept_arrays_on_either_side_and_broadcast():
    x = mg.Variable(np.array([1.0, 2.0, 3.0]))
    a = np.ones((2, 3))
    for y, expected in ((a + x, a + x.array), (x + a, a + x.array), (a * x, a * x.array),
                        (a - x, a - x.array), (a / x, a / x.array), (x ** np.array(2.0), x.array ** 2)):
        assert isinstance(y, mg.Variable)
        np.testing.assert_array_equal(y.array, expected)
    m = mg.Variable(np.eye(3))
    np.testing.assert_array_equal((a @ m).array, a)
    np.testing.assert_array_equal((m @ x).array, x.array)


def test_list_operand_is_a_type_error():
    x = mg.Variable(np.ones(2))
    with pytest.raises(TypeError, match="pass an array"):
        x + [1, 2]


def test_unbroadcastable_shapes_name_the_op_and_shapes():
    x, y = mg.Variable(np.ones((2, 3))), mg.Variable(np.ones((4,)))
    with pytest.raises(ValueError, match=r"add.*\(2, 3\).*\(4,\)"):
        x + y
    with pytest.raises(ValueError, match="mul"):
        x * y


def test_broadcast_gradient_is_reduced_to_each_input_shape():
    x = mg.Variable(np.array([[1.0], [2.0]]))  # (2, 1)
    y = mg.Variable(np.array([10.0, 20.0, 30.0]))  # (3,)
    F.sum(x * y).backward()
    np.testing.assert_allclose(x.grad, np.full((2, 1), 60.0))
    np.testing.assert_allclose(y.grad, np.full(3, 3.0))


@pytest.mark.parametrize("op", [lambda x, y: x * y, F.minimum, F.maximum,
                                lambda x, y: F.where(np.array([True, False, True]), x, y)])
@pytest.mark.parametrize("dtypes", [(np.float32, np.float64), (np.float16, np.float32)])
def test_mixed_float_dtypes_promote_and_gradients_keep_each_dtype(op, dtypes):
    """As NumPy, where Chainer raises InvalidType (docs/reference/differences-from-chainer.rst)."""
    x = mg.Variable(np.array([1.0, 2.0, 3.0], dtypes[0]))
    y = mg.Variable(np.array([1.5, 1.5, 1.5], dtypes[1]))
    z = op(x, y)
    assert z.dtype == np.promote_types(*dtypes)
    F.sum(z).backward()
    assert x.grad.dtype == dtypes[0] and y.grad.dtype == dtypes[1]


def test_integer_variables_never_receive_a_gradient():
    i = mg.Variable(np.array([1, 2, 3]))
    x = mg.Variable(np.array([1.0, 2.0, 3.0]))
    assert not i.requires_grad
    F.sum(x * i).backward()
    assert i.grad is None
    np.testing.assert_array_equal(x.grad, [1.0, 2.0, 3.0])


def test_requires_grad_false_receives_nothing_and_is_not_computed():
    seen = []

    class Spy(mg.FunctionNode):
        def forward(self, inputs):
            return inputs[0] * inputs[1],

        def backward(self, indexes, grad_outputs):
            seen.append(indexes)
            return tuple(grad_outputs[0] for _ in indexes)

    x = mg.Variable(np.ones(2))
    c = mg.Variable(np.ones(2), requires_grad=False)
    y, = Spy().apply((x, c))
    F.sum(y).backward()
    assert seen == [(0,)] and c.grad is None and x.grad is not None


def test_nothing_requires_grad_records_no_graph():
    c = mg.Variable(np.ones(2), requires_grad=False)
    assert (c * 2).creator is None


def test_backward_twice_accumulates_until_cleargrad():
    x = mg.Variable(np.array([1.0, 2.0]))
    y = F.sum(x * x)
    y.backward()
    y.backward()
    np.testing.assert_allclose(x.grad, 4 * x.array)
    x.cleargrad()
    assert x.grad is None
    y.backward()
    np.testing.assert_allclose(x.grad, 2 * x.array)


def test_gradients_over_several_paths_are_summed_without_mutating_shared_arrays():
    x = mg.Variable(np.array([3.0]))
    y = x + x  # Add's backward hands the same gradient Variable to both inputs
    z = y * x
    F.sum(z).backward()
    np.testing.assert_allclose(x.grad, [4 * 3.0])
    seed = np.ones(())
    w = F.identity(x)
    s = F.sum(w + w)
    s.grad = seed
    s.backward()
    np.testing.assert_array_equal(seed, np.ones(()))  # the user's array is untouched


def test_non_scalar_backward_needs_grad():
    x = mg.Variable(np.ones(3))
    y = x * 2
    with pytest.raises(ValueError, match=r"set y\.grad"):
        y.backward()
    y.grad = np.ones(3)
    y.backward()
    np.testing.assert_array_equal(x.grad, [2.0, 2.0, 2.0])


def test_grad_setter_checks_shape_and_dtype():
    x = mg.Variable(np.ones(3, np.float32))
    with pytest.raises(ValueError, match="shape"):
        x.grad = np.ones(2, np.float32)
    with pytest.raises(TypeError, match="dtype"):  # a TypeError, as in Chainer
        x.grad = np.ones(3, np.float64)
    with pytest.raises(TypeError):
        x.grad = [1.0, 1.0, 1.0]


def test_intermediate_gradients_are_dropped_unless_retained():
    x = mg.Variable(np.array([2.0]))
    h = x * 3
    y = F.sum(h * h)
    y.backward()
    assert h.grad is None
    x.cleargrad()
    y.backward(retain_grad=True)
    np.testing.assert_allclose(h.grad, [12.0])


def test_loss_scale_scales_the_gradient():
    x = mg.Variable(np.array([2.0]))
    F.sum(x * 3).backward(loss_scale=8.0)
    np.testing.assert_allclose(x.grad, [24.0])


def test_unchain_backward_cuts_the_graph():
    x = mg.Variable(np.array([2.0]))
    h = x * 3
    y = h * 2
    y.unchain_backward()
    assert y.creator is None and h.creator is None


def test_no_backprop_and_force_backprop_modes():
    x = mg.Variable(np.ones(2))
    with mg.no_backprop_mode():
        z = x * 2
        with mg.force_backprop_mode():
            w = x * 2
    assert z.creator is None and w.creator is not None


def test_parameter_is_a_variable_with_gradient():
    W = mg.Parameter(np.ones((2, 2), np.float32))
    assert isinstance(W, mg.Variable) and W.requires_grad
    p = mg.Parameter(0.5, (3,))
    np.testing.assert_array_equal(p.array, np.full(3, 0.5, np.float32))


def test_0dim_gradients_summed_over_paths_stay_arrays():
    x = mg.Variable(np.array(2.0))
    (x * x).backward()
    assert isinstance(x.grad, np.ndarray) and x.grad.shape == () and x.grad == 4.0


# --- comparisons and bool(): refused, as in Chainer; hashing stays identity ---------------------

COMPARISONS = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
               "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


@pytest.mark.parametrize("operator", COMPARISONS)
@pytest.mark.parametrize("other", ["variable", "itself", "zero", "array"])
def test_comparing_a_variable_is_a_type_error_that_points_at_its_array(operator, other):
    x = mg.Variable(np.array([0.0, 1.0]))
    right = {"variable": mg.Variable(np.array([0.0, 1.0])), "itself": x, "zero": 0, "array": np.zeros(2)}[other]
    with pytest.raises(TypeError, match=f"do not support the {re.escape(operator)} operator.*x.array"):
        COMPARISONS[operator](x, right)
    with pytest.raises(TypeError, match="do not support the"):  # an int or an ndarray on the left defers to x
        COMPARISONS[operator](right, x)


@pytest.mark.parametrize("data", [np.array([0.0, 1.0]), np.array([2.0]), np.array(0.0), np.zeros((0,))])
def test_bool_of_a_variable_is_a_type_error(data):
    x = mg.Variable(data)
    with pytest.raises(TypeError, match="cannot be evaluated as a Python bool.*is not None"):
        bool(x)
    with pytest.raises(TypeError):
        if not x:
            pass


def test_variables_hash_by_identity_so_dicts_and_sets_keep_working():
    a, b = mg.Variable(np.ones(2)), mg.Variable(np.ones(2))  # equal values, different Variables
    table = {a: "a", b: "b"}
    assert table[a] == "a" and table[b] == "b" and hash(a) != hash(b)
    assert a in {a} and b not in {a} and len({a, b, a}) == 2
    p = mg.Parameter(np.ones(2))
    assert {p: 1}[p] == 1


def test_the_engine_and_grad_do_not_compare_variables():
    # the same Variable as two inputs of grad, as two operands, and reached along several paths
    x = mg.Variable(np.array([1.0, 2.0]))
    y = F.sum(x * x + x)
    gx, gx_again = mg.grad([y], [x, x])
    np.testing.assert_array_equal(gx.array, [3.0, 5.0])
    np.testing.assert_array_equal(gx_again.array, [3.0, 5.0])
