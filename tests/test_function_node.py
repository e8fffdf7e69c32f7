"""FunctionNode and the backward engine: errors, deep graphs, memory, double backprop, grad()."""

from __future__ import annotations

import gc
import sys
import threading
import weakref

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.variable import VariableNode


class Scale(mg.FunctionNode):
    """y = 2x with a configurable (possibly broken) backward."""

    def __init__(self, bad=None):
        self.bad = bad

    def forward(self, inputs):
        return inputs[0] * 2,

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        if self.bad == "count":
            return gy * 2, gy * 2
        if self.bad == "shape":
            return F.sum(gy * 2),
        if self.bad == "dtype":
            return F.cast(gy * 2, np.float32),
        if self.bad == "array":
            return gy.array * 2,
        return gy * 2,


@pytest.mark.parametrize("bad, error, pattern", [
    ("count", ValueError, r"Scale\.backward returned 2 gradients"),
    ("shape", ValueError, r"Scale\.backward returned a gradient of shape \(\) .* input 0, which has shape \(3,\)"),
    ("dtype", ValueError, r"Scale\.backward .* dtype float32 .* dtype float64"),
    ("array", TypeError, r"Scale\.backward returned ndarray"),
])
def test_engine_names_the_node_that_returned_a_bad_gradient(bad, error, pattern):
    x = mg.Variable(np.ones(3))
    y, = Scale(bad).apply((x,))
    with pytest.raises(error, match=pattern):
        F.sum(y).backward()


def test_a_node_cannot_be_applied_twice():
    node = Scale()
    node.apply((mg.Variable(np.ones(1)),))
    with pytest.raises(RuntimeError, match="already been applied"):
        node.apply((mg.Variable(np.ones(1)),))


def test_forward_must_return_a_tuple():
    class Bad(mg.FunctionNode):
        def forward(self, inputs):
            return inputs[0]

    with pytest.raises(TypeError, match="tuple"):
        Bad().apply((np.ones(1),))


def test_forward_cpu_is_dispatched_for_numpy_inputs():
    class CpuOnly(mg.FunctionNode):
        def forward_cpu(self, inputs):
            return inputs[0] + 1,

    y, = CpuOnly().apply((np.zeros(2),))
    np.testing.assert_array_equal(y.array, [1.0, 1.0])


def test_retained_outputs_survive_the_user_dropping_them():
    x = mg.Variable(np.array([0.5]))
    y = F.exp(x)
    gx, = mg.grad([F.sum(y)], [x], enable_double_backprop=True)
    del y
    gc.collect()
    ggx, = mg.grad([F.sum(gx)], [x])
    np.testing.assert_allclose(ggx.array, np.exp([0.5]))


def test_hundred_thousand_node_chain_backprops_without_recursion():
    x = mg.Variable(np.array([1.0]))
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y.grad = np.ones(1)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)  # the traversal must not recurse at all
    try:
        y.backward()
    finally:
        sys.setrecursionlimit(limit)
    np.testing.assert_array_equal(x.grad, [1.0])
    del y
    gc.collect()


def test_dropped_graph_is_freed_by_reference_counting_alone():
    gc.collect()
    gc.disable()
    try:
        x = mg.Variable(np.ones(3))
        h = F.exp(x * 2 + 1)
        y = F.sum(h * h / 3)
        y.backward()
        refs = [weakref.ref(h), weakref.ref(y), weakref.ref(h.creator), weakref.ref(y.creator),
                weakref.ref(h.creator.inputs[0]), weakref.ref(h.creator.inputs[0].creator)]
        del h, y
        assert all(r() is None for r in refs), "a dropped graph left live Variables or FunctionNodes"
        assert x.grad is not None
    finally:
        gc.enable()


def test_dropped_double_backprop_graph_is_freed_too():
    gc.collect()
    gc.disable()
    try:
        x = mg.Variable(np.ones(3))
        y = F.sum(F.exp(x) * x)
        y.backward(enable_double_backprop=True)
        gx = x.grad_var
        refs = [weakref.ref(y), weakref.ref(gx), weakref.ref(gx.creator)]
        del y, gx
        x.cleargrad()
        assert all(r() is None for r in refs)
    finally:
        gc.enable()


