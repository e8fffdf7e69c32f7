"""Which node inside ``func`` is wrong, once ``check_backward`` or ``check_double_backward`` of ``func`` failed.

``localise_failure`` runs ``func`` once more at the same point, under
``record_graph`` and with backprop on, and checks each node of that graph alone
(``node_check``) in forward order, stopping at the first whose own check fails
(at second order each node is checked to first, then to second order). The
failure's message and report then name that node: its label, the line of the
caller's code that created it, its inputs and its own report, and how many
nodes before it passed.

If every node passes alone, the error lies between nodes: a value entering the
computation that no recorded node produced. ``func`` runs once more with its
inputs and parameters moved a little: a node input that no recorded node made,
that is not one of ``func``'s inputs or parameters, and that moved too is such
a gap (a ``.array`` escape, a NumPy call between nodes, a ``no_backprop_mode``
block); a node that, replayed on the inputs it saw in that run once the
parameters are back, no longer gives what it gave, reads state inside its
forward. Neither is visible to backprop.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy

from minigrad import backend
from minigrad.configuration import force_backprop_mode
from minigrad.testing.gradient_check import GradientCheckError
from minigrad.testing.graph_check import NodeRow, check_nodes, failure_text
from minigrad.testing.graph_recording import GraphNodes, record_graph, record_of, recorded_nodes, release
from minigrad.testing.node_check import Verdict, checking_nodes, inside_node_checks, moved, replay_outputs
from minigrad.variable import Variable

__all__ = ["localise_failure", "NodeLocalisation"]

MOVE = 1e-2  # the relative move of func's inputs and parameters in the run that looks for gaps


@dataclass
class NodeLocalisation:
    """Where inside ``func`` a failing check went wrong (``report.localisation`` of the failure).

    ``node`` is the first node in forward order whose own check fails (None if
    none does; ``gaps`` then says where the graph has a gap). Holds text and
    figures only, no arrays.

    Example:
        >>> import numpy as np, minigrad as mg, minigrad.functions as F
        >>> from minigrad.testing import check_backward
        >>> class Twice(mg.FunctionNode):                 # y = 2 x, but its backward says 3
        ...     def forward(self, inputs):
        ...         return inputs[0] * 2,
        ...     def backward(self, indexes, grad_outputs):
        ...         return grad_outputs[0] * 3,
        >>> try:
        ...     check_backward(lambda x: F.sum(Twice().apply((F.sin(x),))[0]), np.ones(3), None, seed=0)
        ... except AssertionError as error:
        ...     found = error.report.localisation
        >>> found.nodes, found.node.index, found.node.label, found.passed
        (3, 2, 'Twice', 1)
    """

    where: str
    nodes: int  # recorded nodes of func's graph
    node: NodeRow | None = None
    passed: int = 0  # nodes checked right (before the wrong one, or all)
    unverified: list[NodeRow] = field(default_factory=list)  # at a kink, or not replayable
    gaps: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        if self.node is not None:
            lines = [failure_text("localisation (each node of func checked alone, in forward order)", self.node,
                                  self.nodes, self.passed)]
        else:
            lines = [f"localisation: each of the {self.nodes} recorded nodes of func passes its own check "
                     f"({self.passed} checked right), so the error is between nodes, not inside one"]
            if self.gaps:
                lines.append("  the graph has a gap (a dependence backprop cannot see):")
                lines += [f"    {gap}" for gap in self.gaps]
            else:
                lines.append("  no gap found: look for a value entering the computation that no recorded node "
                             "produced (a .array escape, NumPy between nodes, state read inside forward)")
        for row in self.unverified:
            lines.append(f"  not verified: node {row.index} {row.label} ({row.created_at}): {row.check.verdict.value}"
                         f": {row.check.message.splitlines()[0] if row.check.message else ''}")
        return "\n".join(lines)


def localise_failure(error: GradientCheckError, where: str, func: Callable[..., Any], x_data: Any,
                     params: Sequence[Variable], no_grads: Sequence[bool] | None, *, order: int,
                     **options: Any) -> None:
    """Add to ``error`` (message and ``error.report.localisation``) the node inside ``func`` that is wrong.

    Does nothing when ``func`` has fewer than two recorded nodes, or when the
    failing check is itself a node's check. ``options``: ``eps``, ``atol``,
    ``rtol``, ``dtype``, ``detect_nondifferentiable``, ``nondet_tol``.
    """
    if checking_nodes():
        return
    try:
        localisation = _localise(where, func, x_data, tuple(params), no_grads, order, error.report.seed, options)
    except Exception as failure:  # the original failure stands; say why it could not be localised
        note = f"localisation: could not run ({type(failure).__name__}: {failure})"
        error.args = (f"{error.args[0]}\n{note}",) + error.args[1:]
        return
    if localisation is not None:
        error.args = (f"{error.args[0]}\n{localisation}",) + error.args[1:]
        error.report.localisation = localisation


def _localise(where: str, func: Callable[..., Any], x_data: Any, params: tuple[Variable, ...],
              no_grads: Sequence[bool] | None, order: int, seed: int,
              options: dict[str, Any]) -> NodeLocalisation | None:
    x_data = x_data if isinstance(x_data, tuple) else (x_data,)
    if no_grads is None:
        no_grads = [x.dtype.kind != "f" for x in x_data]
    inputs = [Variable(x.copy(), requires_grad=x.dtype.kind == "f" and not skip) for x, skip in zip(x_data, no_grads)]
    graph = _recorded_run(func, inputs, seed)
    try:
        if len(graph.nodes) < 2:
            return None
        report = check_nodes(graph, order=order, share=False, seed=seed, options=options, stop_at_failure=True)
        unverified = [r for r in report.rows if r.check.verdict in (Verdict.KINK, Verdict.NOT_REPLAYABLE)]
        passed = sum(r.check.verdict is Verdict.OK for r in report.rows)
        if report.failures:
            return NodeLocalisation(where, len(graph.nodes), report.failures[0], passed, unverified)
        skip = {r.index for r in unverified if r.check.verdict is Verdict.NOT_REPLAYABLE}
        gaps = _gaps(func, x_data, params, no_grads, graph, inputs, seed, skip)
        return NodeLocalisation(where, len(graph.nodes), None, passed, unverified, gaps)
    finally:
        release(graph.nodes)


@contextlib.contextmanager
def _fixed_numpy_random(seed: int) -> Iterator[None]:
    """NumPy's global random state fixed by ``seed`` inside, and the caller's state back afterwards."""
    state = numpy.random.get_state()
    numpy.random.seed(seed % (2 ** 32))
    try:
        yield
    finally:
        numpy.random.set_state(state)


def _recorded_run(func: Callable[..., Any], inputs: list[Variable], seed: int) -> GraphNodes:
    """Run ``func`` on ``inputs`` with backprop on, recording; its recorded graph."""
    with _fixed_numpy_random(seed), force_backprop_mode(), record_graph():
        outputs = func(*inputs)
    outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    return recorded_nodes([y for y in outputs if isinstance(y, Variable)])


def _gaps(func: Callable[..., Any], x_data: tuple[Any, ...], params: tuple[Variable, ...],
          no_grads: Sequence[bool], graph: GraphNodes, inputs: list[Variable], seed: int,
          skip: set[int]) -> list[str]:
    """Where a value enters ``func``'s computation unseen by backprop (see the module docstring)."""
    rng = numpy.random.default_rng(seed)
    moved_inputs = [Variable(moved(rng, x, MOVE) if x.dtype.kind == "f" and not excluded else x.copy(),
                             requires_grad=x.dtype.kind == "f" and not excluded)
                    for x, excluded in zip(x_data, no_grads)]
    originals = [p.array for p in params]
    try:
        for p in params:
            p.array = moved(rng, p.array, MOVE)
        moved_graph = _recorded_run(func, moved_inputs, seed)
    finally:
        for p, array in zip(params, originals):
            p.array = array
    try:
        if [type(record_of(n).template) for n in moved_graph.nodes] != \
                [type(record_of(n).template) for n in graph.nodes]:
            return ["(not looked for: the graph changes shape when the inputs move, so its nodes cannot be "
                    "matched between the two runs)"]
        return _changed_constants(graph, moved_graph, inputs, params) + _state_readers(moved_graph, skip)
    finally:
        release(moved_graph.nodes)


