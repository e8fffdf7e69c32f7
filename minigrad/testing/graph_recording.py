"""Recording what each node of a forward pass saw, so that each node can be checked again alone.

After a forward pass a graph keeps, of each node, only where its inputs sit
(and the arrays it retains for backward): the intermediate arrays are gone.
Inside ``with record_graph():`` the engine hands every node it applies in this
thread, before the node's forward runs, to ``_record``, which keeps on the node
a ``NodeRecord``: a shallow copy of the node as yet unapplied (its class and
hyperparameters, none of the state that forward or ``apply`` set), the input
arrays, and the line of the caller's code that created it. A replay copies that
template once more and applies the copy, so a node can run again as often as a
gradient check needs, on the inputs it saw or on perturbed ones.

The records live on the nodes, so they are freed with the graph;
``check_graph`` drops them as soon as it has checked the nodes. Outside the
block the engine's hook is ``None`` and nothing is recorded.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import itertools
import linecache
import os
import sys
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from types import FrameType
from typing import Any

import minigrad
from minigrad import function_node
from minigrad.function_node import FunctionNode
from minigrad.variable import Variable, VariableNode

__all__ = ["record_graph", "NodeRecord", "GraphNodes", "recorded_nodes", "release"]

_PACKAGE_DIR = os.path.dirname(os.path.abspath(minigrad.__file__)) + os.sep
_ATTRIBUTE = "_graph_record"  # where a node keeps its record
_sequence = itertools.count()  # forward order, across threads and recordings
_state = threading.local()  # .depth: how many record_graph blocks this thread is in (0: none, or paused)
_lock = threading.Lock()
_recording_threads = 0  # the engine's hook stays installed while any thread records


@dataclass(eq=False)
class NodeRecord:
    """What one node saw: the node before it ran, its input arrays and where it was created.

    Example:
        >>> import numpy as np, minigrad as mg, minigrad.functions as F
        >>> from minigrad.testing import record_graph
        >>> x = mg.Variable(np.array([1.0, -2.0]))
        >>> with record_graph():
        ...     y = F.tanh(x * 3.0)
        >>> from minigrad.testing.graph_recording import record_of
        >>> record = record_of(y.creator)
        >>> record.label, record.arrays[0]
        ('Tanh', array([ 3., -6.]))
        >>> record.replay([np.array([0.0, 1.0])])[0].array    # a fresh node of the same kind
        array([0.        , 0.76159416])
    """

    sequence: int  # forward order
    template: FunctionNode  # a shallow copy of the node made before its forward ran
    arrays: tuple[Any, ...]  # the input arrays the node saw
    filename: str
    lineno: int
    source: str  # that line of code, stripped
    caller: str = ""  # "file:line: code" of the code that called it, when that is the caller's code too

    @property
    def label(self) -> str:
        """The node's label (its class name for most nodes)."""
        return self.template.label

    @property
    def created_at(self) -> str:
        """``file:line`` of the code that created the node."""
        return f"{self.filename}:{self.lineno}"

    @property
    def where(self) -> str:
        """``file:line: code`` (just ``file:line`` where the code cannot be read, as typed at a prompt)."""
        return f"{self.created_at}: {self.source}" if self.source else self.created_at

    def replay(self, inputs: Sequence[Any]) -> tuple[Variable, ...]:
        """Apply a fresh node of the same kind (a copy of the template) to ``inputs``."""
        return copy.copy(self.template).apply(tuple(inputs))


@contextlib.contextmanager
def record_graph() -> Iterator[None]:
    """Record, on each node applied in this thread inside the block, what it saw (for ``check_graph``).

    Recording changes nothing that forward or backward computes; it keeps the
    input arrays of every node (on the node, so for as long as the graph
    lives, or until ``check_graph`` has checked it), and so costs memory: the
    graph holds every intermediate array.

    Example:
        >>> import numpy as np, minigrad as mg, minigrad.functions as F
        >>> from minigrad.testing import check_graph, record_graph
        >>> x = mg.Variable(np.array([[0.5, -1.0], [2.0, 0.25]]))
        >>> with record_graph():
        ...     loss = F.sum(F.tanh(x) * x)
        >>> check_graph(loss, seed=0).passed
        True
    """
    global _recording_threads
    with _lock:
        _recording_threads += 1
        function_node.recording_hook = _record
    _state.depth = getattr(_state, "depth", 0) + 1
    try:
        yield
    finally:
        _state.depth -= 1
        with _lock:
            _recording_threads -= 1
            if not _recording_threads:
                function_node.recording_hook = None


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """No recording in this thread inside the block (the checks replay nodes; those need no record)."""
    depth = getattr(_state, "depth", 0)
    _state.depth = 0
    try:
        yield
    finally:
        _state.depth = depth


