"""A failing check_backward / check_double_backward of a model names the node inside it that is wrong."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.functions.activation.tanh import Tanh
from minigrad.testing import GradientCheckError, check_backward, check_double_backward


def _line_of(text):
    with open(__file__, encoding="utf-8") as source:
        return next(k for k, line in enumerate(source, start=1) if text in line and "_line_of" not in line)


class Cube(mg.FunctionNode):
    """x ** 3; ``factor`` != 3 is wrong at first order, ``raw`` only at second (backward on arrays)."""

    def __init__(self, factor=3.0, raw=False):
        self.factor, self.raw = factor, raw

    def forward(self, inputs):
        self.retain_inputs((0,))
        return inputs[0] ** 3,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        if self.raw:
            return mg.Variable(3 * x.array ** 2, requires_grad=False) * grad_outputs[0],
        return self.factor * x * x * grad_outputs[0],


def _normalise(h):
    """LayerNorm without its affine part, with a large epsilon (a smooth op of a few nodes)."""
    centered = h - F.mean(h, axis=1, keepdims=True)
    return centered / F.sqrt(F.mean(centered * centered, axis=1, keepdims=True) + 0.1)


# the ops of the random models: each maps h (3, 4) to (3, 4), smooth and about scale-preserving (slope 1 at 0),
# so that 20 of them in a row neither vanish nor explode; none is tanh or Cube
_OPS = (
    lambda h, W: F.linear(h, W),
    lambda h, W: F.sigmoid(h) * 4.0 - 2.0,
    lambda h, W: F.sin(h),
    lambda h, W: _normalise(h),
    lambda h, W: h * F.sigmoid(h) * 2.0,
    lambda h, W: F.softplus(h) * 2.0 - 2 * np.log(2.0),
)


def _model(seed, wrong, max_ops=10):
    """A chain of 2 to ``max_ops`` random ops (9-48 nodes in all for seeds 0-19) sharing one weight, with the
    node ``wrong`` at a random place.

    ``wrong``: "custom" (a Cube 1 % wrong), "patched" (F.tanh, whose backward a test patches),
    "second" (a Cube wrong only at second order) or None (a correct Cube). Returns func, x and W.
    """
    rng = np.random.default_rng(seed)
    layout = list(rng.integers(0, len(_OPS), rng.integers(2, max_ops + 1)))
    at = int(rng.integers(0, len(layout) + 1))
    x = rng.uniform(-1, 1, (3, 4))
    W = mg.Parameter(np.linalg.qr(rng.normal(size=(4, 4)))[0])  # orthogonal: keeps the scale

    def func(x):
        h = x
        for k, op in enumerate(layout + [None]):
            if k == at and wrong == "patched":
                h = F.tanh(h)  # the patched op
            elif k == at:
                h = Cube(factor=3.03 if wrong == "custom" else 3.0, raw=wrong == "second").apply((h * 0.8,))[0]
            if op is not None:
                h = _OPS[op](h, W)
        return F.sum(h * h)

    return func, x, W


def _grad_grads(seed):
    """x_grad_grad and params_grad_grad, random (ones would be blind: a centring op's input gradients sum to 0)."""
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, (3, 4)), rng.uniform(-1, 1, (4, 4))


def _patch_tanh(monkeypatch):
    right = Tanh.backward
    monkeypatch.setattr(Tanh, "backward", lambda self, i, gys: tuple(g * 1.01 for g in right(self, i, gys)))


@pytest.mark.parametrize("wrong, label, line", [
    ("custom", "Cube", "h = Cube(factor=3.03"),
    ("patched", "Tanh", "h = F.tanh(h)  # the patched op"),
])
def test_first_order_localisation_names_the_wrong_node_in_20_of_20_seeds(monkeypatch, wrong, label, line):
    if wrong == "patched":
        _patch_tanh(monkeypatch)
    named, sizes = [], []
    for seed in range(20):
        func, x, W = _model(seed, wrong)
        with pytest.raises(GradientCheckError) as info:
            check_backward(func, x, None, params=[W], seed=seed)
        found = info.value.report.localisation.node
        named.append((found.label, found.created_at))
        sizes.append(info.value.report.localisation.nodes)
        assert f"localisation (each node of func checked alone, in forward order): node {found.index} of" \
            in str(info.value)
    assert named == [(label, f"{__file__}:{_line_of(line)}")] * 20
    assert 5 <= min(sizes) <= 12 and 40 <= max(sizes) <= 50, sizes  # models of 5-50 nodes


def test_second_order_localisation_names_the_node_wrong_only_at_second_order_in_20_of_20_seeds():
    named = []
    for seed in range(20):
        func, x, W = _model(seed, "second", max_ops=8)  # smaller models: a second-order check costs more
        check_backward(func, x, None, params=[W], seed=seed)  # right at first order
        ggx, ggW = _grad_grads(seed)
        with pytest.raises(GradientCheckError) as info:
            check_double_backward(func, x, None, ggx, params=[W], params_grad_grad=[ggW], seed=seed)
        found = info.value.report.localisation.node
        named.append((found.label, found.created_at, found.check.order))
        assert "fails its own check at second order: Cube" in str(info.value)
    assert named == [("Cube", f"{__file__}:{_line_of('h = Cube(factor=3.03')}", 2)] * 20


