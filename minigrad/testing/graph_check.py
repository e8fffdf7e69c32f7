"""``check_graph``: every node of a real forward pass, each checked alone with the inputs it saw.

A gradient check of a whole model says *that* a gradient is wrong; checking
each node of the graph on its own says *which* op is. Run the forward pass
inside ``record_graph()`` (so each node keeps what it saw), then
``check_graph(outputs)``: the nodes are checked in forward order
(``node_check``), and the result is a table with one row per node.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy

from minigrad.testing.gradient_check import GradientCheckError, GradientCheckReport
from minigrad.testing.graph_recording import GraphNodes, record_of, recorded_nodes, release
from minigrad.testing.node_check import NodeCheck, Verdict, check_node, describe_inputs, share_key
from minigrad.variable import Variable

__all__ = ["check_graph", "GraphCheckReport", "GraphCheckError", "NodeRow", "node_seed"]


@dataclass
class NodeRow:
    """One node of the table: which node, where it was created, what it saw, and its verdict.

    Example:
        >>> import numpy as np, minigrad as mg, minigrad.functions as F
        >>> from minigrad.testing import check_graph, record_graph
        >>> with record_graph():
        ...     y = F.exp(mg.Variable(np.ones((2, 3))))
        >>> row, = check_graph(y, seed=0).rows
        >>> row.index, row.label, row.inputs, row.check.verdict.value
        (1, 'Exp', ['(2, 3) float64'], 'ok')
    """

    index: int  # 1-based, in forward order
    label: str
    created_at: str  # file:line
    source: str  # that line of code
    inputs: list[str]  # "shape dtype" per input
    check: NodeCheck
    shared_with: int | None = None  # the row whose check stands for this one
    caller: str = ""  # "file:line: code" that called the creating code, when that is the user's code too

    @property
    def where(self) -> str:
        """``file:line: code`` (and where that was called from), for messages."""
        where = f"{self.created_at}: {self.source}" if self.source else self.created_at
        return f"{where} (called from {self.caller})" if self.caller else where


@dataclass
class GraphCheckReport:
    """What ``check_graph`` found: one ``NodeRow`` per recorded node, in forward order.

    ``print(report)`` shows the table. ``passed`` is False when some node's own
    check failed; nodes not verified (a kink at the inputs they saw, not
    replayable) are listed, not counted as failures.

    Example:
        >>> import numpy as np, minigrad as mg, minigrad.functions as F
        >>> from minigrad.testing import check_graph, record_graph
        >>> x = mg.Variable(np.linspace(-1, 1, 6).reshape(2, 3))
        >>> with record_graph():
        ...     y = F.sum(F.exp(x) * x)
        >>> report = check_graph(y, seed=0)
        >>> report.passed, report.checked, report.shared, [row.label for row in report.rows]
        (True, 3, 0, ['Exp', 'Mul', 'Sum'])
    """

    rows: list[NodeRow]
    order: int
    unrecorded: int = 0  # nodes of the graph that were not recorded (or whose records were already used)
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def checked(self) -> int:
        """Nodes whose own check ran."""
        return sum(r.check.verdict not in (Verdict.SHARED, Verdict.NOT_REPLAYABLE, Verdict.NOTHING)
                   for r in self.rows)

    @property
    def shared(self) -> int:
        """Nodes that shared the check of an earlier node of the same kind on the same shapes."""
        return sum(r.check.verdict is Verdict.SHARED for r in self.rows)

    @property
    def failures(self) -> list[NodeRow]:
        """The rows whose own check failed."""
        return [r for r in self.rows if r.check.failed]

    @property
    def passed(self) -> bool:
        """Whether no node's own check failed."""
        return not self.failures

    def summary(self) -> str:
        counts = {v: sum(r.check.verdict is v for r in self.rows) for v in Verdict}
        order = "first order" if self.order == 1 else "first and second order"
        parts = [f"{len(self.rows)} nodes checked alone ({order}): {self.checked} checked, {self.shared} shared"]
        parts += [f"{counts[v]} {v.value}" for v in (Verdict.WRONG, Verdict.ERROR, Verdict.KINK,
                                                      Verdict.NOT_REPLAYABLE, Verdict.NOTHING) if counts[v]]
        if self.unrecorded:
            parts.append(f"{self.unrecorded} not recorded")
        return ", ".join(parts) + f"; {self.seconds:.2f} s"

    def __str__(self) -> str:
        header = ["#", "node", "created at", "inputs", "verdict", "margin", "seconds"]
        lines = [[str(r.index), r.label, _short(r.created_at), ", ".join(r.inputs),
                  _verdict_text(r), "" if math.isnan(r.check.margin) else f"{r.check.margin:.2g}",
                  f"{r.check.seconds:.3f}"] for r in self.rows]
        widths = [max(len(h), *(len(line[k]) for line in lines)) if lines else len(h) for k, h in enumerate(header)]
        right = {0, 5, 6}

        def fmt(cells: list[str]) -> str:
            return "  ".join(c.rjust(w) if k in right else c.ljust(w)
                             for k, (c, w) in enumerate(zip(cells, widths))).rstrip()

        text = [f"check_graph: {self.summary()}", fmt(header)] + [fmt(line) for line in lines]
        return "\n".join(text + [f"note: {note}" for note in self.notes])

    __repr__ = __str__


