"""record_graph: what each node saw is kept, nothing else changes, and nothing outlives the check."""

from __future__ import annotations

import gc
import threading
import weakref

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad import function_node
from minigrad.testing import check_backward, check_graph, record_graph
from minigrad.testing.graph_recording import NodeRecord, record_of, recorded_nodes


def _model(x, W):
    h = F.tanh(F.linear(x, W))
    h = F.dropout(h, 0.3)  # its mask comes from NumPy's global random state
    return F.sum(F.sigmoid(h) * h)


def _line_of(text):
    """The line number of ``text`` in this file (so the tests do not hard-code line numbers)."""
    with open(__file__, encoding="utf-8") as source:
        return next(k for k, line in enumerate(source, start=1) if text in line and "_line_of" not in line)


def test_recording_changes_neither_forward_nor_backward_nor_the_random_state():
    rng = np.random.default_rng(0)
    x, W0 = rng.normal(size=(4, 3)), rng.normal(size=(5, 3))
    results = []
    for recording in (False, True, False):
        np.random.seed(7)
        W = mg.Parameter(W0.copy())
        if recording:
            with record_graph():
                loss = _model(x, W)
        else:
            loss = _model(x, W)
        loss.backward()
        results.append((loss.array, W.grad, np.random.random_sample()))
    for got in results[1:]:
        np.testing.assert_array_equal(got[0], results[0][0])
        np.testing.assert_array_equal(got[1], results[0][1])
        assert got[2] == results[0][2]


def test_nothing_is_recorded_outside_the_block_and_the_hook_is_removed_even_after_an_error():
    x = mg.Variable(np.ones(3))
    assert function_node.recording_hook is None
    with pytest.raises(KeyError):
        with record_graph():
            assert function_node.recording_hook is not None
            inside = F.exp(x)
            raise KeyError("the forward pass failed")
    assert function_node.recording_hook is None
    outside = F.exp(x)
    assert record_of(inside.creator) is not None
    assert record_of(outside.creator) is None


def test_a_record_holds_the_inputs_seen_a_fresh_template_and_the_callers_line():
    x = mg.Variable(np.array([0.5, -1.0, 2.0]))
    with record_graph():
        h = x * 3.0
        y = F.tanh(h)  # the line the record names
    record = record_of(y.creator)
    assert isinstance(record, NodeRecord) and record.label == "Tanh"
    np.testing.assert_array_equal(record.arrays[0], h.array)
    assert record.filename == __file__ and record.lineno == _line_of("y = F.tanh(h)  # the line")
    assert record.source == "y = F.tanh(h)  # the line the record names"
    for _ in range(2):  # the template is as yet unapplied: it replays as often as needed
        out, = record.replay([np.array([1.0])])
        np.testing.assert_allclose(out.array, np.tanh([1.0]))
    # a node created inside minigrad (by a Link) is placed at the line of the caller's code
    layer = mg.links.Linear(3, 2)
    with record_graph():
        z = layer(x.reshape(1, 3).array.astype(np.float32))  # the Linear link's node
    assert record_of(z.creator).lineno == _line_of("z = layer(x.reshape(1, 3).array")


def test_other_threads_are_not_recorded():
    x = mg.Variable(np.ones(2))
    started, proceed, results = threading.Event(), threading.Event(), {}

    def other():
        started.set()
        proceed.wait(10)
        results["y"] = F.exp(x)

    thread = threading.Thread(target=other)
    thread.start()
    started.wait(10)
    with record_graph():
        proceed.set()
        thread.join(10)
        mine = F.exp(x)
    assert record_of(mine.creator) is not None
    assert record_of(results["y"].creator) is None


def test_nested_blocks_keep_recording_until_the_outer_one_ends():
    x = mg.Variable(np.ones(2))
    with record_graph():
        with record_graph():
            a = F.exp(x)
        b = F.exp(x)
    c = F.exp(x)
    assert [record_of(v.creator) is not None for v in (a, b, c)] == [True, True, False]


def _intermediate_array_refs():
    """A recorded graph whose intermediate array only the records keep, and weak references to it."""
    x = mg.Variable(np.linspace(-1, 1, 6).reshape(2, 3))
    with record_graph():
        h = x * 2.0  # MulConstant's output, seen by Tanh, which keeps its output, not its input
        y = F.sum(F.tanh(h))
    ref = weakref.ref(h.array)
    del h
    gc.collect()
    return y, ref


def test_records_keep_the_arrays_until_check_graph_and_no_longer():
    y, ref = _intermediate_array_refs()
    assert ref() is not None  # the record holds it (without recording the graph would not)
    check_graph(y, seed=0)
    gc.collect()
    assert ref() is None, "check_graph left the recorded array alive"
    assert y.creator is not None  # the graph itself is still there
    with pytest.raises(ValueError, match="not recorded"):  # the check consumed the recording
        check_graph(y, seed=0)


def test_without_recording_the_intermediate_array_is_freed_with_its_variable():
    x = mg.Variable(np.linspace(-1, 1, 6))
    h = x * 2.0
    y = F.sum(F.tanh(h))
    ref = weakref.ref(h.array)
    del h
    gc.collect()
    assert ref() is None and y.creator is not None


def _live_records():
    gc.collect()
    return sum(isinstance(o, NodeRecord) for o in gc.get_objects())


class _WrongSquare(mg.FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0,))
        return inputs[0] ** 2,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return 2.5 * x * grad_outputs[0],


def test_a_localised_failure_leaves_no_record_alive():
    before = _live_records()
    x = np.linspace(-1, 1, 6)
    with pytest.raises(AssertionError, match="localisation") as info:
        check_backward(lambda x: F.sum(F.exp(_WrongSquare().apply((F.sin(x),))[0])), x, None, seed=0)
    assert info.value.report.localisation.node.label == "_WrongSquare"
    del info
    assert _live_records() == before
    with record_graph():  # the counter sees records (so the assertion above could fail)
        y = F.exp(mg.Variable(x))
    assert _live_records() == before + 1
    del y


def test_recorded_nodes_lists_the_graph_in_forward_order_with_what_each_consumer_saw():
    x = mg.Variable(np.array([1.0, 2.0]))
    with record_graph():
        a = F.exp(x)
        b = a * a  # a shared subexpression: two uses of one output
        c = F.sum(b + a)
    graph = recorded_nodes([c])
    assert [record_of(n).label for n in graph.nodes] == ["Exp", "Mul", "Add", "Sum"]
    assert graph.unrecorded == 0
    exp = graph.nodes[0]
    assert graph.used[exp] == {0}
    np.testing.assert_array_equal(graph.seen[exp][0], a.array)