def test_the_correct_models_pass_at_both_orders():
    for seed in range(20):
        func, x, W = _model(seed, None)
        assert check_backward(func, x, None, params=[W], seed=seed).passed
        if seed < 5:
            ggx, ggW = _grad_grads(seed)
            assert check_double_backward(func, x, None, ggx, params=[W], params_grad_grad=[ggW],
                                         seed=seed).passed


def test_the_report_counts_the_nodes_checked_right_before_the_wrong_one():
    W = mg.Parameter(np.full((4, 4), 0.3))

    def func(x):
        h = F.sin(F.linear(x, W))  # nodes 1, 2
        h = Cube(factor=2.9).apply((h,))[0]  # node 3
        return F.sum(F.sigmoid(h))  # nodes 4, 5

    with pytest.raises(GradientCheckError) as info:
        check_backward(func, np.linspace(-1, 1, 12).reshape(3, 4), None, params=[W], seed=0)
    localisation = info.value.report.localisation
    assert (localisation.nodes, localisation.node.index, localisation.passed) == (5, 3, 2)
    assert localisation.node.inputs == ["(3, 4) float64"]
    assert "2 nodes before it passed their own checks" in str(info.value)


def test_a_single_node_function_fails_as_before_without_localisation():
    with pytest.raises(GradientCheckError) as info:
        check_backward(lambda x: Cube(factor=3.1).apply((x,))[0], np.linspace(0.1, 1, 5), np.ones(5), seed=0)
    assert "localisation" not in str(info.value)
    assert not hasattr(info.value.report, "localisation")


def test_localisation_inside_no_backprop_mode_and_with_integer_inputs():
    t = np.array([0, 2, 1], dtype=np.int32)

    def func(x):
        return F.softmax_cross_entropy(Cube(factor=3.3).apply((F.sin(x),))[0], t)

    with mg.no_backprop_mode(), pytest.raises(GradientCheckError) as info:
        check_backward(func, np.linspace(-1, 1, 12).reshape(3, 4), None, seed=0)
    assert info.value.report.localisation.node.label == "Cube"


def test_an_array_escape_is_reported_as_a_gap_when_every_node_passes():
    W = mg.Parameter(np.linspace(-0.5, 0.5, 16).reshape(4, 4))

    def func(x):
        h = F.tanh(F.linear(x, W))
        escaped = np.exp(h.array)  # NumPy between nodes: backprop cannot see this dependence
        return F.sum(F.sigmoid(h) * escaped)

    with pytest.raises(GradientCheckError) as info:
        check_backward(func, np.linspace(-1, 1, 12).reshape(3, 4), None, params=[W], seed=0)
    localisation = info.value.report.localisation
    assert localisation.node is None and localisation.passed == localisation.nodes
    assert len(localisation.gaps) == 1
    gap = localisation.gaps[0]
    assert gap.startswith(f"node 4 Mul, created at {__file__}:{_line_of('F.sigmoid(h) * escaped')}")
    assert "its input 1 ((3, 4) float64) is a value that no recorded node produced" in gap
    assert "passes its own check" in str(info.value) and "the graph has a gap" in str(info.value)


class ReadsW(mg.FunctionNode):
    """x * W.array: reads a parameter inside forward instead of taking it as an input."""

    def __init__(self, W):
        self.W = W

    def forward(self, inputs):
        return inputs[0] * self.W.array,

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * mg.Variable(self.W.array, requires_grad=False),


def test_state_read_inside_forward_is_reported():
    W = mg.Parameter(np.linspace(0.5, 1.5, 4))
    V = mg.Parameter(np.linspace(-1, 1, 4))

    def func(x):
        h = F.sin(x) + V
        return F.sum(ReadsW(W).apply((h,))[0] * h)

    with pytest.raises(GradientCheckError) as info:
        check_backward(func, np.linspace(-1, 1, 8).reshape(2, 4), None, params=[W, V], seed=0)
    localisation = info.value.report.localisation
    assert localisation.node is None
    assert [gap.split(",")[0] for gap in localisation.gaps] == ["node 4 ReadsW"]  # after Sin, BroadcastTo, Add
    assert "reads state" in localisation.gaps[0]


def test_no_gap_is_reported_for_a_constant_that_does_not_depend_on_the_inputs():
    W = mg.Parameter(np.full((4, 4), 0.2))
    offset = np.linspace(0, 1, 4)

    def func(x):
        h = F.linear(x, W) + offset  # a real constant: not a gap
        return F.sum(Cube(factor=3.0).apply((h,))[0] * np.exp(x.array))  # and a real gap

    with pytest.raises(GradientCheckError) as info:
        check_backward(func, np.linspace(-1, 1, 12).reshape(3, 4), None, params=[W], seed=0)
    gaps = info.value.report.localisation.gaps
    assert len(gaps) == 1 and gaps[0].startswith("node 4 Mul")


def test_the_original_failure_stands_when_the_localisation_cannot_run(monkeypatch):
    from minigrad.testing import node_localisation

    def broken(*args, **kwargs):
        raise MemoryError("no room for the records")

    monkeypatch.setattr(node_localisation, "_recorded_run", broken)
    with pytest.raises(GradientCheckError) as info:
        check_backward(lambda x: F.sum(Cube(factor=3.3).apply((F.sin(x),))[0]), np.linspace(-1, 1, 4), None, seed=0)
    message = str(info.value)
    assert message.startswith("check_backward: backprop disagrees with the numerical derivative for x_data[0]")
    assert message.endswith("localisation: could not run (MemoryError: no room for the records)")
