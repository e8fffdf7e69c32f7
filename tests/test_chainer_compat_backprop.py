"""Chainer v7 parity of backprop: ``Variable.backward``, ``chainer.backward``, ``chainer.grad``,
``FunctionNode.backward_accumulate`` and debug mode. Expected values come from Chainer's documented
behaviour (the reference docs and source of chainer.variable, chainer._backprop_utils, chainer.grad)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F

# --- Variable.backward --------------------------------------------------------------

def test_backward_consumes_the_output_gradient():
    x = mg.Variable(np.array([1.0, 2.0]))
    y = x * 3.0
    y.grad = np.ones(2)
    y.backward()
    assert y.grad_var is None and y.grad is None  # Chainer v6+: consumed
    np.testing.assert_array_equal(x.grad, [3.0, 3.0])


def test_retain_grad_keeps_the_output_gradient():
    x = mg.Variable(np.array([1.0, 2.0]))
    y = x * 3.0
    h = F.sum(y)
    h.backward(retain_grad=True)
    np.testing.assert_array_equal(h.grad, 1.0)
    np.testing.assert_array_equal(y.grad, [1.0, 1.0])


def test_loss_scale_on_a_leaf_does_not_compound():
    x = mg.Variable(np.array(2.0))
    x.backward(loss_scale=4)
    assert x.grad == 4
    x.backward(loss_scale=4)  # Chainer: the existing grad is the seed; loss_scale scales only the implied 1
    assert x.grad == 4


def test_loss_scale_scales_only_the_implied_gradient():
    x = mg.Variable(np.array([1.0]))
    y = F.sum(x * 2.0)
    y.backward(loss_scale=8)
    np.testing.assert_array_equal(x.grad, [16.0])
    x.cleargrad()
    z = F.sum(x * 2.0)
    z.grad = np.array(1.0)
    z.backward(loss_scale=8)
    np.testing.assert_array_equal(x.grad, [2.0])


def test_one_element_non_scalar_backward_warns():
    x = mg.Variable(np.array([3.0]))
    y = x * 2.0
    with pytest.warns(DeprecationWarning, match="one element"):
        y.backward()
    np.testing.assert_array_equal(x.grad, [2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.sum(x * 2.0).backward()  # a 0-dim loss: no warning


def test_backward_twice_over_a_kept_graph_accumulates_into_leaves():
    x = mg.Variable(np.array([1.0, 2.0]))
    y = F.sum(x * x)
    y.backward()
    y.backward()  # the graph is still there; y's grad was consumed, so 1 is implied again
    np.testing.assert_array_equal(x.grad, [4.0, 8.0])


# --- chainer.backward ---------------------------------------------------------------

def test_backward_from_several_outputs_uses_and_clears_their_grads():
    x = mg.Variable(np.array([1.0, 2.0]))
    a, b = x * 2.0, x * x
    a.grad, b.grad = np.ones(2), np.array([1.0, 10.0])
    mg.backward([a, b])
    np.testing.assert_array_equal(x.grad, [2.0 + 2.0, 2.0 + 40.0])
    assert a.grad is None and b.grad is None


def test_backward_warns_about_an_output_without_a_gradient():
    x = mg.Variable(np.array([1.0]))
    a, b = x * 2.0, x * 5.0
    a.grad = np.ones(1)
    with pytest.warns(RuntimeWarning, match="no grad"):
        mg.backward([a, b])
    np.testing.assert_array_equal(x.grad, [2.0])


def test_backward_with_grad_outputs_and_double_backprop():
    x = mg.Variable(np.array([2.0]))
    y = x ** 3
    mg.backward([y, x * 1.0], [np.ones(1), None], enable_double_backprop=True)  # None: skipped
    np.testing.assert_array_equal(x.grad, [12.0])
    assert x.grad_var.creator is not None


def test_backward_argument_errors():
    x = mg.Variable(np.ones(1))
    with pytest.raises(TypeError, match="list or a tuple"):
        mg.backward(x)
    with pytest.raises(TypeError, match="Variable"):
        mg.backward([np.ones(1)])
    with pytest.raises(TypeError, match="list or a tuple"):
        mg.backward([x], np.ones(1))
    with pytest.raises(ValueError, match="grad_outputs"):
        mg.backward([x], [None, None])
    for name in ("retain_grad", "loss_scale"):
        with pytest.raises(ValueError, match=name):
            mg.backward([x], **{name: True})
    with pytest.raises(TypeError, match="unexpected"):
        mg.backward([x], foo=1)


# --- chainer.grad -------------------------------------------------------------------

def test_grad_inputs_flow_further_back():
    # Chainer seeds grad_inputs into the gradient table: an intermediate input's seed reaches the leaves too
    x = mg.Variable(np.array([1.0, 2.0]))
    h = x * 3.0
    y = F.sum(h * h)
    gh0 = mg.Variable(np.array([1.0, 1.0]))
    gx, gh = mg.grad([y], [x, h], grad_inputs=[None, gh0])
    np.testing.assert_allclose(gh.array, 2 * h.array + 1.0)
    np.testing.assert_allclose(gx.array, 3.0 * (2 * h.array + 1.0))
    assert x.grad is None


def test_grad_inputs_on_a_leaf_are_added():
    x = mg.Variable(np.array([1.0, 2.0]))
    gx, = mg.grad([F.sum(x * x)], [x], grad_inputs=[mg.Variable(np.array([10.0, 10.0]))])
    np.testing.assert_allclose(gx.array, [12.0, 14.0])


def test_grad_arguments_must_be_lists_or_tuples():
    x = mg.Variable(np.ones(2))
    y = F.sum(x)
    for kwargs in ({"outputs": y, "inputs": [x]}, {"outputs": [y], "inputs": x},
                   {"outputs": [y], "inputs": [x], "grad_outputs": np.ones(())},
                   {"outputs": [y], "inputs": [x], "grad_inputs": np.ones(2)}):
        with pytest.raises(TypeError, match="list or a tuple"):
            mg.grad(**kwargs)


def test_grad_loss_scale_and_default_ones():
    x = mg.Variable(np.array([1.0, 2.0]))
    gx, = mg.grad([F.sum(x * x)], [x], loss_scale=4.0)
    np.testing.assert_allclose(gx.array, [8.0, 16.0])
    gx, = mg.grad([x * 3.0], [x])  # a None grad_output means ones of the output's shape
    np.testing.assert_allclose(gx.array, [3.0, 3.0])


class _Recording(mg.FunctionNode):
    """y = 2 * x0 (+ 3 * x1): records the target indexes of each backward call."""

    def __init__(self, calls):
        self.calls = calls

    def forward(self, inputs):
        return inputs[0] * 2 + (inputs[1] * 3 if len(inputs) == 2 else 0),

    def backward(self, indexes, grad_outputs):
        self.calls.append(indexes)
        gy, = grad_outputs
        return tuple(gy * (2.0 if i == 0 else 3.0) for i in indexes)


def test_grad_runs_no_node_upstream_of_its_inputs():
    # Chainer's grad backpropagates only along paths from the inputs to the outputs
    calls = []
    x = mg.Variable(np.array([1.0, -2.0]))
    h, = _Recording(calls).apply((x,))
    gh, = mg.grad([F.sum(h * h)], [h])
    np.testing.assert_allclose(gh.array, 2 * h.array)
    assert calls == []
    F.sum(h * h).backward()  # backward still reaches x through it
    assert calls == [(0,)]
    np.testing.assert_allclose(x.grad, 8 * x.array)


def test_grad_runs_no_branch_that_does_not_reach_its_inputs():
    calls = []
    x, z = mg.Variable(np.array([1.0, 2.0])), mg.Variable(np.array([3.0, 4.0]))
    side, = _Recording(calls).apply((z,))
    gx, = mg.grad([F.sum(x * x) + F.sum(side)], [x])
    np.testing.assert_allclose(gx.array, 2 * x.array)
    assert calls == []


def test_grad_asks_a_node_only_for_the_inputs_on_a_path():
    calls = []
    x0, x1 = mg.Variable(np.array([1.0, 2.0])), mg.Variable(np.array([3.0, 4.0]))
    y, = _Recording(calls).apply((x0, x1))
    g1, = mg.grad([F.sum(y)], [x1])
    np.testing.assert_allclose(g1.array, [3.0, 3.0])
    assert calls == [(1,)]


def test_grad_of_inputs_on_one_path_gives_total_derivatives():
    # x -> h -> y and x -> y: x's gradient includes the path through h, also when h is an input too
    x = mg.Variable(np.array([0.5, -1.0]))
    h = x * 3.0
    y = F.sum(h * h) + F.sum(x)
    gx, gh = mg.grad([y], [x, h])
    np.testing.assert_allclose(gh.array, 2 * h.array)
    np.testing.assert_allclose(gx.array, 18 * x.array + 1)
    y.backward()
    np.testing.assert_allclose(gx.array, x.grad)


def test_grad_retains_the_gradients_on_its_paths_only():
    x, z = mg.Variable(np.array([1.0, 2.0])), mg.Variable(np.array([3.0, 4.0]))
    a, b = x * 2.0, z * 5.0
    mg.grad([F.sum(a * b)], [x], retain_grad=True)
    np.testing.assert_allclose(a.grad, b.array)
    assert b.grad is None and z.grad is None


# --- backward_accumulate ---------------------------------------------------------------

class _AccumulatingDouble(mg.FunctionNode):
    """y = 2x; overrides backward_accumulate and records what the engine passed."""

    def __init__(self, log):
        self.log = log

    def forward(self, inputs):
        return inputs[0] * 2,

    def backward_accumulate(self, target_input_indexes, grad_outputs, grad_inputs):
        self.log.append(tuple(None if g is None else g.array.copy() for g in grad_inputs))
        gx = grad_outputs[0] * 2.0
        return tuple(gx if g is None else g + gx for g in grad_inputs)


def test_backward_accumulate_receives_the_gradient_gathered_so_far():
    log = []
    x = mg.Variable(np.array([1.0, 2.0]))
    h = x * 1.0
    y1, = _AccumulatingDouble(log).apply((h,))
    z = F.sum(h * 5.0) + F.sum(y1)  # equal ranks run in the order reached: h * 5 delivers to h first
    z.backward()
    assert len(log) == 1
    np.testing.assert_array_equal(log[0][0], [5.0, 5.0])
    np.testing.assert_array_equal(x.grad, [7.0, 7.0])


def test_backward_accumulate_gets_none_then_a_leaf_gradient():
    log = []
    x = mg.Variable(np.array([1.0]))
    y, = _AccumulatingDouble(log).apply((x,))
    F.sum(y).backward()
    assert log[-1] == (None,)
    np.testing.assert_array_equal(x.grad, [2.0])
    y2, = _AccumulatingDouble(log).apply((x,))
    F.sum(y2).backward()  # the leaf's existing gradient is handed over and replaced by the returned sum
    np.testing.assert_array_equal(log[-1][0], [2.0])
    np.testing.assert_array_equal(x.grad, [4.0])


def test_default_backward_accumulate_adds_to_backward():
    x = mg.Variable(np.array([1.0, 2.0]))
    y = x * 3.0
    node = y.creator
    (gx,) = node.backward_accumulate((0,), (mg.Variable(np.ones(2)),), (mg.Variable(np.array([1.0, 1.0])),))
    np.testing.assert_array_equal(gx.array, [4.0, 4.0])


# --- debug mode --------------------------------------------------------------------------

class _Bad(mg.FunctionNode):
    def __init__(self, bad):
        self.bad = bad

    def forward(self, inputs):
        return inputs[0] * 1,

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        return {"type": (gy.array,), "number": (gy, gy), "shape": (F.sum(gy),),
                "dtype": (F.cast(gy, np.float32),)}[self.bad]


@pytest.mark.parametrize("bad, message", [
    ("type", "type of gradients returned from backward is incorrect"),
    ("number", r"number of gradients returned from backward is incorrect: 2 != expected 1"),
    ("shape", r"shape of gradients returned from backward is incorrect: input-index=0, actual \(\) != expected \(3,\)"),
    ("dtype", r"dtype of gradients returned from backward is incorrect: input-index=0, actual float32 != "
              r"expected float64"),
])
def test_debug_mode_bad_gradients_are_chainer_value_errors(bad, message):
    with mg.using_config("debug", True):
        x = mg.Variable(np.ones(3))
        y, = _Bad(bad).apply((x,))
        with pytest.raises(ValueError, match=message):
            F.sum(y).backward()


class _NaNGradient(mg.FunctionNode):
    def forward(self, inputs):
        return inputs[0] * 1,

    def backward(self, indexes, grad_outputs):
        return mg.Variable(np.full_like(grad_outputs[0].array, np.nan)),


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
def test_debug_mode_nan_is_a_runtime_error():
    with mg.using_config("debug", True):
        with pytest.raises(RuntimeError, match="NaN is detected on forward computation of Log"):
            F.log(mg.Variable(np.array([-1.0])))
        x = mg.Variable(np.array([1.0]))
        y, = _NaNGradient().apply((x,))
        with pytest.raises(RuntimeError, match="NaN is detected on backward computation of _NaNGradient"):
            F.sum(y).backward()


class _Raising(mg.FunctionNode):
    def __init__(self, where):
        self.where = where

    def forward(self, inputs):
        if self.where == "forward":
            raise KeyError("boom in forward")
        return inputs[0] * 1,

    def backward(self, indexes, grad_outputs):
        raise IndexError("boom in backward")


@pytest.mark.parametrize("where, error", [("forward", KeyError), ("backward", IndexError)])
def test_debug_mode_reraises_with_the_creation_stack(where, error):
    x = mg.Variable(np.ones(2))
    with mg.using_config("debug", True):
        with pytest.raises(error) as info:
            y, = _Raising(where).apply((x,))  # the line that creates the node
            F.sum(y).backward()
    text = str(info.value)
    assert f"boom in {where}" in text and "Stacktrace of the function is below" in text
    assert "test_chainer_compat_backprop.py" in text and "_Raising(where).apply" in text


def test_outside_debug_mode_exceptions_are_untouched():
    x = mg.Variable(np.ones(2))
    with pytest.raises(KeyError) as info:
        _Raising("forward").apply((x,))
    assert "Stacktrace" not in str(info.value)
