"""How low can per-op overhead go? The ``overhead`` chain through the thinnest engine we could write.

The bare engine below has minigrad's data model and nothing else: one Variable
object per value and one node object per op, outputs linked to their node,
inputs kept by it, a rank heap for backward, and gradients that are Variables
made by nodes (so the same model can do double backprop). It has no argument
or gradient checks, no broadcasting, no dtype rules, no debug mode, no
configuration: it is not a usable library, only a lower bound for one built
this way in pure Python. The table puts it beside raw NumPy and minigrad,
measured in the same run.

A second row runs the same engine with the one thing minigrad's data model
added since (issue 15's honest retention): a node keeps, of each input, a weak
reference and where it sits in the graph (``Edge``, minigrad's ``VariableNode``
reduced to what this engine's backward reads), so a graph holds no array that
backward does not need. It shows how much of minigrad's ratio that model costs
before any check is added.

    python -m benchmarks.overhead_floor [--ops 1000] [--repeats 30]
"""

from __future__ import annotations

import argparse
import heapq
import itertools
import weakref
from typing import Any

import numpy

from benchmarks.common import interleaved_medians, print_table
from benchmarks.overhead import C, minigrad_chain, numpy_chain

_recording = [True]  # backward turns recording off, as minigrad does without double backprop


class Var:
    __slots__ = ("data", "grad", "creator", "rank")

    def __init__(self, data: Any, creator: Node | None = None, rank: int = 0) -> None:
        self.data, self.grad, self.creator, self.rank = data, None, creator, rank

    def __mul__(self, c: float) -> Var:
        return MulConstant(c).apply(self)

    def __add__(self, c: float) -> Var:
        return AddConstant(c).apply(self)


class Node:
    __slots__ = ("inputs", "rank")

    def apply(self, *inputs: Var) -> Var:
        y = self.forward(*[x.data for x in inputs]) if len(inputs) > 1 else self.forward(inputs[0].data)
        if not _recording[0]:
            return Var(y)
        self.inputs = inputs
        self.rank = max(x.rank for x in inputs) if len(inputs) > 1 else inputs[0].rank
        return Var(y, self, self.rank + 1)


class MulConstant(Node):
    __slots__ = ("c",)

    def __init__(self, c: float) -> None:
        self.c = c

    def forward(self, x: Any) -> Any:
        return x * self.c

    def backward(self, gy: Var) -> tuple[Var, ...]:
        return (gy * self.c,)


class AddConstant(MulConstant):
    __slots__ = ()

    def forward(self, x: Any) -> Any:
        return x + self.c

    def backward(self, gy: Var) -> tuple[Var, ...]:
        return (gy,)


class Tanh(Node):
    __slots__ = ("y",)

    def forward(self, x: Any) -> Any:
        self.y = numpy.tanh(x)
        return self.y

    def backward(self, gy: Var) -> tuple[Var, ...]:
        return (TanhGrad().apply(Var(self.y, self, self.rank + 1), gy),)


class TanhGrad(Node):
    __slots__ = ()

    def forward(self, y: Any, gy: Any) -> Any:
        return gy * (1 - y * y)


class Edge(weakref.ref):
    """What a retaining node keeps of an input: a weak reference to it and its creator, not its array."""

    __slots__ = ("creator",)


class RetainingVar(Var):
    __slots__ = ("edge", "__weakref__")

    def __init__(self, data: Any, creator: Node | None = None, rank: int = 0) -> None:
        self.data, self.grad, self.creator, self.rank, self.edge = data, None, creator, rank, None

    def __mul__(self, c: float) -> Var:
        return RetainingMulConstant(c).apply(self)

    def __add__(self, c: float) -> Var:
        return RetainingAddConstant(c).apply(self)


def edge_of(x: RetainingVar) -> Edge:
    """The input's edge, made once and shared by every node that takes ``x``."""
    edge = x.edge
    if edge is None:
        edge = x.edge = Edge(x)
        edge.creator = x.creator
    return edge


