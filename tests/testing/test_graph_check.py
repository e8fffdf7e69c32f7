"""check_graph: every node of a recorded forward pass checked alone, a table, and the wrong node named."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
import minigrad.links as L
from minigrad.functions.activation.tanh import Tanh
from minigrad.testing import GradientCheckError, GraphCheckError, check_graph, record_graph
from minigrad.testing.node_check import Verdict


def _line_of(text):
    with open(__file__, encoding="utf-8") as source:
        return next(k for k, line in enumerate(source, start=1) if text in line and "_line_of" not in line)


class Cube(mg.FunctionNode):
    """x ** 3, with a backward that can be wrong at first order (``factor``) or at second only (``raw``)."""

    def __init__(self, factor=3.0, raw=False):
        self.factor, self.raw = factor, raw

    def forward(self, inputs):
        self.retain_inputs((0,))
        return inputs[0] ** 3,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        if self.raw:  # right values, but written on arrays: no second-order graph through x
            return mg.Variable(3 * x.array ** 2, requires_grad=False) * grad_outputs[0],
        return self.factor * x * x * grad_outputs[0],


def _data(seed=0, shape=(3, 4)):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, shape), mg.Parameter(rng.uniform(-1, 1, (shape[1], shape[1])))


def _block(x, W, cube):
    h = F.linear(x, W)
    h = h - F.mean(h, axis=1, keepdims=True)
    h = cube.apply((h,))[0]  # the custom node
    return F.sum(F.sigmoid(h) * h)


def test_a_correct_graph_passes_and_prints_its_table():
    x, W = _data()
    with record_graph():
        loss = _block(x, W, Cube())
    report = check_graph(loss, seed=0)
    assert report.passed and report.checked == len(report.rows) >= 6 and report.shared == 0
    labels = [row.label for row in report.rows]
    assert labels[0] == "LinearFunction" and "Cube" in labels and labels[-1] == "Sum"
    assert all(row.check.verdict is Verdict.OK and row.check.margin < 1 for row in report.rows)
    text = str(report)
    assert text.splitlines()[1].split() == ["#", "node", "created", "at", "inputs", "verdict", "margin", "seconds"]
    assert f"test_graph_check.py:{_line_of('h = cube.apply((h,))[0]')}" in text
    assert "(3, 4) float64, (4, 4) float64" in text  # the linear node's input shapes


def test_a_wrong_custom_node_is_named_with_its_line_and_its_own_report():
    x, W = _data()
    with record_graph():
        loss = _block(x, W, Cube(factor=3.03))  # 1 % too large
    with pytest.raises(GraphCheckError) as info:
        check_graph(loss, seed=0)
    message = str(info.value)
    first = message.splitlines()[0]
    assert "fails its own check: Cube, created at" in first
    assert first.split("created at ")[1].startswith(f"{__file__}:{_line_of('h = cube.apply((h,))[0]')}: ")
    assert "its own check:" in message and "input 0" in message
    wrong = info.value.graph.failures
    assert [row.label for row in wrong] == ["Cube"] and info.value.report.margin >= 1


def test_a_minigrad_op_whose_backward_is_patched_wrong_is_named(monkeypatch):
    right = Tanh.backward

    def wrong(self, indexes, grad_outputs):
        return tuple(g * 1.01 for g in right(self, indexes, grad_outputs))

    x, W = _data(1)
    with record_graph():
        h = F.sigmoid(F.linear(x, W))
        h = F.tanh(h)  # the patched op
        loss = F.sum(h * h)
    monkeypatch.setattr(Tanh, "backward", wrong)
    with pytest.raises(GraphCheckError) as info:
        check_graph(loss, seed=3)
    assert [(r.label, r.created_at) for r in info.value.graph.failures] == \
        [("Tanh", f"{__file__}:{_line_of('h = F.tanh(h)  # the patched op')}")]


def test_a_node_wrong_only_at_second_order_passes_first_order_and_is_named_at_second():
    x, W = _data(2)
    with record_graph():
        loss = _block(x, W, Cube(raw=True))
    assert check_graph(loss, seed=0, order=1).passed
    with record_graph():
        loss = _block(x, W, Cube(raw=True))
    with pytest.raises(GraphCheckError, match="fails its own check at second order: Cube") as info:
        check_graph(loss, seed=0, order=2)
    assert "WRONG (2nd order)" in str(info.value.graph)


def test_links_chains_and_sequential_with_parameters():
    np.random.seed(0)
    model = mg.Sequential(L.Linear(4, 6), F.tanh, L.Linear(6, 3))
    x = np.random.default_rng(0).uniform(-1, 1, (5, 4)).astype(np.float32)
    t = np.array([0, 2, 1, 1, 0], dtype=np.int32)  # integer labels: held fixed
    with record_graph():
        loss = F.softmax_cross_entropy(model(x), t)
    report = check_graph(loss, seed=0)
    assert report.passed, report
    last = report.rows[-1]
    assert last.label == "SoftmaxCrossEntropy" and last.inputs == ["(5, 3) float32", "(5,) int32"]
    linear = [row for row in report.rows if row.label == "LinearFunction"]
    assert len(linear) == 2 and all(row.check.verdict is Verdict.OK for row in linear)


def test_integer_indices_and_a_multi_output_node_with_an_unused_output():
    np.random.seed(0)
    embed = L.EmbedID(5, 4)
    ids = np.array([[0, 3], [4, 3]], dtype=np.int32)
    with record_graph():
        a, b, _unused = F.split_axis(embed(ids), [1, 3], axis=2)  # three outputs, the last one unused
        loss = F.sum(a * F.tanh(b[:, :, :1]))
    report = check_graph(loss, seed=0)
    assert report.passed, report
    labels = [row.label for row in report.rows]
    assert "SplitAxis" in labels and report.rows[0].inputs[0] == "(2, 2) int32", report


class SplitWrong(mg.FunctionNode):
    """Two outputs (x * 2, x * 3); the gradient through the second is wrong."""

    def forward(self, inputs):
        return inputs[0] * 2, inputs[0] * 3

    def backward(self, indexes, grad_outputs):
        ga, gb = grad_outputs
        total = None
        for g, factor in ((ga, 2.0), (gb, 3.3)):
            if g is not None:
                total = g * factor if total is None else total + g * factor
        return total,


def test_a_multi_output_node_wrong_for_one_output_is_caught_only_when_that_output_is_used():
    x = mg.Variable(np.linspace(-1, 1, 4))
    with record_graph():
        a, b = SplitWrong().apply((F.sin(x),))
        used_a_only = F.sum(a * a)
    assert check_graph(used_a_only, seed=0).passed
    with record_graph():
        a, b = SplitWrong().apply((F.sin(x),))
        both = F.sum(a * b)
    with pytest.raises(GraphCheckError, match="SplitWrong"):
        check_graph(both, seed=0)


def test_shared_subexpressions_and_shared_checks():
    x = mg.Variable(np.linspace(-1, 1, 6).reshape(2, 3))
    with record_graph():
        h = F.tanh(x)
        y = F.tanh(h * h) + F.tanh(h)  # h used three times; three Tanh nodes on (2, 3) float64
        loss = F.sum(y)
    report = check_graph(loss, seed=0)
    tanh = [row for row in report.rows if row.label == "Tanh"]
    assert [row.check.verdict for row in tanh] == [Verdict.OK, Verdict.SHARED, Verdict.SHARED]
    assert report.shared == 2 and report.checked == len(report.rows) - 2
    assert "shared (#1)" in str(report)
    with record_graph():
        loss = F.sum(F.tanh(F.tanh(x) * F.tanh(x)) + F.tanh(x))
    assert check_graph(loss, seed=0, share=False).shared == 0


def test_a_wrong_node_sharing_its_kind_with_a_right_one_is_still_caught():
    x = mg.Variable(np.linspace(0.1, 1, 6))
    with record_graph():
        loss = F.sum(Cube().apply((x,))[0] + Cube(factor=3.3).apply((x * 2.0,))[0])
    with pytest.raises(GraphCheckError) as info:  # different hyperparameters: not shared
        check_graph(loss, seed=0)
    assert [row.index for row in info.value.graph.failures] == [3]


def test_callers_inside_no_backprop_mode():
    x = mg.Variable(np.linspace(-1, 1, 4))
    with record_graph():
        loss = F.sum(Cube(factor=3.3).apply((F.sin(x),))[0])
    with mg.no_backprop_mode(), pytest.raises(GraphCheckError, match="Cube"):
        check_graph(loss, seed=0)
    with mg.no_backprop_mode(), record_graph():
        constant = F.sum(F.sin(x))
    with pytest.raises(ValueError, match="no creator.*no_backprop_mode"):
        check_graph(constant)


class NoisyScale(mg.FunctionNode):
    """Draws its noise inside forward: a replay cannot reproduce it."""

    def forward(self, inputs):
        self.noise = np.random.uniform(0.5, 1.5, inputs[0].shape)
        return inputs[0] * self.noise,

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * 7.0,  # wrong, but that cannot be checked on a replay


def test_random_nodes_are_not_replayable_never_wrong_and_dropout_with_its_mask_is_checked():
    x = mg.Variable(np.linspace(-1, 1, 8))
    with record_graph():
        loss = F.sum(F.dropout(F.sin(x), 0.5) * NoisyScale().apply((x,))[0])
    report = check_graph(loss, seed=0)
    verdicts = {row.label: row.check.verdict for row in report.rows}
    assert verdicts["NoisyScale"] is Verdict.NOT_REPLAYABLE and verdicts["Dropout"] is Verdict.OK
    assert report.passed and "not replayable" in str(report)


def test_a_node_at_a_kink_is_not_verified_there_but_checked_nearby_and_never_called_wrong():
    x = mg.Variable(np.array([-1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0]))  # relu at 0, more than the checker isolates
    with record_graph():
        loss = F.sum(F.relu(x) * F.sin(x))
    report = check_graph(loss, seed=0)
    relu = next(row for row in report.rows if row.label == "ReLU")
    assert relu.check.verdict is Verdict.KINK and "not differentiable" in relu.check.message
    assert relu.check.message.endswith("passes") and relu.check.margin < 1
    assert report.passed and "1 kink" in str(report) and "kink, ok nearby" in str(report)


class KinkyAndWrong(mg.FunctionNode):
    """|x| with a backward 10 % too large: wrong, and at x = 0 not differentiable."""

    def forward(self, inputs):
        self.retain_inputs((0,))
        return abs(inputs[0]),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] * F.sign(x) * 1.1,


def test_a_wrong_node_at_a_kink_is_caught_at_the_point_nearby():
    x = mg.Variable(np.zeros(7))
    with record_graph():
        loss = F.sum(KinkyAndWrong().apply((F.sin(x),))[0] * 2.0)
    with pytest.raises(GraphCheckError) as info:
        check_graph(loss, seed=0)
    message = str(info.value)
    assert "fails its own check: KinkyAndWrong" in message and "so checked at a point nearby" in message


@pytest.mark.parametrize("outputs, error, pattern", [
    (np.ones(3), TypeError, r"outputs must be a Variable .* got ndarray \(an array"),
    (3.0, TypeError, "outputs must be a Variable or a list or tuple of Variables, got float"),
    ([], ValueError, "outputs is empty"),
    ("mixed", TypeError, r"outputs\[1\] must be a Variable, got ndarray"),
    ("leaf", ValueError, r"outputs \(shape \(3,\), float64\) has no creator"),
    ("unrecorded", ValueError, r"was not recorded \(2 nodes, none with a record\).*record_graph"),
])
def test_bad_input_is_named(outputs, error, pattern):
    x = mg.Variable(np.ones(3))
    if isinstance(outputs, str) and outputs == "mixed":
        with record_graph():
            outputs = [F.exp(x), np.ones(3)]
    elif isinstance(outputs, str) and outputs == "leaf":
        outputs = x
    elif isinstance(outputs, str) and outputs == "unrecorded":
        outputs = F.sum(F.exp(x))
    with pytest.raises(error, match=pattern):
        check_graph(outputs)


def test_order_must_be_one_or_two():
    with record_graph():
        y = F.exp(mg.Variable(np.ones(2)))
    with pytest.raises(ValueError, match="order must be 1 or 2, got 3"):
        check_graph(y, order=3)


def test_check_graph_and_localisation_on_each_backend(xp):
    from minigrad.testing import check_backward

    x = mg.Variable(xp.asarray(np.linspace(-1, 1, 6).reshape(2, 3)))
    W = mg.Parameter(xp.asarray(np.linspace(-0.5, 0.5, 9).reshape(3, 3)))
    with record_graph():
        loss = F.sum(F.tanh(F.linear(x, W)) * x)
    report = check_graph(loss, seed=0)
    assert report.passed and [row.label for row in report.rows] == ["LinearFunction", "Tanh", "Mul", "Sum"]

    def wrong(x):
        return F.sum(Cube(factor=3.3).apply((F.linear(x, W),))[0])

    with pytest.raises(GradientCheckError) as info:
        check_backward(wrong, xp.asarray(np.linspace(-1, 1, 6).reshape(2, 3)), None, params=[W], seed=0)
    assert info.value.report.localisation.node.label == "Cube"
