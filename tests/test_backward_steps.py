"""record_backward: the steps of a real backward pass, as text and pictures, without changing the pass."""

from __future__ import annotations

import re
import shutil

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.backward_steps import BackwardSteps, record_backward


def diamond():
    x = mg.Variable(np.array([1.0, 2.0]), name="x")
    a = x * x
    b = a * 3.0
    y = a + b
    loss = F.sum(y)
    a.name, b.name, y.name, loss.name = "a", "b", "y", "loss"
    return x, (a, b, y), loss


def test_the_steps_are_the_engines_order_with_what_each_node_received_and_sent():
    x, (a, b, y), loss = diamond()
    steps = record_backward(loss)
    assert [step.node.label for step in steps.steps] == ["Sum", "Add", "MulConstant", "Mul"]
    ranks = [step.node.rank for step in steps.steps]
    assert ranks == sorted(ranks, reverse=True)
    by_label = {step.node.label: step for step in steps.steps}
    # d loss / d a = 1 + 3 = 4 everywhere; Mul sends 4 * x to each of its two inputs (both x)
    np.testing.assert_array_equal(by_label["Mul"].received[0], [4.0, 4.0])
    assert sorted(by_label["Mul"].sent) == [0, 1]
    for gx in by_label["Mul"].sent.values():
        np.testing.assert_array_equal(gx, [4.0, 8.0])
    np.testing.assert_array_equal(by_label["MulConstant"].sent[0], [3.0, 3.0])
    np.testing.assert_array_equal(x.grad, [8.0, 16.0])


def test_recording_changes_neither_the_gradients_nor_the_nodes():
    x, _, loss = diamond()
    record_backward(loss, enable_double_backprop=True)
    plain_x, _, plain_loss = diamond()
    plain_loss.backward(enable_double_backprop=True)
    np.testing.assert_array_equal(x.grad, plain_x.grad)
    gx = x.grad_var
    x.cleargrad()
    F.sum(gx).backward()  # the recorded pass built a differentiable gradient graph: d/dx sum(8x) = 8
    np.testing.assert_array_equal(x.grad, [8.0, 8.0])
    node = loss.creator
    assert "backward" not in vars(node) and "backward_accumulate" not in vars(node)


def test_the_state_after_each_step_has_the_partial_sums_and_the_waiting_nodes_in_heap_order():
    x, (a, b, y), loss = diamond()
    steps = record_backward(loss)
    gradients, waiting = steps.state(0)
    assert [node.label for node in waiting] == ["Sum"]
    gradients, waiting = steps.state(2)
    assert [node.label for node in waiting] == ["MulConstant", "Mul"]
    a_key = next(key for key in gradients if key[0] == id(a.creator))
    np.testing.assert_array_equal(gradients[a_key], [1.0, 1.0])  # only Add's share so far
    gradients, waiting = steps.state(3)
    np.testing.assert_array_equal(gradients[a_key], [4.0, 4.0])  # MulConstant's 3 added
    assert [node.label for node in waiting] == ["Mul"]
    gradients, waiting = steps.state(4)
    assert waiting == []
    with pytest.raises(ValueError, match="frame must be in 0..4"):
        steps.state(5)


def test_text_names_the_node_what_it_receives_sends_and_what_waits():
    _, _, loss = diamond()
    text = str(record_backward(loss))
    assert text.splitlines()[0] == "start: loss receives 1.0"
    assert "step 2: Add (rank 2) runs: receives [1. 1.]; sends [1. 1.] to a, [1. 1.] to b" in text
    assert "    waiting: MulConstant (rank 1), Mul (rank 0)" in text


def test_a_node_with_backward_accumulate_is_recorded_too():
    class Double(mg.FunctionNode):
        def forward(self, inputs):
            return inputs[0] * 2,

        def backward(self, indexes, grad_outputs):
            return grad_outputs[0] * 2.0,

        def backward_accumulate(self, indexes, grad_outputs, grad_inputs):
            gx = self.backward(indexes, grad_outputs)[0]
            return (gx if grad_inputs[0] is None else gx + grad_inputs[0]),

    x = mg.Variable(np.array([1.0, -1.0]), name="x")
    loss = F.sum(Double().apply((x,))[0])
    steps = record_backward(loss)
    assert [step.node.label for step in steps.steps] == ["Sum", "Double"]
    np.testing.assert_array_equal(steps.steps[1].sent[0], [2.0, 2.0])
    np.testing.assert_array_equal(x.grad, [2.0, 2.0])


def test_a_backward_that_raises_leaves_no_recording_attribute_behind():
    class Broken(mg.FunctionNode):
        def forward(self, inputs):
            return inputs[0] * 1,

        def backward(self, indexes, grad_outputs):
            raise RuntimeError("broken on purpose")

    x = mg.Variable(np.ones(2))
    loss = F.sum(Broken().apply((x,))[0])
    node = loss.creator.inputs[0].creator
    with pytest.raises(RuntimeError, match="broken on purpose"):
        record_backward(loss)
    assert "backward" not in vars(node) and "backward" not in vars(loss.creator)


def test_every_frame_has_the_same_layout_and_marks_the_node_that_runs():
    x, _, loss = diamond()
    steps = record_backward(loss)
    sizes = set()
    for frame in range(len(steps) + 1):
        dot = steps.dump(frame, title=False)
        sizes.add(tuple(re.findall(r'(?<![a-z])(?:width|height)="[\d.]+"', dot)))
        assert dot.count("runs now") == (0 if frame == 0 else 1)
    assert len(sizes) == 1, "a label changed size between frames: the layout would move"
    assert "grad so far [1. 1.]" in steps.dump(2)  # a's gradient while Mul still waits
    assert "grad [ 8. 16.]" in steps.dump(4)


def test_a_dropped_intermediate_is_drawn_by_its_place_in_the_graph():
    x = mg.Variable(np.array([1.0, 2.0, 3.0]), name="x")
    loss = F.sum(x * 2.0)  # nobody holds x * 2.0
    steps = record_backward(loss)
    assert "(3,) float64" in steps.dump(1)


def test_large_arrays_are_shown_by_shape_and_range():
    x = mg.Variable(np.arange(12.0).reshape(3, 4), name="x")
    steps = record_backward(F.sum(x * x))
    assert "sends (3, 4) in [0, 11] to x" in steps.describe(2)


def test_bad_arguments_are_refused():
    with pytest.raises(TypeError, match="record_backward: y must be a Variable, got ndarray"):
        record_backward(np.ones(2))
    with pytest.raises(ValueError, match="no creator"):
        record_backward(mg.Variable(np.ones(())))


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz's dot")
def test_render_writes_one_picture_per_frame(tmp_path):
    _, _, loss = diamond()
    steps = record_backward(loss)
    assert isinstance(steps, BackwardSteps)
    paths = steps.render(tmp_path, format="svg")
    assert [p.rsplit("/", 1)[1] for p in paths] == [f"step-{k}.svg" for k in range(5)]
    assert all(open(p).read().count("<svg") == 1 for p in paths)