def _changed_constants(graph: GraphNodes, moved: GraphNodes, inputs: list[Variable],
                       params: tuple[Variable, ...]) -> list[str]:
    """Node inputs made by no recorded node, not func's inputs or parameters, that moved with them."""
    gaps = []
    for i, (node, other) in enumerate(zip(graph.nodes, moved.nodes), start=1):
        record, moved_record = record_of(node), record_of(other)
        for j, x in enumerate(node.inputs or ()):
            if x.creator is not None and record_of(x.creator) is not None:
                continue  # made by a recorded node
            given = x() is not None and any(x() is v for v in (*inputs, *params))
            if given or _equal(record.arrays[j], moved_record.arrays[j]):
                continue
            gaps.append(f"node {i} {record.label}, created at {record.where}\n"
                        f"      its input {j} ({tuple(record.arrays[j].shape)} {record.arrays[j].dtype}) is a value "
                        "that no recorded node produced, yet it changes when func's inputs change (a .array "
                        "escape, a NumPy call between nodes, or a no_backprop_mode block)")
    return gaps


def _state_readers(moved: GraphNodes, skip: set[int]) -> list[str]:
    """Nodes of the moved run that, replayed now (parameters back), no longer give what they gave
    (but for the nodes ``skip``, which could not be replayed in the first run either)."""
    readers = []
    with inside_node_checks():
        for i, node in enumerate(moved.nodes, start=1):
            record = record_of(node)
            outputs, _ = replay_outputs(record, moved.seen.get(node, {}))
            if outputs is None and i not in skip:
                readers.append(f"node {i} {record.label}, created at {record.where}\n"
                               "      replayed on the same inputs it gives a different output once func's inputs "
                               "and parameters are back: its forward reads state (a parameter, a global) instead "
                               "of taking it as an input")
    return readers


def _equal(a: Any, b: Any) -> bool:
    xp = backend.get_array_module(a)
    return a.shape == b.shape and bool(xp.array_equal(a, b))
