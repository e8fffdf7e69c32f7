"""Chainer v7 parity of ``Variable``: the expected values come from Chainer's reference docs and source
(chainer.Variable, chainer.variable.VariableNode), not from minigrad's output."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.variable import VariableNode

# --- printing ----------------------------------------------------------------

@pytest.mark.parametrize("shape, label", [((10,), "(10), float32"), ((2, 5), "(2, 5), float32"), ((), "float32"),
                                          ((1,), "(1), float32")])
def test_label_is_shape_and_dtype(shape, label):
    assert mg.Variable(np.zeros(shape, np.float32)).label == label


def test_repr_and_str_print_like_chainer():
    a = np.array([0.0, 1.0], np.float32)
    assert repr(mg.Variable(a)) == "variable([0., 1.])"  # no dtype, as Chainer prints it
    assert str(mg.Variable(a)) == "variable([0. 1.])"
    assert repr(mg.Variable(a, name="x")) == "variable x([0., 1.])"
    assert str(mg.Variable(a, name="x")) == "variable x([0. 1.])"
    assert repr(mg.Parameter()) == "variable(None)" and str(mg.Variable()) == "variable(None)"
    assert repr(mg.Variable(np.zeros((0, 0)))) == "variable([], shape=(0, 0))"
    assert repr(mg.Variable(np.zeros((0,)))) == "variable([])"
    # continuation lines are indented under the opening bracket
    assert repr(mg.Variable(np.eye(2), name="w")) == "variable w([[1., 0.],\n            [0., 1.]])"


def test_summary_and_debug_print():
    assert mg.Variable(np.ones(2), name="x").summary() == "<variable x>"
    anonymous = mg.Variable(np.ones(2))
    assert anonymous.summary() == f"<variable at 0x{id(anonymous):x}>"
    x = mg.Variable(np.array([1.0, 3.0], np.float32), name="x")
    text = x.debug_print()
    assert text.splitlines() == [
        "<variable x>", "- device: CPU", "- backend: <class 'numpy.ndarray'>", "- shape: (2,)",
        "- dtype: float32", "- statistics: mean=2.00000000, std=1.00000000", "- grad: None"]
    x.grad = np.zeros(2, np.float32)
    assert text != x.debug_print() and x.debug_print().endswith("- grad: 0")
    x.grad = np.array([1.0, 1.0], np.float32)
    assert x.debug_print().endswith("- grad: mean=1.00000000, std=0.00000000")
    empty = mg.Variable().debug_print().splitlines()
    assert empty[1:] == ["- device: None", "- backend: None", "- shape: None", "- dtype: None",
                         "- statistics: None", "- grad: None"]


def test_item_converts_one_element_to_a_python_scalar():
    assert mg.Variable(np.array([[2.5]], np.float32)).item() == 2.5
    assert isinstance(mg.Variable(np.array(3, np.int32)).item(), int)
    with pytest.raises(ValueError):
        mg.Variable(np.ones(2)).item()


# --- the graph ------------------------------------------------------------------

def test_setting_creator_or_creator_node_sets_the_rank():
    x = mg.Variable(np.ones(2))
    y = x * 2.0
    h = y * 3.0
    node = h.creator
    assert node.rank == 1 and h.rank == 2
    for setter in (lambda v, n: setattr(v, "creator", n), lambda v, n: setattr(v, "creator_node", n),
                   lambda v, n: v.set_creator(n), lambda v, n: v.set_creator_node(n)):
        v = mg.Variable(np.ones(2))
        setter(v, node)
        assert v.creator is node and v.creator_node is node and v.rank == node.rank + 1


def test_creator_node_none_unchains_and_the_original_can_be_set_back():
    x = mg.Variable(np.ones(2))
    y = x * 2.0
    node = y.creator_node
    y.creator_node = None
    assert y.creator is None and y.rank == 1  # the rank stays, as in Chainer
    y.creator_node = node
    F.sum(y).backward()
    np.testing.assert_array_equal(x.grad, [2.0, 2.0])


def test_unchain_keeps_the_rank():
    x = mg.Variable(np.ones(2))
    y = (x * 2.0) * 2.0
    y.unchain()
    assert y.creator is None and y.creator_node is None and y.rank == 2


def test_function_node_unchain_stops_backprop_there():
    x = mg.Variable(np.ones(2))
    h = x * 2.0
    y = F.sum(h * 3.0)
    h.creator.unchain()
    assert h.creator.inputs is None
    y.backward()
    assert x.grad is None


def test_node_is_the_variables_place_in_the_graph():
    x = mg.Variable(np.ones(2))
    y = x * 2.0
    assert isinstance(x.node, VariableNode) and x.node() is x
    assert y.creator.inputs[0] is x.node  # the node a FunctionNode keeps of its input


# --- gradient helpers -------------------------------------------------------------

def test_zerograd_warns_and_fills_zeros():
    x = mg.Variable(np.ones(3, np.float32))
    with pytest.warns(DeprecationWarning, match="zerograd is deprecated"):
        x.zerograd()
    np.testing.assert_array_equal(x.grad, np.zeros(3, np.float32))
    assert x.grad.dtype == np.float32
    x.grad = np.ones(3, np.float32)
    g = x.grad_var
    with pytest.warns(DeprecationWarning):
        x.zerograd()
    assert x.grad_var is g and (g.array == 0).all()  # filled in place


def test_zerograd_unchains_the_gradient():
    x = mg.Variable(np.array([2.0]))
    F.sum(x ** 3).backward(enable_double_backprop=True)
    assert x.grad_var.creator is not None
    with pytest.warns(DeprecationWarning):
        x.zerograd()
    assert x.grad_var.creator is None


def test_addgrad_accumulates_and_skips_a_missing_gradient():
    a = mg.Variable(np.ones(2))
    b = mg.Variable(np.ones(2), grad=np.array([1.0, 2.0]))
    a.addgrad(mg.Variable(np.ones(2)))  # no gradient there: nothing happens
    assert a.grad is None
    a.addgrad(b)
    a.addgrad(b)
    np.testing.assert_array_equal(a.grad, [2.0, 4.0])
    np.testing.assert_array_equal(b.grad, [1.0, 2.0])  # the source is untouched
    with pytest.raises(TypeError, match="addgrad"):
        a.addgrad(np.ones(2))


def test_addgrad_never_shares_the_source_gradient():
    a = mg.Variable(np.ones(2))
    b = mg.Variable(np.ones(2), grad=np.array([1.0, 2.0]))
    a.addgrad(b)
    b.grad[...] = 7.0  # an in-place change to b's gradient (a WeightDecay hook does this)...
    np.testing.assert_array_equal(a.grad, [1.0, 2.0])  # ...is not a's
    kept = a.grad
    a.addgrad(b)
    np.testing.assert_array_equal(a.grad, [8.0, 9.0])
    np.testing.assert_array_equal(kept, [1.0, 2.0])  # the sum is a new array: a reference to the old one holds


@pytest.mark.parametrize("other", [np.ones(3), np.ones(2, np.float32)], ids=["shape", "dtype"])
def test_addgrad_of_another_shape_or_dtype_is_a_value_error_naming_addgrad(other):
    a = mg.Variable(np.ones(2), grad=np.ones(2))
    with pytest.raises(ValueError, match=r"addgrad: .* has shape \(2,\) and dtype float64"):
        a.addgrad(mg.Variable(other, grad=np.ones_like(other)))
    np.testing.assert_array_equal(a.grad, [1.0, 1.0])


def test_addgrad_initializes_an_uninitialized_parameter():
    p = mg.Parameter(mg.initializers.Zero())
    p.cleargrad()
    p.addgrad(mg.Variable(np.ones(3, np.float32), grad=np.full(3, 2.0, np.float32)))
    assert p.shape == (3,)
    np.testing.assert_array_equal(p.grad, [2.0, 2.0, 2.0])


def test_copydata_copies_in_place_and_initializes_either_side():
    dst = mg.Variable(np.zeros(2))
    array = dst.array
    dst.copydata(mg.Variable(np.array([1.0, 2.0])))
    assert dst.array is array and (array == [1.0, 2.0]).all()
    p = mg.Parameter(mg.initializers.Zero())
    p.copydata(mg.Variable(np.ones((2, 2), np.float32)))
    np.testing.assert_array_equal(p.array, np.ones((2, 2)))
    q = mg.Parameter(mg.initializers.One())
    mg.Variable(np.zeros(3, np.float32)).copydata(q)  # the source gets initialized, then copied
    assert q.shape == (3,)
    mg.Parameter().copydata(mg.Parameter())  # both uninitialized: nothing happens
    with pytest.raises(TypeError, match="copydata"):
        dst.copydata(np.ones(2))


# --- the gradient setter ------------------------------------------------------------

def test_setting_grad_makes_a_grad_var_that_requires_grad():
    x = mg.Variable(np.ones(2, np.float32))
    x.grad = np.ones(2, np.float32)
    assert isinstance(x.grad_var, mg.Variable) and x.grad_var.requires_grad


def test_grad_setter_type_errors_as_in_chainer():
    x = mg.Variable(np.ones((), np.float32))
    with pytest.raises(TypeError):
        x.grad = np.float32(1.0)  # a NumPy scalar is not an array
    with pytest.raises(TypeError, match="dtype"):
        x.grad = np.ones((), np.float64)
    with pytest.raises(ValueError, match="shape"):
        x.grad = np.ones((1,), np.float32)
    with pytest.raises(TypeError, match="dtype"):
        x.grad_var = mg.Variable(np.ones((), np.float16))


def test_as_array():
    a = np.ones(2)
    assert mg.as_array(mg.Variable(a)) is a and mg.as_array(a) is a


def test_variadic_add():
    xs = [mg.Variable(np.full(2, float(i))) for i in range(1, 5)]
    y = F.add(*xs)
    np.testing.assert_array_equal(y.array, [10.0, 10.0])
    F.sum(y).backward()
    for x in xs:
        np.testing.assert_array_equal(x.grad, [1.0, 1.0])
    assert F.add(xs[0]) is xs[0]
    with pytest.raises(TypeError, match="at least one"):
        F.add()


def test_no_warning_for_a_0dim_loss():
    x = mg.Variable(np.ones(2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.sum(x).backward()
    assert re.fullmatch(r"variable\(\[1\., 1\.\]\)", repr(x))


def test_mean_is_average_with_its_keywords_as_in_chainer():
    x = mg.Variable(np.array([[1.0, 2.0], [3.0, 6.0]]))
    np.testing.assert_allclose(x.mean().array, 3.0)
    np.testing.assert_allclose(x.mean(axis=1, keepdims=True).array, [[1.5], [4.5]])
    np.testing.assert_allclose(x.mean(axis=0, weights=np.array([3.0, 1.0])).array, [1.5, 3.0])
    x.mean().backward()
    np.testing.assert_allclose(x.grad, np.full((2, 2), 0.25))


def test_floor_division_is_the_floor_of_the_quotient_with_a_zero_gradient():
    x = mg.Variable(np.array([7.0, -7.0]))
    y = mg.Variable(np.array([2.0, 2.0]))
    np.testing.assert_array_equal((x // y).array, [3.0, -4.0])
    np.testing.assert_array_equal((x // 2).array, [3.0, -4.0])
    np.testing.assert_array_equal((15.0 // x).array, [2.0, -3.0])
    F.sum(x // y).backward()
    assert x.grad is None or not x.grad.any()  # floor passes no gradient


def test_optimizer_and_update_rule_are_top_level_names():
    assert mg.Optimizer is mg.optimizers.Optimizer and mg.UpdateRule is mg.optimizers.UpdateRule