def test_no_graph_is_built_without_double_backprop():
    x = mg.Variable(np.array([1.0, 2.0]))
    F.sum(x * x * x).backward()
    assert x.grad_var.creator is None


def test_second_derivative_of_cube():
    x = mg.Variable(np.array([1.0, 2.0, 3.0]))
    F.sum(x * x * x).backward(enable_double_backprop=True)
    gx = x.grad_var
    np.testing.assert_allclose(gx.array, 3 * x.array ** 2)
    assert gx.creator is not None
    x.cleargrad()
    F.sum(gx).backward()
    np.testing.assert_allclose(x.grad, 6 * x.array)


def test_second_derivative_of_sin():
    x = mg.Variable(np.linspace(-2, 2, 7))
    gx, = mg.grad([F.sum(F.sin(x))], [x], enable_double_backprop=True)
    np.testing.assert_allclose(gx.array, np.cos(x.array))
    ggx, = mg.grad([F.sum(gx)], [x])
    np.testing.assert_allclose(ggx.array, -np.sin(x.array))


def test_second_derivative_of_tanh_of_wx():
    rng = np.random.default_rng(0)
    W = mg.Variable(rng.standard_normal((3, 4)))
    x = mg.Variable(rng.standard_normal(4))
    y = F.sum(F.tanh(W @ x))
    gx, = mg.grad([y], [x], enable_double_backprop=True)
    t = np.tanh(W.array @ x.array)
    np.testing.assert_allclose(gx.array, W.array.T @ (1 - t ** 2))
    ggx, = mg.grad([F.sum(gx)], [x])
    # d/dx sum_j sum_i W_ij (1 - t_i^2) = sum_i (-2 t_i (1 - t_i^2) sum_j W_ij) W_i:
    expected = W.array.T @ (-2 * t * (1 - t ** 2) * W.array.sum(axis=1))
    np.testing.assert_allclose(ggx.array, expected)


def test_hessian_vector_product_of_a_quadratic_form():
    rng = np.random.default_rng(1)
    A = rng.standard_normal((4, 4))
    v = rng.standard_normal(4)
    x = mg.Variable(rng.standard_normal(4))
    f = F.sum(x * (A @ x))  # x^T A x, Hessian A + A^T
    gx, = mg.grad([f], [x], enable_double_backprop=True)
    hv, = mg.grad([F.sum(gx * v)], [x])
    np.testing.assert_allclose(hv.array, (A + A.T) @ v)


def test_grad_leaves_dot_grad_alone_and_can_set_it():
    x = mg.Variable(np.array([1.0, 2.0]))
    gx, = mg.grad([F.sum(x ** 2)], [x])
    np.testing.assert_allclose(gx.array, [2.0, 4.0])
    assert x.grad is None
    mg.grad([F.sum(x ** 2)], [x], grad_inputs=[np.ones(2)], set_grad=True)
    np.testing.assert_allclose(x.grad, [3.0, 5.0])


def test_grad_of_an_intermediate_and_of_unreached_inputs():
    x = mg.Variable(np.array([1.0, 2.0]))
    unused = mg.Variable(np.ones(2))
    h = x * 3
    gh, gx, gu = mg.grad([F.sum(h * h)], [h, x, unused])
    np.testing.assert_allclose(gh.array, 2 * h.array)
    np.testing.assert_allclose(gx.array, 6 * h.array)
    assert gu is None


def test_grad_wrt_an_output_reached_through_its_retained_copy():
    # tanh's backward uses its output y through get_retained_outputs, which makes a
    # new Variable for the same output; grad w.r.t. y must still see that path.
    x = mg.Variable(np.array([0.3, -0.8]))
    y = F.tanh(x)
    gx, = mg.grad([F.sum(y)], [x], enable_double_backprop=True)  # 1 - y**2
    gy, = mg.grad([F.sum(gx)], [y])
    np.testing.assert_allclose(gy.array, -2 * np.tanh(x.array))


def test_retain_grad_keeps_the_sum_over_all_paths():
    x = mg.Variable(np.array([1.5, -2.0]))
    h = x * 3
    y = F.sum(h * h + h)  # h reaches y along two paths
    y.backward(retain_grad=True)
    np.testing.assert_allclose(h.grad, 2 * h.array + 1)
    np.testing.assert_allclose(x.grad, 3 * (2 * h.array + 1))