def _record(node: FunctionNode, inputs: tuple[Variable, ...]) -> None:
    """The engine's hook: keep a copy of ``node`` (not yet applied) and what it is applied to."""
    if not getattr(_state, "depth", 0):  # another thread records, or the checks paused recording
        return
    frame = _creation_frame()
    caller = frame.f_back  # named too when it is the caller's code as well (a helper that applies a node)
    caller_text = "" if caller is None or _inside_minigrad(caller.f_code.co_filename) else _where(caller)
    setattr(node, _ATTRIBUTE, NodeRecord(next(_sequence), copy.copy(node), tuple(x.array for x in inputs),
                                         frame.f_code.co_filename, frame.f_lineno, _source(frame), caller_text))


def _creation_frame() -> FrameType:
    """The innermost frame of the caller's code, outside minigrad (else the caller of ``apply``)."""
    frame = first = sys._getframe(3)  # _creation_frame <- _record <- FunctionNode.apply <- who applied the node
    while frame is not None and _inside_minigrad(frame.f_code.co_filename):
        frame = frame.f_back
    return frame or first


def _source(frame: FrameType) -> str:
    return linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()


def _where(frame: FrameType) -> str:
    source = _source(frame)
    return f"{frame.f_code.co_filename}:{frame.f_lineno}" + (f": {source}" if source else "")


@functools.lru_cache(maxsize=512)
def _inside_minigrad(filename: str) -> bool:
    return os.path.abspath(filename).startswith(_PACKAGE_DIR)


def record_of(node: FunctionNode) -> NodeRecord | None:
    """The node's record, or None when it was not recorded (or the record was released)."""
    return vars(node).get(_ATTRIBUTE)


@dataclass
class GraphNodes:
    """The nodes of a graph, walked back from its outputs, in forward order.

    ``nodes`` are the recorded ones; ``unrecorded`` counts the others (created
    outside ``record_graph``, or already checked). ``used`` gives the output
    indexes of each node that something downstream takes (another node, or one
    of the outputs) and ``seen`` the arrays those consumers saw.
    """

    nodes: list[FunctionNode]
    unrecorded: int
    used: dict[FunctionNode, set[int]]
    seen: dict[FunctionNode, dict[int, Any]]


def recorded_nodes(outputs: Sequence[Variable]) -> GraphNodes:
    """Walk back from ``outputs`` through every node's inputs; see ``GraphNodes``."""
    used: dict[FunctionNode, set[int]] = {}
    seen: dict[FunctionNode, dict[int, Any]] = {}
    pending = []
    for y in outputs:
        if y.creator is not None:
            index = VariableNode.of(y).index
            used.setdefault(y.creator, set()).add(index)
            seen.setdefault(y.creator, {})[index] = y.array
            pending.append(y.creator)
    visited = set(pending)
    while pending:
        node = pending.pop()
        record = record_of(node)
        for j, x in enumerate(node.inputs or ()):  # None: unchained
            if x.creator is None:
                continue
            used.setdefault(x.creator, set()).add(x.index)
            if record is not None:
                seen.setdefault(x.creator, {})[x.index] = record.arrays[j]
            if x.creator not in visited:
                visited.add(x.creator)
                pending.append(x.creator)
    nodes = sorted((n for n in visited if record_of(n) is not None), key=lambda n: record_of(n).sequence)
    return GraphNodes(nodes, len(visited) - len(nodes), used, seen)


def release(nodes: Sequence[FunctionNode]) -> None:
    """Drop the records of ``nodes`` (and with them the arrays they kept)."""
    for node in nodes:
        vars(node).pop(_ATTRIBUTE, None)
