"""Property-based tests of the engine on random graphs: gradients that meet along several paths.

Hypothesis draws small DAGs: a few leaf inputs of one shape (m, n), then nodes that each apply an op from a
pool to one or two earlier variables (a leaf or a node, possibly the same one twice), so gradients
accumulate at shared variables and broadcast back from (1, n), (m, 1) and (1, 1) intermediates. On each:

* ``backward`` and ``grad`` agree exactly, ``grad`` leaves every ``.grad`` alone, and ``retain_grad``
  keeps the same intermediate gradients that ``grad`` returns for them;
* a second ``backward`` without ``cleargrad`` doubles the leaf gradients (up to the rounding of
  adding each path's contribution to ``.grad`` in turn);
* ``check_backward`` of the whole DAG (all its sinks as outputs) and ``check_double_backward`` of a
  scalar loss of it pass;
* dropping the graph frees every FunctionNode by reference counting alone (gc disabled).

Runs are derandomized (same examples every time); ``MINIGRAD_PROPERTY_SCALE=10`` runs ten times as many
examples and ``MINIGRAD_PROPERTY_RANDOM=1`` draws fresh ones.
"""

from __future__ import annotations

import gc
import os
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import hypothesis.extra.numpy as hnp
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import check_backward, check_double_backward


def examples(n: int) -> settings:
    """Settings for a property: ``n`` examples (scaled by MINIGRAD_PROPERTY_SCALE), reproducible by default."""
    scale = float(os.environ.get("MINIGRAD_PROPERTY_SCALE", "1"))
    return settings(max_examples=max(1, round(n * scale)), deadline=None, database=None,
                    derandomize=os.environ.get("MINIGRAD_PROPERTY_RANDOM", "") != "1",
                    suppress_health_check=[HealthCheck.too_slow])


# Smooth ops whose values grow at most linearly, so that deep chains stay finite and well conditioned.
# The reductions make (1, n) / (m, 1) intermediates that broadcast again when they meet a full-size one.
UNARY: dict[str, Callable[[mg.Variable], mg.Variable]] = {
    "tanh": F.tanh,
    "sin": F.sin,
    "sigmoid": F.sigmoid,
    "x*tanh(x)": lambda a: a * F.tanh(a),
    "0.5*x-1": lambda a: 0.5 * a - 1.0,
    "x/(1+x*x)": lambda a: a / (1 + a * a),
    "sum(axis=0)": lambda a: F.sum(a, axis=0, keepdims=True),
    "sum(axis=-1)": lambda a: F.sum(a, axis=-1, keepdims=True),
    "flip": lambda a: a[..., ::-1],
}
BINARY: dict[str, Callable[[mg.Variable, mg.Variable], mg.Variable]] = {
    "add": F.add,
    "sub": lambda a, b: a - b,
    "tanh(a)*b": lambda a, b: F.tanh(a) * b,
    "a/(1+b*b)": lambda a, b: a / (1 + b * b),
}


@dataclass(frozen=True)
class Dag:
    """A recipe: ``nodes[k] = (op name, indices of its inputs among leaves + earlier nodes)``."""

    leaves: tuple[np.ndarray, ...]
    nodes: tuple[tuple[str, tuple[int, ...]], ...]
    weights: tuple[np.ndarray, ...]  # one per sink: the loss is sum_k sum(weights[k] * sinks[k])

    @property
    def sinks(self) -> list[int]:
        """Variables (by index) that no node consumes, leaves excluded: the DAG's outputs."""
        used = {i for _, args in self.nodes for i in args}
        return [len(self.leaves) + k for k in range(len(self.nodes)) if len(self.leaves) + k not in used]

    def build(self, *xs: mg.Variable) -> list[mg.Variable]:
        """Every variable of the DAG: the leaves, then one per node."""
        variables = list(xs)
        for name, args in self.nodes:
            op = UNARY[name] if len(args) == 1 else BINARY[name]
            variables.append(op(*(variables[i] for i in args)))
        return variables

    def outputs(self, *xs: mg.Variable) -> tuple[mg.Variable, ...]:
        variables = self.build(*xs)
        return tuple(variables[i] for i in self.sinks)

    def loss(self, *xs: mg.Variable) -> mg.Variable:
        return loss_of(self.outputs(*xs), self.weights)


def loss_of(sinks: Sequence[mg.Variable], weights: Sequence[np.ndarray]) -> mg.Variable:
    total = F.sum(sinks[0] * weights[0])
    for y, w in zip(sinks[1:], weights[1:]):
        total = total + F.sum(y * w)
    return total


def values(low: float, high: float) -> st.SearchStrategy[float]:
    """Floats in [low, high]; magnitudes below 1/64 become 0 (a tiny input takes a tiny numerical step, and
    1 + 1e-90 == 1: the checker would compare a correct 1e-45 derivative with a flat function)."""
    return st.floats(low, high).map(lambda v: v if abs(v) >= 1 / 64 else 0.0)