def test_gradients_of_a_multi_output_node_go_to_the_right_output():
    x = mg.Variable(np.arange(6.0))
    a, b, c = F.split_axis(x, 3, axis=0)
    y = F.sum(a * 1.0) + F.sum(c * 10.0)  # b unused
    y.backward()
    np.testing.assert_allclose(x.grad, [1, 1, 0, 0, 10, 10])
    ga, gc_ = mg.grad([F.sum(c * c)], [a, c])
    assert ga is None
    np.testing.assert_allclose(gc_.array, 2 * c.array)


def test_grad_rejects_bad_arguments():
    x = mg.Variable(np.ones(2))
    with pytest.raises(TypeError, match="Variable"):
        mg.grad([np.ones(2)], [x])
    with pytest.raises(ValueError, match="grad_outputs"):
        mg.grad([F.sum(x)], [x], grad_outputs=[None, None])


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning", "ignore:overflow:RuntimeWarning")
def test_debug_mode_names_the_op_and_the_source_line():
    x = mg.Variable(np.array([-1.0, 1.0]))
    with mg.using_config("debug", True):
        with pytest.raises(RuntimeError, match=r"NaN is detected on forward computation of Log.*test_function_node"):
            F.log(x)  # this line is named in the error
        y = F.sum(F.log(x * x) * 0 + x)  # finite forward
        y.backward()
        z = F.sum(F.exp(x * 1000.0 - 1000.0))
        x.cleargrad()
    assert x.grad is None
    with mg.using_config("debug", True):
        w = F.sum(x * 1.0)
        w.grad = np.array(np.inf)
        with pytest.raises(RuntimeError, match="Inf is detected on the starting gradient"):
            w.backward()
        v = F.sum(x * 1e300)  # finite forward; the gradient overflows
        v.grad = np.array(1e10)
        # the failing op inside MulConstant's backward, then the node whose backward raised and where it was made
        pattern = r"(?s)Inf is detected on .*\(in MulConstant, created at .*test_function_node.*x \* 1e300"
        with pytest.raises(RuntimeError, match=pattern):
            v.backward()
    del z


def test_config_is_thread_local():
    seen = {}

    def worker():
        seen["before"] = mg.config.enable_backprop
        with mg.no_backprop_mode():
            seen["inside"] = mg.config.enable_backprop
            barrier.wait()
            barrier.wait()

    barrier = threading.Barrier(2)
    t = threading.Thread(target=worker)
    t.start()
    barrier.wait()
    main_value = mg.config.enable_backprop  # while the other thread is inside no_backprop_mode
    barrier.wait()
    t.join()
    assert seen == {"before": True, "inside": False} and main_value is True


def test_using_config_restores_on_error():
    with pytest.raises(RuntimeError):
        with mg.using_config("train", False):
            raise RuntimeError
    assert mg.config.train is True


# --- retention: a node keeps the arrays it declares and no others ------------------------------

def test_an_unretained_input_array_is_freed_while_the_graph_lives():
    x = mg.Variable(np.linspace(-1.0, 1.0, 5))
    h = x * 3.0                   # MulConstant retains nothing
    y = F.tanh(h)                 # Tanh retains its output, not its input h
    h_array = weakref.ref(h.array)
    del h
    gc.collect()
    assert h_array() is None, "the graph kept an input array that no node retained"
    y.grad = np.ones(5)
    y.backward()                  # the graph still reaches x through h's place in it
    np.testing.assert_allclose(x.grad, 3.0 * (1.0 - np.tanh(3.0 * x.array) ** 2))


def test_a_dropped_leaf_is_freed_and_the_rest_of_the_graph_still_backprops():
    x = mg.Variable(np.array([1.0, 2.0]))
    dropped = mg.Variable(np.array([5.0, 7.0]))
    y = F.sum(x * 2.0 + dropped * 3.0)
    dropped_array = weakref.ref(dropped.array)
    del dropped
    gc.collect()
    assert dropped_array() is None
    y.backward()
    np.testing.assert_allclose(x.grad, [2.0, 2.0])