def retaining_apply(self: Node, *inputs: RetainingVar) -> RetainingVar:
    """``Node.apply`` keeping each input's ``Edge`` instead of the input."""
    y = self.forward(*[x.data for x in inputs]) if len(inputs) > 1 else self.forward(inputs[0].data)
    if not _recording[0]:
        return RetainingVar(y)
    self.inputs = tuple(map(edge_of, inputs)) if len(inputs) > 1 else (edge_of(inputs[0]),)
    self.rank = max(x.rank for x in inputs) if len(inputs) > 1 else inputs[0].rank
    return RetainingVar(y, self, self.rank + 1)


class RetainingMulConstant(MulConstant):
    __slots__ = ()
    apply = retaining_apply


class RetainingAddConstant(AddConstant):
    __slots__ = ()
    apply = retaining_apply


class RetainingTanh(Tanh):
    __slots__ = ()
    apply = retaining_apply


def backward(y: Var) -> None:
    """Rank-heap backward from ``y`` with a gradient of ones, into the leaves' ``grad``."""
    pending = {y.creator: Var(numpy.ones_like(y.data))}
    order = itertools.count()
    heap = [(-y.creator.rank, next(order), y.creator)]
    _recording[0] = False
    try:
        while heap:
            node = heapq.heappop(heap)[2]
            for x, gx in zip(node.inputs, node.backward(pending.pop(node))):
                creator = x.creator
                if creator is None:  # a leaf (through its Edge in the retaining engine, once per chain)
                    if isinstance(x, Edge):
                        x = x()
                    x.grad = gx if x.grad is None else Var(x.grad.data + gx.data)
                elif creator in pending:
                    pending[creator] = Var(pending[creator].data + gx.data)
                else:
                    pending[creator] = gx
                    heapq.heappush(heap, (-creator.rank, next(order), creator))
    finally:
        _recording[0] = True


def bare_chain(x0: Any, n_ops: int, var: type[Var] = Var, tanh: type[Node] = Tanh) -> Any:
    """The ``overhead`` chain (``*c``, ``+c``, tanh) through the bare engine: the input's gradient.

    ``var`` and ``tanh`` choose the engine (``retaining_chain`` passes its own). The loop is
    written out here as in ``overhead.py`` on purpose: one loop shared with it through
    callables would add a call per op to every implementation and flatter the ratios.
    """
    x = var(x0)
    h = x
    for i in range(n_ops):
        step = i % 3
        if step == 0:
            h = h * C
        elif step == 1:
            h = h + C
        else:
            h = tanh().apply(h)
    backward(h)
    return x.grad.data


def retaining_chain(x0: Any, n_ops: int) -> Any:
    """``bare_chain`` through the retaining engine."""
    return bare_chain(x0, n_ops, RetainingVar, RetainingTanh)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ops", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    x0 = numpy.random.default_rng(0).uniform(-1, 1, 4).astype(numpy.float32)
    expected = numpy_chain(x0, args.ops)
    for chain in (bare_chain, retaining_chain, minigrad_chain):
        numpy.testing.assert_allclose(chain(x0, args.ops), expected, rtol=1e-5, atol=1e-6)
    t = interleaved_medians({"numpy": lambda: numpy_chain(x0, args.ops),
                             "bare": lambda: bare_chain(x0, args.ops),
                             "retaining": lambda: retaining_chain(x0, args.ops),
                             "minigrad": lambda: minigrad_chain(x0, args.ops)}, args.repeats)
    rows = [[name, t[key] * 1e3, t[key] / args.ops * 1e6, t[key] / t["numpy"], t[key] / t["bare"]]
            for name, key in (("raw numpy", "numpy"), ("bare engine (lower bound)", "bare"),
                              ("bare engine + retention edges", "retaining"), ("minigrad", "minigrad"))]
    print_table(f"overhead floor: chain of {args.ops} ops (*c, +c, tanh) on float32 (4,), forward+backward, "
                f"median of {args.repeats}",
                ["implementation", "total ms", "us per op", "ratio to numpy", "ratio to bare"], rows)
    print(f"minigrad / bare engine: {t['minigrad'] / t['bare']:.3f}; "
          f"minigrad / bare engine with retention edges: {t['minigrad'] / t['retaining']:.3f}")

if __name__ == "__main__":
    main()