@st.composite
def dags(draw: st.DrawFn) -> Dag:
    m, n = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    leaf = hnp.arrays(np.float64, (m, n), elements=values(-1.5, 1.5))
    leaves = tuple(draw(st.lists(leaf, min_size=1, max_size=3)))
    nodes: list[tuple[str, tuple[int, ...]]] = []
    shapes = [(m, n)] * len(leaves)
    for _ in range(draw(st.integers(1, 8))):
        earlier = st.integers(0, len(shapes) - 1)
        if draw(st.booleans()):
            name, args = draw(st.sampled_from(sorted(BINARY))), (draw(earlier), draw(earlier))
        else:
            name, args = draw(st.sampled_from(sorted(UNARY))), (draw(earlier),)
        nodes.append((name, args))
        shape = np.broadcast_shapes(*(shapes[i] for i in args))
        shapes.append((1, shape[1]) if name == "sum(axis=0)" else (shape[0], 1) if name == "sum(axis=-1)" else shape)
    used = {i for _, args in nodes for i in args}
    sink_shapes = [shapes[len(leaves) + k] for k in range(len(nodes)) if len(leaves) + k not in used]
    weights = tuple(draw(hnp.arrays(np.float64, s, elements=values(-1, 1))) for s in sink_shapes)
    return Dag(leaves, tuple(nodes), weights)


def assert_same(a: np.ndarray | None, b: np.ndarray | None, what: str) -> None:
    assert (a is None) == (b is None), f"{what}: {a} vs {b}"
    if a is not None:
        assert a.dtype == b.dtype and a.shape == b.shape, f"{what}: {a.dtype}{a.shape} vs {b.dtype}{b.shape}"
        np.testing.assert_array_equal(a, b, err_msg=what)


@examples(150)
@given(dags())
def test_backward_equals_grad_and_accumulates_exactly(dag):
    xs = [mg.Variable(x.copy()) for x in dag.leaves]
    variables = dag.build(*xs)
    loss = loss_of([variables[i] for i in dag.sinks], dag.weights)
    intermediates = variables[len(xs):]

    sentinel = np.full(dag.leaves[0].shape, 7.0)
    xs[0].grad = sentinel.copy()
    by_grad = mg.grad([loss], xs + intermediates)
    assert_same(xs[0].grad, sentinel, "grad() changed a leaf's .grad")
    assert all(x.grad is None for x in xs[1:] + intermediates), "grad() set a .grad"
    xs[0].cleargrad()

    loss.backward(retain_grad=True)
    for k, (v, g) in enumerate(zip(xs + intermediates, by_grad)):
        assert_same(v.grad, None if g is None else g.array, f"variable {k}: backward vs grad")
    first = [x.grad for x in xs]

    # The engine adds each path's contribution to .grad as it arrives, so the second pass computes
    # (g + g_path1) + g_path2 ..., not g + g: equal to 2 g up to rounding, a few ulps of the contributions.
    loss.backward()
    for k, (x, g) in enumerate(zip(xs, first)):
        assert (x.grad is None) == (g is None), f"leaf {k}: a second backward changed whether .grad is set"
        if g is not None:
            np.testing.assert_allclose(x.grad, 2 * g, rtol=1e-14, atol=1e-13,
                                       err_msg=f"leaf {k}: a second backward must double .grad")


@examples(100)
@given(dags(), st.integers(0, 2 ** 32 - 1))
def test_check_backward_of_the_whole_dag(dag, seed):
    check_backward(dag.outputs, dag.leaves, dag.weights, seed=seed)


@examples(80)
@given(dags(), st.data())
def test_check_double_backward_of_a_loss_of_the_dag(dag, data):
    x_grad_grad = tuple(data.draw(hnp.arrays(np.float64, x.shape, elements=values(-1, 1)))
                        for x in dag.leaves)
    check_double_backward(dag.loss, dag.leaves, None, x_grad_grad, seed=data.draw(st.integers(0, 2 ** 32 - 1)))


def live_nodes_after_dropping(dag: Dag, double_backprop: bool) -> list[weakref.ref]:
    """Build, backpropagate, clear the leaves' gradients; weak references to every node that was made."""
    xs = [mg.Variable(x.copy()) for x in dag.leaves]
    loss = dag.loss(*xs)
    loss.backward(enable_double_backprop=double_backprop)
    roots = [loss] + [x.grad_var for x in xs if x.grad_var is not None]
    refs, seen, stack = [], set(), [v.creator for v in roots if v.creator is not None]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        refs.append(weakref.ref(node))
        stack.extend(v.creator for v in node.inputs if v.creator is not None)
    for x in xs:
        x.cleargrad()
    return refs


@examples(80)
@given(dags(), st.booleans())
def test_a_dropped_graph_leaves_no_live_function_node(dag, double_backprop):
    gc.disable()  # reference counting alone must free it
    try:
        refs = live_nodes_after_dropping(dag, double_backprop)
        alive = [r() for r in refs if r() is not None]
        assert not alive, f"live after dropping the graph (a reference cycle?): {alive}"
        assert refs, "the graph had no nodes"
    finally:
        gc.enable()