def test_retained_input_arrays_live_as_long_as_the_graph_and_backward_runs_twice():
    x = mg.Variable(np.array([1.0, 2.0]))
    h = x * 1.0
    y = F.sum(h * h)              # Mul retains both inputs
    h_array = weakref.ref(h.array)
    del h
    gc.collect()
    assert h_array() is not None, "a retained input array was freed while the graph lives"
    y.backward()
    y.backward()                  # leaf gradients accumulate: twice d(sum x^2)/dx
    np.testing.assert_allclose(x.grad, 2 * 2.0 * x.array)
    del y
    gc.collect()
    assert h_array() is None, "the retained array outlived its graph"


def test_a_node_reaches_its_inputs_through_variable_nodes_without_their_data():
    x = mg.Variable(np.ones((2, 3), dtype=np.float32), name="x")
    h = x * 2.0
    y = F.tanh(h)
    node = y.creator.inputs[0]
    assert isinstance(node, VariableNode)
    assert (node(), node.creator, node.index, node.shape, node.dtype) == (h, h.creator, 0, (2, 3), np.float32)
    assert y.creator.inputs[0] is node   # one VariableNode per Variable, shared by every node it feeds
    assert h.creator.inputs[0]() is x and h.creator.inputs[0].name == "x"
    del h
    assert node() is None and node.creator is not None


def test_retain_grad_reaches_held_intermediates_only():
    x = mg.Variable(np.array([0.5, -1.0]))
    h = x * 2.0
    y = F.sum(F.tanh(h) * 3.0)
    y.backward(retain_grad=True)
    np.testing.assert_allclose(h.grad, 3.0 * (1.0 - np.tanh(h.array) ** 2))


def test_unchain_makes_a_consumed_variable_a_leaf_for_its_consumers():
    x = mg.Variable(np.array([1.0, 2.0]))
    h = x * 2.0
    y = F.sum(h * 3.0)
    h.unchain()
    y.backward()
    np.testing.assert_allclose(h.grad, [3.0, 3.0])
    assert x.grad is None


def test_a_variable_whose_array_is_replaced_feeds_new_graphs_with_the_new_shape():
    p = mg.Variable(np.ones(2))
    F.sum(p * 2.0).backward()
    p.array = np.ones(3)
    p.cleargrad()
    F.sum(p * 2.0).backward()
    np.testing.assert_allclose(p.grad, [2.0, 2.0, 2.0])


class ScalarSum(mg.FunctionNode):
    """Returns what NumPy returns for a full reduction: a NumPy scalar, not an array."""

    def forward(self, inputs):
        result = inputs[0].sum()
        assert isinstance(result, np.generic)
        return result,

    def backward(self, indexes, grad_outputs):
        return F.broadcast_to(grad_outputs[0], (3,)),


@pytest.mark.parametrize("recording", [True, False])
def test_a_numpy_scalar_output_becomes_a_0dim_array(recording):
    x = mg.Variable(np.array([1.0, 2.0, 3.0], dtype=np.float32), requires_grad=recording)
    y, = ScalarSum().apply((x,))
    assert type(y.array) is np.ndarray and y.array.shape == () and y.dtype == np.float32
    assert float(y.array) == 6.0
    assert (y.creator is not None) == recording


def test_gradients_summed_from_0dim_arrays_stay_arrays():
    x = mg.Variable(np.array(2.0))
    y = x * x + x  # x's gradient is the sum of three 0-dim gradients
    y.backward()
    assert type(x.grad) is np.ndarray and x.grad.shape == ()
    assert float(x.grad) == 5.0


# --- get_retained_* without retain_*: an error naming the node and the fix ---------------------

class _ForgotToRetain(mg.FunctionNode):
    def __init__(self, what):
        self.what = what

    def forward(self, inputs):
        return inputs[0] * inputs[0],

    def backward(self, indexes, grad_outputs):
        if self.what == "inputs":
            x, = self.get_retained_inputs()
            return 2 * x * grad_outputs[0],
        y, = self.get_retained_outputs()
        return grad_outputs[0] * y,