class GraphCheckError(GradientCheckError):
    """A node of the graph fails its own check: ``.report`` is that node's report, ``.graph`` the table.

    Example:
        >>> from minigrad.testing import GraphCheckError, GradientCheckError
        >>> issubclass(GraphCheckError, GradientCheckError)
        True
    """

    def __init__(self, message: str, report: GradientCheckReport | None, graph: GraphCheckReport) -> None:
        super().__init__(message, report)  # type: ignore[arg-type]
        self.graph = graph


def check_graph(
    outputs: Variable | Sequence[Variable],
    *,
    order: int = 1,
    share: bool = True,
    eps: float = 1e-3,
    atol: float | None = None,
    rtol: float | None = None,
    dtype: Any = None,
    detect_nondifferentiable: bool = False,
    seed: int | None = None,
    nondet_tol: float = 0.0,
) -> GraphCheckReport:
    """Check every node of the graph behind ``outputs`` alone, with the inputs it saw.

    Run the forward pass inside ``minigrad.testing.record_graph()`` first:
    each node then keeps a copy of itself as created and its input arrays.
    Each node is replayed (a fresh node of the same kind) and checked by
    ``check_backward`` (and, with ``order=2``, ``check_double_backward``) on
    the inputs that needed a gradient, with the other inputs (labels, indices,
    constants) fixed and random output gradients on the outputs the graph
    used. The check consumes the recording: the recorded arrays are dropped
    afterwards (record again to check again).

    Args:
        outputs: a Variable, or a list or tuple of Variables, computed inside ``record_graph()``.
        order: 1 (first-order gradients) or 2 (also second order).
        share: a node of the same class, hyperparameters, input shapes and
            dtypes as one already checked shares its check (listed as shared).
        eps, atol, rtol, dtype, detect_nondifferentiable, nondet_tol: passed to
            each node's check, as in ``check_backward``.
        seed: seed of the checks (node ``i`` uses ``node_seed(seed, i)``); drawn when None.

    Returns:
        A ``GraphCheckReport``; ``print`` it for the table (node, created at,
        input shapes, verdict, margin, seconds).

    Raises:
        GraphCheckError: (a ``GradientCheckError``) some node's own check
            failed: the message names the first such node, where it was
            created, its inputs and its own report, followed by the table.
        TypeError, ValueError: ``outputs`` is not a Variable or a sequence of
            them, has no creator (no graph), or its graph was not recorded.

    Example:
        >>> import numpy as np, minigrad as mg, minigrad.functions as F
        >>> from minigrad.testing import check_graph, record_graph
        >>> x = mg.Variable(np.array([[0.5, -1.0, 2.0]]))
        >>> with record_graph():
        ...     y = F.sum(F.tanh(x) ** 2)
        >>> print(check_graph(y, seed=0))
        check_graph: 3 nodes checked alone (first order): 3 checked, 0 shared; ... s
        #  node            created at      inputs          verdict  margin  seconds
        1  Tanh            <doctest...>:2  (1, 3) float64  ok       ...
        2  PowVarConstant  <doctest...>:2  (1, 3) float64  ok       ...
        3  Sum             <doctest...>:2  (1, 3) float64  ok       ...
    """
    outputs = _as_outputs(outputs)
    if order not in (1, 2):
        raise ValueError(f"check_graph: order must be 1 or 2, got {order!r}")
    graph = recorded_nodes(outputs)
    if not graph.nodes:
        raise ValueError(f"check_graph: the graph behind outputs was not recorded ({graph.unrecorded} nodes, none "
                         "with a record): run the forward pass inside `with minigrad.testing.record_graph():` "
                         "(a check consumes the recording: record again to check again)")
    if seed is None:
        seed = int(numpy.random.SeedSequence().entropy % (2 ** 63))
    options = dict(eps=eps, atol=atol, rtol=rtol, dtype=dtype, detect_nondifferentiable=detect_nondifferentiable,
                   nondet_tol=nondet_tol)
    try:
        report = check_nodes(graph, order=order, share=share, seed=seed, options=options)
    finally:
        release(graph.nodes)
    failures = report.failures
    if failures:
        first = failures[0]
        passed = sum(r.check.verdict in (Verdict.OK, Verdict.SHARED) for r in report.rows[:first.index - 1])
        raise GraphCheckError(failure_text("check_graph", first, len(report.rows), passed) + "\n" + str(report),
                              first.check.report, report)
    return report


