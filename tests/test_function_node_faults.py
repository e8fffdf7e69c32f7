"""Backward is all or nothing: a backward that raises midway leaves every gradient as it was before the call
(leaf grads, retained grads, the starting gradient), so running it again gives the right answer."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


class FailOnce(mg.FunctionNode):
    """y = x; backward gives 3 * gy, but raises the first ``failures`` times it runs."""

    def __init__(self, failures=1, error=RuntimeError):
        self.failures, self.error = failures, error

    def forward(self, inputs):
        return inputs[0].copy(),

    def backward(self, target_input_indexes, grad_outputs):
        if self.failures:
            self.failures -= 1
            raise self.error("injected failure")
        return 3 * grad_outputs[0],


class AccumulatingFailOnce(FailOnce):
    """The same, through ``backward_accumulate`` (it takes the gradient gathered so far for its input)."""

    def backward_accumulate(self, target_input_indexes, grad_outputs, grad_inputs):
        gx, = self.backward(target_input_indexes, grad_outputs)
        return (gx if grad_inputs[0] is None else grad_inputs[0] + gx),


def graph(node, x):
    """loss = sum(2 x) + sum(node(x)): the 2 x branch reaches x before node's backward runs (equal rank, first
    reached, first run), so a failing node fails after part of x's gradient is in."""
    doubled = x * 2.0
    return F.sum(doubled) + F.sum(node.apply((x,))[0]), doubled


@pytest.mark.parametrize("node_type", [FailOnce, AccumulatingFailOnce])
@pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt])
def test_a_backward_that_raises_leaves_the_leaf_grad_and_a_retry_is_right(node_type, error):
    x = mg.Variable(np.zeros(2))
    loss, _ = graph(node_type(error=error), x)
    with pytest.raises(error, match="injected failure"):
        loss.backward()
    assert x.grad is None  # (it was [2, 2]: half a backward)
    loss.backward()  # the starting gradient came back, so the retry is the same call
    np.testing.assert_array_equal(x.grad, [5.0, 5.0])  # 2 + 3, not 2 + 2 + 3


@pytest.mark.parametrize("node_type", [FailOnce, AccumulatingFailOnce])
def test_a_grad_already_there_is_kept_and_accumulated_once(node_type):
    x = mg.Variable(np.zeros(2))
    x.grad = np.ones(2)  # (backward_accumulate takes it: a failure there used to lose it)
    loss, _ = graph(node_type(), x)
    with pytest.raises(RuntimeError):
        loss.backward()
    np.testing.assert_array_equal(x.grad, [1.0, 1.0])
    loss.backward()
    np.testing.assert_array_equal(x.grad, [6.0, 6.0])


def test_retained_grads_and_the_starting_gradient_are_untouched():
    x = mg.Variable(np.zeros(2))
    loss, doubled = graph(FailOnce(), x)
    loss.grad = np.array(2.0)
    with pytest.raises(RuntimeError):
        loss.backward(retain_grad=True)
    assert doubled.grad is None and x.grad is None
    np.testing.assert_array_equal(loss.grad, 2.0)
    loss.backward(retain_grad=True)
    np.testing.assert_array_equal(doubled.grad, [2.0, 2.0])
    np.testing.assert_array_equal(x.grad, [10.0, 10.0])


def test_several_outputs_get_their_gradients_back():
    x = mg.Variable(np.zeros(2))
    loss, doubled = graph(FailOnce(), x)
    other = F.sum(x * 4.0)
    loss.grad, other.grad = np.array(1.0), np.array(1.0)
    with pytest.raises(RuntimeError):
        mg.backward([loss, other])
    assert x.grad is None
    np.testing.assert_array_equal(loss.grad, 1.0)
    np.testing.assert_array_equal(other.grad, 1.0)
    mg.backward([loss, other])
    np.testing.assert_array_equal(x.grad, [9.0, 9.0])


def test_grad_of_a_failing_graph_sets_nothing_and_a_retry_is_right():
    x = mg.Variable(np.zeros(2))
    loss, doubled = graph(FailOnce(), x)
    with pytest.raises(RuntimeError):
        mg.grad([loss], [x], set_grad=True, retain_grad=True)
    assert x.grad is None and doubled.grad is None
    gx, = mg.grad([loss], [x], set_grad=True)
    np.testing.assert_array_equal(gx.array, [5.0, 5.0])
    np.testing.assert_array_equal(x.grad, [5.0, 5.0])


def test_a_failing_double_backprop_leaves_the_grads():
    x = mg.Variable(np.array([1.0, 2.0]))
    y = F.sum(x ** 3)
    y.backward(enable_double_backprop=True)
    gx = x.grad_var
    x.cleargrad()
    loss, _ = graph(FailOnce(), gx)  # differentiate 2 gx + 3 gx = 5 * 3 x^2: d/dx = 30 x
    with pytest.raises(RuntimeError):
        loss.backward()
    assert x.grad is None
    loss.backward()
    np.testing.assert_allclose(x.grad, [30.0, 60.0])