@pytest.mark.parametrize("what", ["inputs", "outputs"])
def test_get_retained_without_retain_names_the_node_and_says_to_retain_in_forward(what):
    x = mg.Variable(np.array([1.0, 2.0]))
    y, = _ForgotToRetain(what).apply((x,))
    pattern = (rf"_ForgotToRetain\.get_retained_{what}\(\) was called, but _ForgotToRetain\.forward did not "
               rf"call retain_{what}: call self\.retain_{what}\(")
    with pytest.raises(RuntimeError, match=pattern):
        F.sum(y).backward()
    from minigrad.testing import check_backward

    with pytest.raises(RuntimeError, match=pattern):  # the checker passes it on as it is
        check_backward(lambda x: _ForgotToRetain(what).apply((x,))[0], np.array([1.0, 2.0]), np.ones(2), seed=0)


def test_retaining_nothing_explicitly_gives_an_empty_tuple():  # Chainer's check_no_retain with the calls made
    class RetainsNothing(mg.FunctionNode):
        def forward(self, inputs):
            self.retain_inputs(())
            self.retain_outputs(())
            return inputs[0] * 3,

        def backward(self, indexes, grad_outputs):
            assert self.get_retained_inputs() == () and self.get_retained_outputs() == ()
            return grad_outputs[0] * 3,

    x = mg.Variable(np.array([1.0, 2.0]))
    F.sum(RetainsNothing().apply((x,))[0]).backward()
    np.testing.assert_array_equal(x.grad, [3.0, 3.0])


# --- one mistake, one exception type and one message, in debug mode and out of it ------------

def _error_of(bad, debug):
    with mg.using_config("debug", debug):
        x = mg.Variable(np.ones(3))
        y, = Scale(bad).apply((x,))
        with pytest.raises(Exception) as info:
            F.sum(y).backward()
    *message, where = str(info.value).splitlines()  # the last line: where the node was created (debug mode) or
    return type(info.value), message, where          # how to see it


@pytest.mark.parametrize("bad", ["count", "shape", "dtype", "array"])
def test_a_bad_gradient_gets_the_same_error_in_debug_mode_and_out_of_it(bad):
    kind, message, where = _error_of(bad, debug=False)
    debug_kind, debug_message, debug_where = _error_of(bad, debug=True)
    assert (kind, message) == (debug_kind, debug_message)
    assert "config.debug = True" in where and debug_where.startswith("  created at ") and "test_function_node.py" \
        in debug_where


def test_a_non_variable_gradient_is_a_type_error_and_chainers_value_error_saying_what_to_do():
    kind, message, _ = _error_of("array", debug=False)
    assert issubclass(kind, TypeError) and issubclass(kind, ValueError)
    assert message[0].startswith("type of gradients returned from backward is incorrect: Scale.backward returned "
                                 "ndarray for input 0; gradients must be Variables")
    assert "not on their .array" in message[0] and message[1] == "  function=Scale"


class _Broadcasting(mg.FunctionNode):
    def __init__(self, reduce):
        self.reduce = reduce

    def forward(self, inputs):
        x, b = inputs
        return x + b,

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        return gy, (F.sum(gy, axis=0) if self.reduce else gy)


def test_a_gradient_of_the_broadcast_shape_hints_at_the_missing_reduction():
    x, b = mg.Variable(np.ones((2, 3))), mg.Variable(np.ones(3))
    y, = _Broadcasting(reduce=False).apply((x, b))
    with pytest.raises(ValueError, match=r"shape of gradients .* input-index=1, actual \(2, 3\) != expected \(3,\)"
                                         r"(.|\n)*hint: looks like a missing reduction.*broadcast to \(2, 3\).*"
                                         r"F\.sum_to\(gx, x\.shape\)"):
        F.sum(y).backward()
    y, = _Broadcasting(reduce=True).apply((x, b))
    F.sum(y).backward()  # the fixed op
    np.testing.assert_array_equal(b.grad, [2.0, 2.0, 2.0])


def test_no_broadcast_hint_for_a_shape_that_is_not_a_broadcast():
    x = mg.Variable(np.ones(3))
    y, = Scale("shape").apply((x,))  # returns a scalar: (3,) does not broadcast to ()
    with pytest.raises(ValueError) as info:
        F.sum(y).backward()
    assert "hint" not in str(info.value)