def check_nodes(graph: GraphNodes, *, order: int, share: bool, seed: int, options: dict[str, Any],
                stop_at_failure: bool = False) -> GraphCheckReport:
    """Check each node of ``graph`` in forward order; the table of their verdicts."""
    rows: list[NodeRow] = []
    passed_by_key: dict[Any, int] = {}
    for i, node in enumerate(graph.nodes, start=1):
        record = record_of(node)
        used = graph.used.get(node, set())
        key = share_key(node, record, used) if share else None
        if key is not None and key in passed_by_key:
            check, shared_with = NodeCheck(Verdict.SHARED), passed_by_key[key]
            check.margin = rows[shared_with - 1].check.margin
        else:
            check = check_node(node, record, used, graph.seen.get(node, {}), order=order, seed=node_seed(seed, i),
                               options=options)
            shared_with = None
            if key is not None and check.verdict is Verdict.OK:
                passed_by_key[key] = i
        rows.append(NodeRow(i, record.label, record.created_at, record.source, describe_inputs(record), check,
                            shared_with, record.caller))
        if stop_at_failure and check.failed:
            break
    report = GraphCheckReport(rows, order, graph.unrecorded)
    report.seconds = sum(r.check.seconds for r in rows)
    return report


def node_seed(seed: int, index: int) -> int:
    """The seed of node ``index``'s check, from the seed of the whole check."""
    return int(numpy.random.SeedSequence([seed % (2 ** 63), index]).generate_state(2, numpy.uint64)[0] % (2 ** 63))


def failure_text(where: str, row: NodeRow, total: int, passed: int) -> str:
    """``where``: node i of n fails its own check (label, created at file:line: code), its inputs and its report."""
    order = "" if row.check.order == 1 else " at second order"
    lines = [f"{where}: node {row.index} of {total} fails its own check{order}: {row.label}, created at {row.where}",
             f"  its inputs: {', '.join(row.inputs)}",
             f"  {passed} nodes before it passed their own checks; its own check:"]
    lines += ["    " + line for line in row.check.message.splitlines()]
    return "\n".join(lines)


def _as_outputs(outputs: Any) -> list[Variable]:
    where = "check_graph"
    if isinstance(outputs, Variable):
        outputs = [outputs]
    elif isinstance(outputs, (list, tuple)):
        if not outputs:
            raise ValueError(f"{where}: outputs is empty; pass the Variables a recorded forward pass returned")
        for k, y in enumerate(outputs):
            if not isinstance(y, Variable):
                raise TypeError(f"{where}: outputs[{k}] must be a Variable, got {type(y).__name__}")
        outputs = list(outputs)
    else:
        raise TypeError(f"{where}: outputs must be a Variable or a list or tuple of Variables, got "
                        f"{type(outputs).__name__}" + (" (an array: pass the Variable that holds it)"
                                                       if hasattr(outputs, "dtype") else ""))
    for k, y in enumerate(outputs):
        if y.creator is None:
            name = "outputs" if len(outputs) == 1 else f"outputs[{k}]"
            raise ValueError(f"{where}: {name} (shape {y.shape}, {y.dtype}) has no creator, so there is no graph "
                             "behind it: it is a leaf, or it was computed under no_backprop_mode or from inputs "
                             "that need no gradient")
    return outputs


def _short(created_at: str) -> str:
    """``file:line`` with the file's base name only (the table's column)."""
    filename, _, line = created_at.rpartition(":")
    return f"{os.path.basename(filename)}:{line}"


def _verdict_text(row: NodeRow) -> str:
    if row.check.verdict is Verdict.SHARED:
        return f"shared (#{row.shared_with})"
    if row.check.failed and row.check.order == 2:
        return f"{row.check.verdict.value} (2nd order)"
    if row.check.verdict is Verdict.KINK and row.check.report is not None:
        return "kink, ok nearby"
    return row.check.verdict.value

